package repair

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// lostLine is one saved line of a lost-and-found record.
type lostLine struct {
	Line   int      `json:"line"`
	Offset int64    `json:"offset"`
	Action string   `json:"action"`
	Rules  []string `json:"rules"`
	EOL    string   `json:"eol"`
	Text   *string  `json:"text"`
	Base64 *string  `json:"base64"`
}

// original is the line's bytes as they were in the session, line end
// included.
func (l lostLine) original(t *testing.T) []byte {
	if l.Text != nil {
		return []byte(*l.Text + l.EOL)
	}
	b, err := base64.StdEncoding.DecodeString(*l.Base64)
	if err != nil {
		t.Fatalf("line %d: base64: %v", l.Line, err)
	}
	return append(b, l.EOL...)
}

// readRecord parses a record: its header and its saved lines.
func readRecord(t *testing.T, path string) (lostFoundHeader, []lostLine) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	var h lostFoundHeader
	var lines []lostLine
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				t.Fatalf("header: %v", err)
			}
			continue
		}
		var l lostLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("record line %d: %v", n+1, err)
		}
		lines = append(lines, l)
	}
	return h, lines
}

// TestLostFoundSavesEveryChangedLine repairs a copy of every conformance
// case in place with a lost-and-found record and checks that the record
// holds exactly the lines the repair drops, rewrites or re-serializes, each
// with its physical line number, offset and original bytes; that it is
// 0600 in 0700 folders outside the agents folder; and that a repair that
// changes no line (or none at all) writes none.
func TestLostFoundSavesEveryChangedLine(t *testing.T) {
	for _, src := range sessiontest.ConformanceCases(t) {
		name := filepath.Base(src)
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			input, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			state := t.TempDir()
			path := filepath.Join(state, "agents", "main", "sessions", name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, input, 0o644); err != nil {
				t.Fatal(err)
			}
			var changed []Verdict
			res, err := RepairFile(path, Options{LostFound: &LostFound{Home: t.TempDir()}, OnVerdict: func(v Verdict) {
				if v.Changed() {
					changed = append(changed, v)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Repaired || len(changed) == 0 {
				if res.LostFoundPath != "" {
					t.Fatalf("a record for a repair that changes no line: %s", res.LostFoundPath)
				}
				return
			}
			wantDir := filepath.Join(state, "openclaw-doctor", "lost-found", "main")
			if filepath.Dir(res.LostFoundPath) != wantDir {
				t.Fatalf("record %s, want it in %s", res.LostFoundPath, wantDir)
			}
			for d := wantDir; d != state; d = filepath.Dir(d) {
				if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
					t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
				}
			}
			if fi, _ := os.Stat(res.LostFoundPath); fi.Mode().Perm() != 0o600 {
				t.Errorf("record mode %v, want 0600", fi.Mode().Perm())
			}
			h, lines := readRecord(t, res.LostFoundPath)
			abs, _ := filepath.EvalSymlinks(path)
			if h.Format != LostFoundFormat || h.Session != abs || h.Size != int64(len(input)) {
				t.Errorf("header %+v", h)
			}
			if len(lines) != len(changed) {
				t.Fatalf("%d saved lines, want %d", len(lines), len(changed))
			}
			for i, l := range lines {
				if l.Line != changed[i].Line || strings.Join(l.Rules, "+") != changed[i].Rules.String() {
					t.Errorf("saved line %d (%v), want line %d (%v)", l.Line, l.Rules, changed[i].Line, changed[i].Rules)
				}
				orig := l.original(t)
				if !bytes.Equal(input[l.Offset:l.Offset+int64(len(orig))], orig) {
					t.Errorf("line %d: saved bytes differ from the original at offset %d", l.Line, l.Offset)
				}
				if nl := bytes.Count(input[:l.Offset], []byte("\n")); nl+1 != l.Line {
					t.Errorf("line %d: offset %d is on line %d", l.Line, l.Offset, nl+1)
				}
			}
		})
	}
}

// TestLostFoundRunsAndEncodings: a run of malformed lines is saved line by
// line, CRLF and missing final newlines are kept in eol, and a line that is
// not valid UTF-8 is saved in base64.
func TestLostFoundRunsAndEncodings(t *testing.T) {
	header := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
	input := header + "\n{bad1\n{bad2\r\n{\"x\":\"\xff\n" + `{"type":"message","id":"a","message":{"role":"user","content":"hi"}}` + "\n{tail"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(input), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	res, err := RepairFile(path, Options{LostFound: &LostFound{Home: home}})
	if err != nil || !res.Repaired {
		t.Fatalf("repair: %v %+v", err, res)
	}
	if filepath.Dir(res.LostFoundPath) != filepath.Join(home, "lost-found") {
		t.Fatalf("record %s outside %s/lost-found", res.LostFoundPath, home)
	}
	_, lines := readRecord(t, res.LostFoundPath)
	want := []struct {
		line int
		eol  string
		b64  bool
	}{{2, "\n", false}, {3, "\r\n", false}, {4, "\n", true}, {6, "", false}}
	if len(lines) != len(want) {
		t.Fatalf("%d saved lines, want %d: %+v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l.Line != w.line || l.EOL != w.eol || (l.Base64 != nil) != w.b64 {
			t.Errorf("saved line %+v, want line %d eol %q base64 %v", l, w.line, w.eol, w.b64)
		}
		orig := l.original(t)
		if !bytes.Equal([]byte(input)[l.Offset:l.Offset+int64(len(orig))], orig) {
			t.Errorf("line %d: saved bytes differ from the original", l.Line)
		}
	}
}

// TestLostFoundFailureLeavesSessionAlone: when the record cannot be
// written (its folder is a file, or a symlink) the repair is not done: the
// session keeps its bytes, the reason says why, nothing is left behind.
func TestLostFoundFailureLeavesSessionAlone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, home string)
	}{
		{"home is a file", func(t *testing.T, home string) {
			if err := os.WriteFile(home, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"lost-found is a symlink", func(t *testing.T, home string) {
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(t.TempDir(), filepath.Join(home, "lost-found")); err != nil {
				t.Skip("no symlinks:", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			input := []byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n{bad\n")
			if err := os.WriteFile(path, input, 0o600); err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(t.TempDir(), "home")
			tc.setup(t, home)
			res, err := RepairFile(path, Options{LostFound: &LostFound{Home: home}})
			if err == nil || res.Repaired || !strings.HasPrefix(res.Reason, ReasonLostFoundFailed) {
				t.Fatalf("err %v, result %+v: want a failed repair naming the lost-and-found", err, res)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, input) {
				t.Errorf("the session changed")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files left beside the session: %v", entries)
			}
		})
	}
}

// TestLostFoundNames: records of one session made in the same millisecond
// get distinct names; none is overwritten.
func TestLostFoundNames(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 5, 2, 14, 7, 31, 204e6, time.UTC)
	var names []string
	for range 3 {
		f, path, err := createRecord(dir, "s", at)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		names = append(names, filepath.Base(path))
	}
	want := []string{"s-20260502T140731.204Z.jsonl", "s-20260502T140731.204Z-2.jsonl", "s-20260502T140731.204Z-3.jsonl"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("names %v, want %v", names, want)
	}
}

// TestLostFoundDir: a session of an install gets its agent's folder under
// the install's state folder, anything else the user's.
func TestLostFoundDir(t *testing.T) {
	for _, tc := range []struct{ session, dir, owned string }{
		{"/s/agents/main/sessions/a.jsonl", "/s/openclaw-doctor/lost-found/main", "/s/openclaw-doctor"},
		{"/s/agents/work/sessions/sub/a.jsonl", "/s/openclaw-doctor/lost-found/work", "/s/openclaw-doctor"},
		{"/tmp/a.jsonl", "/home/u/.local/state/openclaw-doctor/lost-found", "/home/u/.local/state/openclaw-doctor"},
		{"/s/sessions/a.jsonl", "/home/u/.local/state/openclaw-doctor/lost-found", "/home/u/.local/state/openclaw-doctor"},
	} {
		dir, owned := LostFoundDir(tc.session, "/home/u/.local/state/openclaw-doctor")
		if dir != tc.dir || owned != tc.owned {
			t.Errorf("%s: %s (%s), want %s (%s)", tc.session, dir, owned, tc.dir, tc.owned)
		}
	}
}
