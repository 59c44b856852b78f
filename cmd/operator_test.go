package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDoctorSpellings: OpenClaw's doctor spellings on the root become
// commands; a command's own flags, words after "--" and other command
// lines are left alone.
func TestDoctorSpellings(t *testing.T) {
	root := newRootCmd(&app{})
	for _, tc := range []struct {
		args, want []string
		err        bool
	}{
		{[]string{"--fix"}, []string{"fix"}, false},
		{[]string{"--repair", "--dry-run", "a.jsonl"}, []string{"fix", "--dry-run", "a.jsonl"}, false},
		{[]string{"--json", "--lint", "dir"}, []string{"check", "--json", "dir"}, false},
		{[]string{"-q", "--fix", "--yes", "--", "--fix"}, []string{"fix", "-q", "--yes", "--", "--fix"}, false},
		{[]string{"fix", "--repair", "a.jsonl"}, []string{"fix", "--repair", "a.jsonl"}, false},
		{[]string{"check", "a.jsonl"}, []string{"check", "a.jsonl"}, false},
		{[]string{"frobnicate"}, []string{"frobnicate"}, false},
		{[]string{"--fix", "--lint"}, nil, true},
	} {
		got, err := doctorSpellings(root, tc.args)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q (error %v)", tc.args, got, err, tc.want, tc.err)
		}
	}
}

// TestRootSpellingsRun: the spellings run the commands, and a bare unknown
// word is still an unknown command.
func TestRootSpellingsRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	writeSession(t, path, true)
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--fix", "--dry-run", path}, exitFindings, "would repair: dropped 1 malformed line(s)"},
		{[]string{"--repair", "--json", "--dry-run", path}, exitFindings, `"summary": {`},
		{[]string{"--lint", "--json", path}, exitFindings, `"transcript/malformed-line"`},
		{[]string{"repair", "-n", path}, exitFindings, "1 would repair, 0 clean"},
		{[]string{"frobnicate"}, exitUsage, ""},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), tc.args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
		if code != tc.code || !strings.Contains(out.String(), tc.out) {
			t.Errorf("%q: exit %d, want %d; stdout %q does not hold %q (stderr %q)", tc.args, code, tc.code, out.String(), tc.out, errOut.String())
		}
		if tc.code == exitUsage && !strings.Contains(errOut.String(), "unknown command") {
			t.Errorf("%q: stderr %q, want unknown command", tc.args, errOut.String())
		}
	}
}

// TestFixSweepPrompt: on a terminal, a fix that would rewrite more than one
// file lists them and asks once; "y" repairs, anything else leaves every
// file alone (exit 1); --yes and --non-interactive never ask.
func TestFixSweepPrompt(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flags    []string
		answer   string
		asked    bool
		repaired bool
	}{
		{"yes", nil, "y\n", true, true},
		{"no", nil, "n\n", true, false},
		{"no answer", nil, "", true, false},
		{"--yes", []string{"--yes"}, "", false, true},
		{"-y", []string{"-y"}, "", false, true},
		{"--non-interactive", []string{"--non-interactive"}, "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
			writeSession(t, a, true)
			writeSession(t, b, true)
			writeSession(t, c, false)
			before, _ := os.ReadFile(a)
			var out, errOut bytes.Buffer
			s := streams{In: strings.NewReader(tc.answer), Out: &out, Err: &errOut, InIsTerminal: true}
			code := run(context.Background(), append(append([]string{"fix"}, tc.flags...), dir), s, func(string) string { return "" })
			asked := strings.Contains(errOut.String(), "fix would rewrite 2 files:\n  "+a+"\n  "+b+"\nRepair them? [y/N] ")
			if asked != tc.asked {
				t.Errorf("asked %v, want %v (stderr %q)", asked, tc.asked, errOut.String())
			}
			after, _ := os.ReadFile(a)
			if repaired := !bytes.Equal(before, after); repaired != tc.repaired {
				t.Errorf("repaired %v, want %v", repaired, tc.repaired)
			}
			wantCode := exitOK
			if !tc.repaired {
				wantCode = exitFindings
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d (stdout %q, stderr %q)", code, wantCode, out.String(), errOut.String())
			}
			if tc.repaired && !strings.Contains(out.String(), "2 repaired, 1 clean; removed lines saved to ") {
				t.Errorf("no summary: %q", out.String())
			}
		})
	}
}

// TestFixStdoutJSONReport: fix --format json with --stdout or - writes the
// content on standard output and the JSON report on standard error.
func TestFixStdoutJSONReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeSession(t, path, true)
	content, _ := os.ReadFile(path)
	for _, args := range [][]string{{"fix", "--json", "--stdout", path}, {"fix", "--format", "json", "-"}} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, streams{In: bytes.NewReader(content), Out: &out, Err: &errOut}, func(string) string { return "" })
		if code != exitOK || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q", args, code, out.String())
		}
		if !strings.Contains(errOut.String(), `"droppedLines": 1`) || !strings.Contains(errOut.String(), `"repaired": 1`) {
			t.Errorf("%q: stderr %q, want the JSON report", args, errOut.String())
		}
	}
}

// writeSession writes a session with a header and, when broken, a
// truncated line.
func writeSession(t *testing.T, path string, broken bool) {
	t.Helper()
	content := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n"
	if broken {
		content += `{"type":"message","id":"u2"` + "\n"
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
