package cmd

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// check --session runs the line pass check runs on a file over the
// session's export, so its transcript findings are the ones check finds
// on the exported file: the same checks, lines, messages and entries, in
// the same order. These tests hold the two to that on every session of a
// real store, and on copies whose rows the store holds in forms OpenClaw's
// export writes again (white space and line breaks, escapes, number forms,
// repeated and integer-like keys, in plain and zstd rows), or cannot read
// (the session then ends at that row in both).

// fileFinding is what a transcript finding says, apart from where its
// file is and the hint (a store session's fix hint says to export first).
type fileFinding struct {
	CheckID  string `json:"checkId"`
	Severity string `json:"severity"`
	Line     int    `json:"line"`
	EntryID  string `json:"entryId"`
	Message  string `json:"message"`
}

// runOut runs the command and returns its exit status and standard output.
func runOut(t testing.TB, args ...string) (int, []byte) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, func(string) string { return "" })
	if code > exitFindings {
		t.Logf("%v: exit %d: %s", args, code, errOut.String())
	}
	return code, out.Bytes()
}

// transcriptFindings are the findings of a check --format json output that
// are not the store's own, and the store's.
func transcriptFindings(t *testing.T, out []byte) (transcript []fileFinding, store []string) {
	t.Helper()
	var doc struct{ Findings []fileFinding }
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range doc.Findings {
		if strings.HasPrefix(f.CheckID, "store/") {
			store = append(store, f.CheckID)
			continue
		}
		transcript = append(transcript, f)
	}
	return transcript, store
}

// exportOf is the export of session key of state.
func exportOf(t testing.TB, state, key string) []byte {
	t.Helper()
	code, export := runOut(t, "export", "--session", key, state)
	if code != exitOK {
		t.Fatalf("export --session %s: exit %d", key, code)
	}
	return export
}

// sameAsFile checks session key of state on the store and, as a file, on
// export (nil: the session's export), and compares their transcript
// findings; it returns the store's own findings and how many transcript
// findings the two share.
func sameAsFile(t *testing.T, state, key string, export []byte) (store []string, shared int) {
	t.Helper()
	if export == nil {
		export = exportOf(t, state, key)
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, export, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--format", "json", "--severity-min", "info"}
	_, onStore := runOut(t, append(args, "--session", key, state)...)
	_, onFile := runOut(t, append(args, file)...)
	got, store := transcriptFindings(t, onStore)
	want, _ := transcriptFindings(t, onFile)
	if len(got) != len(want) {
		t.Errorf("%s: %d transcript findings on the store, %d on the exported file:\nstore: %+v\nfile:  %+v", key, len(got), len(want), got, want)
		return store, 0
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: finding %d on the store\n  %+v\non the exported file\n  %+v", key, i, got[i], want[i])
		}
	}
	return store, len(got)
}

// storeKeys are the session keys of the multi store, by agent.
var storeKeys = []struct{ agent, key string }{
	{"main", "agent:main:38-fix-reserialize-escapes-dupkeys"},
	{"main", "agent:main:62-replay-branches-leaf-row"},
	{"main", "agent:main:63-replay-compaction-and-custom-message"},
	{"main", "agent:main:86-edge-lone-surrogate-escape"},
	{"main", "agent:main:87-edge-duplicate-keys"},
	{"main", "agent:main:88-edge-huge-number-and-precision"},
	{"main", "agent:main:main"},
	{"work", "agent:work:clean"},
	{"work", "agent:work:main"},
}

// TestCheckStoreSameAsFile: every session of the store as OpenClaw wrote
// it.
func TestCheckStoreSameAsFile(t *testing.T) {
	everySameAsFile(t, copyStore(t), "an intact store", nil)
}

// TestCheckStoreNotCanonicalSameAsFile: rows held in forms the export
// writes again (the same events) export as before and give the findings
// of their export's lines.
func TestCheckStoreNotCanonicalSameAsFile(t *testing.T) {
	state := copyStore(t)
	before := map[string][]byte{}
	for _, s := range storeKeys {
		before[s.key] = exportOf(t, state, s.key)
	}
	changed := 0
	for _, agent := range []string{"main", "work"} {
		alter(t, agentDB(state, agent), func(w *sql.DB) error {
			n, err := rewriteRows(w)
			changed += n
			return err
		})
	}
	if changed < 100 {
		t.Fatalf("only %d rows rewritten", changed)
	}
	everySameAsFile(t, state, "rows rewritten with the same events, ids and parents", func(key string) {
		if !bytes.Equal(exportOf(t, state, key), before[key]) {
			t.Errorf("%s: the export changed with the rows' form", key)
		}
	})
}

// everySameAsFile runs sameAsFile on every session of state (each first,
// when not nil), wants no store finding there (what says what state is)
// and some transcript findings compared in all.
func everySameAsFile(t *testing.T, state, what string, each func(key string)) {
	t.Helper()
	shared := 0
	for _, s := range storeKeys {
		if each != nil {
			each(s.key)
		}
		store, n := sameAsFile(t, state, s.key, nil)
		if len(store) > 0 {
			t.Errorf("%s: store findings %v on %s", s.key, store, what)
		}
		shared += n
	}
	if shared == 0 {
		t.Error("no transcript finding to compare")
	}
}

