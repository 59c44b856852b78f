package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Sessions for the path tests: a damaged one (a truncated line that fix
// drops) and what fix makes of it, which is also a clean session.
const (
	damagedSession  = "{\"type\":\"session\",\"id\":\"s1\"}\n{\"type\":\"message\"\n"
	repairedSession = "{\"type\":\"session\",\"id\":\"s1\"}\n"
)

// runCLI runs one invocation in-process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	return code, out.String(), errOut.String()
}

// TestPathsAreTakenByteForByte: a file name with white space at either end,
// tabs, newlines or non-ASCII characters names that file and no other, for
// every command. Beside each named (damaged) session lies a clean decoy
// under the name JavaScript's trim() would make of it: the decoy is never
// read for the named file, never written.
func TestPathsAreTakenByteForByte(t *testing.T) {
	names := []string{" s.jsonl ", "  s.jsonl", "\ts.jsonl\t", "s.jsonl\n", "\ns.jsonl", "\u00a0s.jsonl", "\ufeffs.jsonl", "ßé 会话.jsonl", " "}
	for _, name := range names {
		t.Run(strings.ToValidUTF8(name, "?"), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			decoy := filepath.Join(dir, "s.jsonl")
			write(t, path, damagedSession)
			write(t, decoy, repairedSession)

			if code, out, errOut := runCLI(t, "check", path); code != exitFindings || !strings.Contains(out, "fix") {
				t.Errorf("check: exit %d, want 1\n%s%s", code, out, errOut)
			}
			if code, out, errOut := runCLI(t, "fix", "--stdout", path); code != exitOK || out != repairedSession {
				t.Errorf("fix --stdout: exit %d, output %q, want %q\n%s", code, out, repairedSession, errOut)
			}
			if code, out, errOut := runCLI(t, "fix", "--dry-run", path); code != exitFindings || !strings.Contains(out, path+": would repair: dropped 1 malformed line(s)") {
				t.Errorf("fix --dry-run: exit %d, want 1 and a planned repair\n%s%s", code, out, errOut)
			}
			assertContent(t, path, damagedSession)
			if code, out, errOut := runCLI(t, "fix", path); code != exitOK || !strings.Contains(out, path+": repaired: ") {
				t.Errorf("fix: exit %d, want 0 and the file repaired\n%s%s", code, out, errOut)
			}
			assertContent(t, path, repairedSession)
			assertContent(t, decoy, repairedSession)
		})
	}
	t.Run("folder", func(t *testing.T) {
		dir := t.TempDir()
		var named []string
		for _, name := range names {
			if strings.HasSuffix(name, ".jsonl") && name != "s.jsonl" {
				named = append(named, filepath.Join(dir, name))
				write(t, named[len(named)-1], damagedSession)
			}
		}
		decoy := filepath.Join(dir, "s.jsonl")
		write(t, decoy, repairedSession)
		code, out, errOut := runCLI(t, "fix", "--dry-run", dir)
		if code != exitFindings || strings.Count(out, ": would repair: ") != len(named) || !strings.Contains(out, decoy+": nothing to repair") {
			t.Errorf("fix --dry-run DIR: exit %d, want 1 and %d planned repairs\n%s%s", code, len(named), out, errOut)
		}
		if code, out, errOut := runCLI(t, "check", dir); code != exitFindings || strings.Count(out, "transcript/") < len(named) {
			t.Errorf("check DIR: exit %d\n%s%s", code, out, errOut)
		}
		if code, out, errOut := runCLI(t, "fix", dir); code != exitOK || strings.Count(out, ": repaired: ") != len(named) {
			t.Errorf("fix DIR: exit %d, want 0 and %d repairs\n%s%s", code, len(named), out, errOut)
		}
		for _, p := range named {
			assertContent(t, p, repairedSession)
		}
		assertContent(t, decoy, repairedSession)
	})
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertContent(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%q holds %q, want %q", path, got, want)
	}
}
