package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixAnnouncesHardLinks: fix --dry-run notes that a hard-linked
// session's other names would keep the old content, and fix warns that
// they did (in text and JSON); a session with one name gets neither.
func TestFixAnnouncesHardLinks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	write(t, path, damagedSession)
	if err := os.Link(path, filepath.Join(dir, "also-s")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	_, out, _ := runCLI(t, "fix", "--dry-run", path)
	if !strings.Contains(out, "  note: the file has 1 other hard link(s); a repair gives only this name the new content, the other names keep the old\n") {
		t.Errorf("fix --dry-run says nothing of the other link:\n%s", out)
	}
	code, _, errOut := runCLI(t, "fix", "--format", "json", path)
	if code != exitOK || !strings.Contains(errOut, path+": the file had 1 other hard link(s); only this name has the repaired content, the other names keep the old\n") {
		t.Errorf("fix: exit %d, warning missing:\n%s", code, errOut)
	}
	single := filepath.Join(dir, "t.jsonl")
	write(t, single, damagedSession)
	if _, out, errOut := runCLI(t, "fix", "--dry-run", single); strings.Contains(out+errOut, "hard link") {
		t.Errorf("a single name gets a link note:\n%s%s", out, errOut)
	}
}
