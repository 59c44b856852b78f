package cmd

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// The store tests work on copies of testdata/stores/multi, the store
// OpenClaw 2026.9.6 made (testdata/stores/README.md), made faulty by the
// test through a separate read-write connection, as a damaged disk or
// another program would leave it.

const (
	mainSession = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617" // agent:main:main, with zstd rows
	workSession = "019de7a2-5c31-7b08-a4d2-6e1f0b9c3a57" // agent:work:main
)

// copyStore copies the multi store's state folder into a temp folder, with
// old modification times, and returns the copy.
func copyStore(t testing.TB) string { return copyStoreNamed(t, "multi") }

// copyStoreNamed is copyStore of testdata/stores/<name>.
func copyStoreNamed(t testing.TB, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "state")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "stores", name, "state"))); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func agentDB(state, agent string) string {
	return filepath.Join(state, "agents", agent, "agent", "openclaw-agent.sqlite")
}

// alter runs statements on a copy through a read-write connection.
func alter(t *testing.T, path string, stmts ...func(*sql.DB) error) {
	t.Helper()
	// The path as a URI path: a temp folder's name may hold '#' or '?'
	// (a fuzz seed's does).
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "_pragma=busy_timeout(10000)"}
	w, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, st := range stmts {
		if err := st(w); err != nil {
			t.Fatal(err)
		}
	}
}

