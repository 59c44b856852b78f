package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestReplayTextBoundsValues: replay's text output shows at most about 200
// bytes of any value from the session (here a 1 MiB block type, tool-call
// id and model id), and its length; the JSON output keeps them whole.
func TestReplayTextBoundsValues(t *testing.T) {
	huge := strings.Repeat("é", 1<<19) // 1 MiB of UTF-8: a cut must not split a character
	session := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"` + huge + `","text":"x"},{"type":"text","text":"hi"}]}}` + "\n" +
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c` + huge + `","name":"exec","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"m` + huge + `","stopReason":"toolUse"}}` + "\n"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, path, session)
	_, out, errOut := runCLI(t, "replay", "--diff", path)
	if len(out) > 8000 || !strings.Contains(out, "… (1048576 bytes)") || !strings.Contains(out, "… (1048577 bytes)") {
		t.Errorf("text output of %d bytes, want a few lines with the lengths of the clipped values:\n%.3000s\n%s", len(out), out, errOut)
	}
	if !utf8.ValidString(out) {
		t.Error("a clipped value splits a character")
	}
	_, out, _ = runCLI(t, "replay", "--format", "json", path)
	if !strings.Contains(out, huge) {
		t.Error("the JSON output lost the whole value")
	}
}
