package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSpoolStdinLeavesNothing: the spool of standard input reads back what
// was written to it and, while it is still open, has no name in the temp
// folder, so a killed process leaves no copy of the session behind.
func TestSpoolStdinLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot unlink an open file")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	content := "{\"type\":\"session\",\"id\":\"s1\"}\n"
	f, closeF, err := spoolStdin(&app{streams: streams{In: strings.NewReader(content)}})
	if err != nil {
		t.Fatal(err)
	}
	defer closeF()
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the spool has a name in the temp folder: %v", entries)
	}
	got, err := io.ReadAll(f)
	if err != nil || string(got) != content {
		t.Errorf("spool reads back %q, %v; want %q", got, err, content)
	}
}

// TestFixDryRunStdin: fix --dry-run - plans the repair of standard input
// exactly as it plans the repair of a file with the same content (text and
// JSON, the exit status too), and leaves nothing in the temp folder.
func TestFixDryRunStdin(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	content := "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n" +
		"{\"type\":\"message\"\n" +
		"{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\" \"}}\n"
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		fileOut, fileCode := runFixDryRun(t, path, format, "")
		stdinOut, stdinCode := runFixDryRun(t, "-", format, content)
		if want := strings.ReplaceAll(fileOut, path, "-"); stdinOut != want || stdinCode != fileCode {
			t.Errorf("--format %s: standard input gives (exit %d)\n%s\nwant (exit %d)\n%s", format, stdinCode, stdinOut, fileCode, want)
		}
		if fileCode != exitFindings || !strings.Contains(fileOut, "line 2") && format == "text" {
			t.Errorf("--format %s: the file's plan is not a repair (exit %d):\n%s", format, fileCode, fileOut)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("left in the temp folder: %v", entries)
	}
}

func runFixDryRun(t *testing.T, path, format, stdin string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"fix", "--dry-run", "--format", format, path},
		streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut}, func(string) string { return "" })
	if errOut.Len() > 0 {
		t.Errorf("fix --dry-run %s: stderr %q", path, errOut.String())
	}
	return out.String(), code
}