func exec1(query string, args ...any) func(*sql.DB) error {
	return func(w *sql.DB) error {
		res, err := w.Exec(query, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n < 1 {
			return errNoRow(query)
		}
		return nil
	}
}

func execAny(query string, args ...any) func(*sql.DB) error {
	return func(w *sql.DB) error {
		_, err := w.Exec(query, args...)
		return err
	}
}

type errNoRow string

func (e errNoRow) Error() string { return "no row changed: " + string(e) }

// lastZstdRow is the seq and line of the last compressed row of the main
// session, and its bytes.
func lastZstdRow(t *testing.T, path string) (seq int64, line int, z []byte) {
	t.Helper()
	alter(t, path, func(w *sql.DB) error {
		err := w.QueryRow(`SELECT seq, event_zstd FROM transcript_events WHERE session_id = ? AND event_zstd IS NOT NULL
  ORDER BY seq DESC LIMIT 1`, mainSession).Scan(&seq, &z)
		if err != nil {
			return err
		}
		return w.QueryRow(`SELECT count(*) FROM transcript_events WHERE session_id = ? AND seq <= ?`, mainSession, seq).Scan(&line)
	})
	return seq, line, z
}

func compressed(t *testing.T, b []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// jsonFinding is a finding of check --format json.
type jsonFinding struct {
	CheckID    string `json:"checkId"`
	Severity   string `json:"severity"`
	Message    string `json:"message"`
	Path       string `json:"path"`
	Line       int    `json:"line"`
	SessionKey string `json:"sessionKey"`
	SessionID  string `json:"sessionId"`
	Seq        *int64 `json:"seq"`
	FixHint    string `json:"fixHint"`
}

func runJSON(t *testing.T, args ...string) (int, []jsonFinding, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	var doc struct{ Findings []jsonFinding }
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %v\nstdout: %s\nstderr: %s", args, err, out.String(), errOut.String())
	}
	return code, doc.Findings, errOut.String()
}

// TestCheckStoreFaults: every store fault, made in a copy of a real store,
// is reported under its check id, at its line and seq, with its hint.
func TestCheckStoreFaults(t *testing.T) {
	type want struct {
		id, key string
		line    int
		seq     int64 // -1: none
	}
	for _, tc := range []struct {
		name  string
		agent string
		// damage changes the copy's database at path and returns what
		// check must find.
		damage func(t *testing.T, path string) want
	}{
		{"zstd checksum", "main", func(t *testing.T, path string) want {
			seq, line, z := lastZstdRow(t, path)
			z[len(z)-1] ^= 0xff
			alter(t, path, exec1(`UPDATE transcript_events SET event_zstd = ? WHERE session_id = ? AND seq = ?`, z, mainSession, seq))
			return want{"store/zstd-checksum", "agent:main:main", line, seq}
		}},
		{"zstd frame", "main", func(t *testing.T, path string) want {
			seq, line, z := lastZstdRow(t, path)
			z[0] ^= 0xff
			alter(t, path, exec1(`UPDATE transcript_events SET event_zstd = ? WHERE session_id = ? AND seq = ?`, z, mainSession, seq))
			return want{"store/zstd-undecodable", "agent:main:main", line, seq}
		}},
		{"zstd size", "main", func(t *testing.T, path string) want {
			seq, line, _ := lastZstdRow(t, path)
			alter(t, path, exec1(`UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes + 1 WHERE session_id = ? AND seq = ?`, mainSession, seq))
			return want{"store/zstd-size", "agent:main:main", line, seq}
		}},
		{"decoded text not UTF-8", "main", func(t *testing.T, path string) want {
			seq, line, _ := lastZstdRow(t, path)
			text := []byte(`{"type":"custom","id":"x","text":"caf` + "\xe9" + `"}`)
			alter(t, path, exec1(`UPDATE transcript_events SET event_zstd = ?, event_utf8_bytes = ? WHERE session_id = ? AND seq = ?`,
				compressed(t, text), len(text), mainSession, seq))
			return want{"store/invalid-utf8", "agent:main:main", line, seq}
		}},
		{"event_json not JSON", "work", func(t *testing.T, path string) want {
			alter(t, path, exec1(`UPDATE transcript_events SET event_json = '{"type":"message",' WHERE session_id = ? AND seq = 4`, workSession))
			return want{"store/invalid-json", "agent:work:main", 5, 4}
		}},
		{"identity parent differs", "work", func(t *testing.T, path string) want {
			alter(t, path, exec1(`UPDATE transcript_event_identities SET parent_id = 'elsewhere' WHERE session_id = ? AND seq = 3`, workSession))
			return want{"store/identity-mismatch", "agent:work:main", 4, 3}
		}},
		{"identity row without its event", "work", func(t *testing.T, path string) want {
			alter(t, path, exec1(`INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at)
  VALUES (?, 'ghost', 9999, 'message', NULL, 1)`, workSession))
			return want{"store/identity-mismatch", "agent:work:main", 0, 9999}
		}},
		{"active event without its event", "work", func(t *testing.T, path string) want {
			alter(t, path, exec1(`UPDATE session_transcript_active_events SET event_seq = 9998 WHERE session_id = ?
  AND active_position = (SELECT max(active_position) FROM session_transcript_active_events WHERE session_id = ?)`, workSession, workSession))
			return want{"store/active-event-missing", "agent:work:main", 0, 9998}
		}},
		{"key naming no session", "work", func(t *testing.T, path string) want {
			alter(t, path, exec1(`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at)
  VALUES ('agent:work:ghost', 'no-such-session', '{}', 1)`))
			return want{"store/session-missing", "agent:work:ghost", 0, -1}
		}},
		{"newer schema", "work", func(t *testing.T, path string) want {
			alter(t, path, exec1(`UPDATE schema_meta SET schema_version = 24 WHERE meta_key = 'primary'`))
			return want{"store/schema-newer", "", 0, -1}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := copyStore(t)
			path := agentDB(state, tc.agent)
			w := tc.damage(t, path)
			code, fs, stderr := runJSON(t, "check", "--format", "json", path)
			if code != exitFindings {
				t.Errorf("exit %d, want 1 (stderr %s)", code, stderr)
			}
			var found *jsonFinding
			for i, f := range fs {
				if f.CheckID == w.id {
					if found != nil {
						t.Errorf("%s reported twice: %+v", w.id, f)
					}
					found = &fs[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s finding in %+v", w.id, fs)
			}
			seq := int64(-1)
			if found.Seq != nil {
				seq = *found.Seq
			}
			if found.Path != path || found.SessionKey != w.key || found.Line != w.line || seq != w.seq || found.FixHint == "" {
				t.Errorf("finding %+v, want %s at %s line %d seq %d of %s", *found, w.id, w.key, w.line, w.seq, path)
			}
			if w.id == "store/active-event-missing" && !regexp.MustCompile(`^session_transcript_active_events position \d+ names seq 9998, which holds no event`).MatchString(found.Message) {
				t.Errorf("message %q does not name the row's position and seq", found.Message)
			}
			if w.id == "store/schema-newer" && len(fs) < 2 {
				t.Errorf("a newer schema must still be read: %+v", fs)
			}
		})
	}
}

// TestCheckStoreRowFaultStopsThere: a row that cannot be read ends the
// session there, the lines before it are checked, and text output names
// the place as DB#KEY:LINE.
func TestCheckStoreRowFaultStopsThere(t *testing.T) {
	state := copyStore(t)
	path := agentDB(state, "work")
	alter(t, path, exec1(`UPDATE transcript_events SET event_json = '{"type":"message",' WHERE session_id = ? AND seq = 8`, workSession))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"check", "--session", "agent:work:main", state}, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	if code != exitFindings {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	text := out.String()
	for _, want := range []string{
		path + "#agent:work:main:7: error transcript/blank-user-text ",
		path + "#agent:work:main:9: error store/invalid-json event is not valid JSON",
		"lines 1-8 were checked",
		"checked 1 store session with 34 checks: ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, ":14: ") {
		t.Errorf("lines after the faulty row were checked:\n%s", text)
	}
}

// TestCheckStoreSchemaOne: a database without transcript tables (schema
// version 1) is refused with OpenClaw's hint; alone, it is no readable
// input (exit 2).
func TestCheckStoreSchemaOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents", "main", "agent", "openclaw-agent.sqlite")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	alter(t, path,
		execAny(`CREATE TABLE schema_meta (meta_key TEXT NOT NULL PRIMARY KEY, role TEXT NOT NULL, schema_version INTEGER NOT NULL,
  agent_id TEXT, app_version TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`),
		exec1(`INSERT INTO schema_meta VALUES ('primary', 'agent', 1, 'main', '2026.7.1', 1, 1)`))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"check", path}, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	want := path + ": error store/schema-unsupported schema version 1 has no session_nodes table (OpenClaw 2026.9 refuses it too): run `openclaw doctor --fix` to migrate it\n"
	if code != exitUsage || !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "fix: run `openclaw doctor --fix` to migrate it") {
		t.Errorf("exit %d, output:\n%s\nwant it to start with %q", code, out.String(), want)
	}
	code, fs, _ := runJSON(t, "check", "--format", "json", path)
	if code != exitUsage || len(fs) != 1 || !strings.Contains(fs[0].Message, "schema version 1 has no session_nodes table") {
		t.Errorf("json: exit %d, findings %+v", code, fs)
	}
	// sessions lists it as not read, saying why.
	out.Reset()
	code = run(context.Background(), []string{"sessions", "--json", path}, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	if code != exitOK || !strings.Contains(out.String(), `"read": false`) || !strings.Contains(out.String(), "schema version 1 has no session_nodes table") {
		t.Errorf("sessions: exit %d\n%s", code, out.String())
	}
}

