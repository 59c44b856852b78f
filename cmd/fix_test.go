package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestFixInAReadOnlyDirectory: a session in a directory fix cannot write to
// is reported with a clear reason (exit 1) and left byte-identical, with
// nothing created beside it. Root ignores permission bits, so as root the
// directory is a tmpfs remounted read-only.
func TestFixInAReadOnlyDirectory(t *testing.T) {
	dir := readOnlyDir(t, func(dir string) {
		content := "{\"type\":\"session\",\"id\":\"s1\"}\n{\"type\":\"message\"\n"
		if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	path := filepath.Join(dir, "s.jsonl")
	before, _ := os.ReadFile(path)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"fix", path}, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	if code != exitFindings {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "not repaired: repair failed: ") || !strings.Contains(out.String(), "read-only file system") && !strings.Contains(out.String(), "permission denied") {
		t.Errorf("unclear report: %q", out.String())
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("the original changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left beside the session: %v", entries)
	}
}

// readOnlyDir returns a directory filled by fill and then made read-only.
func readOnlyDir(t *testing.T, fill func(string)) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		fill(dir)
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
		return dir
	}
	if runtime.GOOS != "linux" {
		t.Skip("needs a read-only mount")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	fill(dir)
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Skipf("remount read-only: %v: %s", err, out)
	}
	return dir
}