// TestCheckStoreDamagedSameAsFile: a row that cannot be read ends the
// session there, in a plain row and in a zstd row: the lines before it
// give the findings they give as a file.
func TestCheckStoreDamagedSameAsFile(t *testing.T) {
	for _, tc := range []struct {
		name, agent, key, want string
		// damage damages a row of the copy's database at path and
		// returns its line.
		damage func(t *testing.T, path string) int
	}{
		{"plain row not JSON", "work", "agent:work:main", "store/invalid-json", func(t *testing.T, path string) int {
			alter(t, path, exec1(`UPDATE transcript_events SET event_json = '{"type":"message",' WHERE session_id = ? AND seq = 8`, workSession))
			return 9
		}},
		{"zstd row cut short", "main", "agent:main:main", "store/zstd-undecodable", func(t *testing.T, path string) int {
			seq, line, z := lastZstdRow(t, path)
			alter(t, path, exec1(`UPDATE transcript_events SET event_zstd = ? WHERE session_id = ? AND seq = ?`, z[:len(z)/2], mainSession, seq))
			return line
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := copyStore(t)
			export := exportOf(t, state, tc.key)
			line := tc.damage(t, agentDB(state, tc.agent))
			// The file: the lines before the damaged row.
			cut := 0
			for range line - 1 {
				cut += bytes.IndexByte(export[cut:], '\n') + 1
			}
			if store, _ := sameAsFile(t, state, tc.key, export[:cut:cut]); len(store) != 1 || store[0] != tc.want {
				t.Errorf("store findings %v, want [%s]", store, tc.want)
			}
			// export refuses the session and writes those lines, to
			// standard output and to -o FILE, as check's hint says.
			if code, out := runOut(t, "export", "--session", tc.key, state); code != exitFindings || !bytes.Equal(out, export[:cut]) {
				t.Errorf("export: exit %d, %d bytes; want exit %d, the %d bytes before line %d", code, len(out), exitFindings, cut, line)
			}
			file := filepath.Join(t.TempDir(), "export.jsonl")
			code, _ := runOut(t, "export", "--session", tc.key, "-o", file, state)
			if got, err := os.ReadFile(file); code != exitFindings || err != nil || !bytes.Equal(got, export[:cut]) {
				t.Errorf("export -o: exit %d, %d bytes (%v); want exit %d, the %d bytes before line %d", code, len(got), err, exitFindings, cut, line)
			}
		})
	}
}

// rewriteRows writes every row of a database again in a form that is
// not JSON.stringify's but holds the same event, taking turns: indented
// over several lines, the first character of its id escaped, or its first
// member written twice (JSON.parse keeps the second), the first time with
// a number JSON.stringify writes otherwise. zstd rows are decoded and
// compressed again, with their new size. It returns how many rows it
// changed.
func rewriteRows(w *sql.DB) (int, error) {
	type row struct {
		session string
		seq     int64
		text    []byte
		zstd    bool
	}
	rs, err := w.Query(`SELECT session_id, seq, event_json, event_zstd FROM transcript_events ORDER BY session_id, seq`)
	if err != nil {
		return 0, err
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return 0, err
	}
	defer dec.Close()
	var rows []row
	for rs.Next() {
		var r row
		var text sql.NullString
		var z []byte
		if err := rs.Scan(&r.session, &r.seq, &text, &z); err != nil {
			rs.Close()
			return 0, err
		}
		r.text = []byte(text.String)
		if !text.Valid {
			if r.text, err = dec.DecodeAll(z, nil); err != nil {
				rs.Close()
				return 0, err
			}
			r.zstd = true
		}
		rows = append(rows, r)
	}
	if err := rs.Close(); err != nil {
		return 0, err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		return 0, err
	}
	defer enc.Close()
	tx, err := w.Begin() // one commit, not one a row
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	n := 0
	for i, r := range rows {
		text, ok := notCanonical(r.text, i%3)
		if !ok {
			continue
		}
		if r.zstd {
			_, err = tx.Exec(`UPDATE transcript_events SET event_zstd = ?, event_utf8_bytes = ? WHERE session_id = ? AND seq = ?`,
				enc.EncodeAll(text, nil), len(text), r.session, r.seq)
		} else {
			_, err = tx.Exec(`UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?`, string(text), r.session, r.seq)
		}
		if err != nil {
			return n, fmt.Errorf("seq %d: %w", r.seq, err)
		}
		n++
	}
	return n, tx.Commit()
}

// notCanonical is text written otherwise (way 0, 1 or 2, see rewriteRows);
// ok false when that way does not apply to it.
func notCanonical(text []byte, way int) ([]byte, bool) {
	if len(text) < 2 || text[0] != '{' {
		return nil, false
	}
	switch way {
	case 0:
		var out bytes.Buffer
		if json.Indent(&out, text, "", "  ") != nil {
			return nil, false
		}
		return out.Bytes(), true
	case 1:
		const key = `"id":"`
		i := bytes.Index(text, []byte(key))
		if i < 0 || i+len(key) >= len(text) {
			return nil, false
		}
		c := text[i+len(key)]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return nil, false
		}
		at := i + len(key)
		return append(append(append([]byte{}, text[:at]...), fmt.Sprintf(`\u%04X`, c)...), text[at+1:]...), true
	}
	end := bytes.IndexByte(text[min(2, len(text)):], '"') + 2
	if text[1] != '"' || end < 3 || bytes.IndexByte(text[:end], '\\') >= 0 {
		return nil, false
	}
	first := text[1 : end+1] // the first member's key, quoted
	return append([]byte("{"+string(first)+":-0.10e1,"), text[1:]...), true
}