// TestStoreCommandsReadOnly: check (with --provider), sessions (with
// --check), export and fix
// leave every file of the state folder as it was: content (SHA-256) and
// modification time, and no file appears.
func TestStoreCommandsReadOnly(t *testing.T) {
	state := copyStore(t)
	views := copyStoreNamed(t, "views")
	for _, args := range [][]string{
		{"check", state},
		{"check", "--format", "json", agentDB(state, "main")},
		{"check", "--session", "agent:main:main", state},
		{"check", "--provider", "all", state},
		{"check", "--provider", "anthropic", "--format", "json", "--session", "agent:work:main", state},
		{"check", "--provider", "all", views},
		{"check", "--provider", "all", "--context-tokens", "1100", views},
		{"check", "--provider", "openai", "--full", "--format", "json", views},
		{"sessions", state},
		{"sessions", "--check", "--json", state},
		{"export", "--session", "agent:work:clean", state},
		{"fix", state},
		{"fix", "--dry-run", "--format", "json", agentDB(state, "work")},
	} {
		dir := state
		if args[len(args)-1] == views {
			dir = views
		}
		before := sessiontest.FileStates(t, dir)
		var out, errOut bytes.Buffer
		code := run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
		if code > exitFindings {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		sessiontest.SameFiles(t, before, sessiontest.FileStates(t, dir))
	}
}

// TestStoreReplayHints: the replay findings of a store session name the
// replay of that session (--session, the view check replayed, and the
// database), and a session OpenClaw's runtime refuses gets what an
// operator does for a store session.
func TestStoreReplayHints(t *testing.T) {
	views := copyStoreNamed(t, "views")
	db := agentDB(views, "main")
	for _, tc := range []struct {
		name  string
		flags []string // check's view flags, which the replay hints repeat
	}{
		{name: "default view"},
		{name: "context tokens", flags: []string{"--context-tokens", "1200"}},
		{name: "full", flags: []string{"--full"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check", "--provider", "anthropic", "--format", "json"}, tc.flags...)
			code, fs, stderr := runJSON(t, append(args, views)...)
			if code != exitFindings {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			view := ""
			for _, f := range tc.flags {
				view += " " + f
			}
			var loader, rewrite bool
			for _, f := range fs {
				switch {
				case f.CheckID == "replay/loader-error":
					loader = true
					for _, want := range []string{"replay --session agent:main:91-edge-headerless" + view + " " + db + "`", "openclaw doctor --fix", "export --session agent:main:91-edge-headerless -o FILE " + db} {
						if !strings.Contains(f.FixHint, want) {
							t.Errorf("loader-error hint %q lacks %q", f.FixHint, want)
						}
					}
				case strings.HasPrefix(f.CheckID, "replay/"):
					rewrite = true
					want := "`openclaw-doctor replay --session " + f.SessionKey + view + " --provider anthropic "
					if !strings.Contains(f.FixHint, want) || !strings.Contains(f.FixHint, " --diff "+db+"`") {
						t.Errorf("%s hint %q does not name the session's replay %q", f.CheckID, f.FixHint, want)
					}
				case f.SessionKey != "" && strings.Contains(f.FixHint, "replay "):
					t.Errorf("%s hint %q names a replay", f.CheckID, f.FixHint)
				}
			}
			if !loader || !rewrite {
				t.Errorf("want a loader-error and a rewrite finding, got %+v", fs)
			}
		})
	}
}

// TestSessionsListsWindowsAndColdStorage: a session window its key no
// longer points to is listed with current false and checked under its
// session id; one in cold storage is listed, not read.
func TestSessionsListsWindowsAndColdStorage(t *testing.T) {
	state := copyStore(t)
	path := agentDB(state, "work")
	alter(t, path,
		exec1(`INSERT INTO session_windows (session_id, session_key, created_at, updated_at, transcript_updated_at)
  VALUES ('old-window', 'agent:work:main', 1, 1, 1767225500000)`),
		exec1(`INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes)
  VALUES ('old-window', 0, '{"type":"session","version":3,"id":"old-window","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}', 1, 97)`),
		exec1(`INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes)
  VALUES ('old-window', 1, '{"type":"message","id":"a","parentId":"gone","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1}}', 1, 10)`),
		exec1(`INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at)
  VALUES ('old-window', 'old-window', 0, 'session', NULL, 1), ('old-window', 'a', 1, 'message', 'gone', 1)`),
		exec1(`INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES ('cold-window', 'agent:work:main', 1, 1)`),
		exec1(`INSERT INTO session_transcript_cold_archives (session_id, generation, archive_name, archive_sha256, event_count,
  raw_bytes, archive_bytes, last_seq, archived_at, storage) VALUES ('cold-window', 'g1', 'cold-window.jsonl.zst', ?, 42, 4200, 900, 41, 1, 'file')`,
			strings.Repeat("0", 64)))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"sessions", "--json", path}, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	byID := map[string]map[string]any{}
	for _, s := range doc.Sessions {
		byID[s["sessionId"].(string)] = s
	}
	if s := byID["old-window"]; s == nil || s["current"] != false || s["events"] != 2.0 || s["sessionKey"] != "agent:work:main" || s["updatedAt"] != 1767225500000.0 {
		t.Errorf("old window: %v", s)
	}
	if s := byID["cold-window"]; s == nil || s["cold"] != true || s["read"] != false || s["events"] != 42.0 || s["bytes"] != 4200.0 {
		t.Errorf("cold window: %v", s)
	}
	if s := byID[workSession]; s == nil || s["current"] != true {
		t.Errorf("current window: %v", s)
	}

	code, fs, stderr := runJSON(t, "check", "--format", "json", path)
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var old []jsonFinding
	for _, f := range fs {
		if f.SessionID == "old-window" {
			old = append(old, f)
		}
		if f.SessionID == "cold-window" {
			t.Errorf("a cold session was read: %+v", f)
		}
	}
	if len(old) != 1 || old[0].CheckID != "transcript/missing-parent" || old[0].Line != 2 || old[0].SessionKey != "agent:work:main" {
		t.Errorf("old window findings: %+v", old)
	}
	var text bytes.Buffer
	run(context.Background(), []string{"check", "--session", "old-window", path}, streams{In: strings.NewReader(""), Out: &text, Err: &errOut}, func(string) string { return "" })
	if !strings.Contains(text.String(), path+"#old-window:2: warning transcript/missing-parent ") {
		t.Errorf("text location of a replaced window:\n%s", text.String())
	}
}
