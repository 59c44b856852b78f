package cmd

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// check --session judges a row's export line, JSON.stringify(JSON.parse(row)),
// not the row as stored. These tests hold it to check on the exported file
// for rows in every form whose line differs from the row (the hazards a
// pass judging the stored text itself would have to recognise), stored
// plain and compressed. They also check each form alone, its stored text
// as a file against its export line: the forms that change a finding give
// other findings (a pass judging the stored text where it should judge
// the export fails on them), and the forms the line pass reads as
// JSON.parse does (repeated keys, key order, escapes) give the same ones,
// which is what would let such a pass leave them to the stored text.

// rowHazard is a row of agent:work:main stored in another form than its
// export's line: replace's old text of the row's export line made new.
type rowHazard struct {
	name     string
	line     int
	old, new string
	// judged is what checking the stored text as a file gives against
	// its export line.
	judged judged
	// plainOnly: a form a compressed row cannot hold (OpenClaw's reader
	// refuses a zstd row that is not valid UTF-8).
	plainOnly bool
}

// judged is what the line pass makes of a stored form against its export
// line.
type judged uint8

const (
	// unclaimed: the case makes no claim (the form may change findings
	// elsewhere, not on this row).
	unclaimed judged = iota
	// differs: other findings; a pass judging stored text must take the
	// export's line for this form.
	differs
	// same: the line pass reads the form as JSON.parse does (the last
	// of repeated keys, keys in any order, escapes decoded), wherever
	// it is; a pass judging stored text needs no export line for it.
	same
)

// rowHazards are the forms a stored row can take that its export writes
// otherwise, each on a row whose findings it could change.
var rowHazards = []rowHazard{
	// A number beyond float64 is written as null: the call then has
	// neither arguments nor input.
	{name: "1e999 written as null", line: 4, old: `"arguments":{"path":"logs/deploy-staging.log"}`, new: `"arguments":1e999`, judged: differs},
	// White space: the stored row is past the long-line size, its export
	// is not.
	{name: "white space past the long-line size", line: 3, old: `{"type":"message",`, new: `{"type":"message",` + strings.Repeat(" ", 70<<10), judged: differs},
	// Numbers JSON.stringify writes longer: the stored row is under the
	// long-line size, its export is past it.
	{name: "numbers whose export crosses the long-line size", line: 8, old: `"timestamp":1777709744112}`,
		new: `"timestamp":1777709744112,"pad":[` + strings.TrimSuffix(strings.Repeat("1e20,", 12000), ",") + `]}`, judged: differs},
	// Line breaks (and a carriage return before one) inside the row: the
	// stored text is several lines, the export one.
	{name: "CRLF line breaks", line: 2, old: `"type":"model_change",`, new: "\"type\":\"model_change\",\r\n\t", judged: differs},
	{name: "indented over lines", line: 13, old: `"message":{`, new: "\n  \"message\" :\n  {\n    ", judged: differs},
	// A carriage return ending the row.
	{name: "CR at the end", line: 10, old: `"modelId":"gpt-5.5"}`, new: "\"modelId\":\"gpt-5.5\"}\r"},
	// Repeated keys: JSON.parse keeps the last value, in the first one's
	// place.
	{name: "repeated signature, the last one blank", line: 6, old: `"thinkingSignature":"4YWg`, new: `"thinkingSignature":"","thinkingSignature":"","thinkingSignature":"4YWg`, judged: same},
	{name: "repeated message, the first one an error turn", line: 15, old: `"message":{`,
		new: `"message":{"role":"assistant","content":[],"stopReason":"error"},"message":{`, judged: same},
	{name: "repeated id, the first one another", line: 10, old: `"id":"9c4d6b05"`, new: `"id":"x","id":"9c4d6b05"`, judged: same},
	// Integer-like keys, which JavaScript enumerates first.
	{name: "integer-like keys out of order", line: 9, old: `"stopReason":"error"`, new: `"stopReason":"error","7":true,"0":[],"4294967295":1`, judged: same},
	// Escapes JSON.stringify does not write, in values the checks read
	// and in the ids the index checks compare.
	{name: "escaped stop reason and role", line: 9, old: `"role":"assistant"`, new: `"r\u006fle":"assist\u0061nt"`, judged: same},
	{name: "escaped blank text", line: 7, old: `"text":" "`, new: `"text":"\u0020"`, judged: same},
	{name: "escaped tool call id and parent", line: 14, old: `"parentId":"2d5c7e80","timestamp":"2026-05-02T08:16:25.112Z","message":{"role":"toolResult","toolCallId":"call_Pz6cW3nLr9sYq0Tf|`,
		new: `"parentId":"2d5c7e8\u0030","timestamp":"2026-05-02T08:16:25.112Z","message":{"role":"toolResult","toolCallId":"call_Pz6cW3nLr9sYq0Tf\u007c`, judged: same},
	{name: "escaped solidus and non-ASCII", line: 16, old: `"text":"The store keeps`, new: `"text":"\/\u00e9\u2028é The store keeps`},
	// Number forms JSON.stringify writes otherwise, -0 among them.
	{name: "number forms", line: 12, old: `"timestamp":"2026-05-02T08:16:23.112Z"`, new: `"timestamp":"2026-05-02T08:16:23.112Z","n":[-0,1.0,1E2,0.5e-6,1e21,123456789012345678901,-0.0]`},
	// Invalid UTF-8 in a plain row becomes U+FFFD.
	{name: "invalid UTF-8", line: 5, old: `"text":"08:02:11 Building`, new: "\"text\":\"08:02:11 \xff\xfe\xc3 Building", plainOnly: true},
	// Nesting deeper than the export's proof follows.
	{name: "deep nesting", line: 11, old: `"timestamp":"2026-05-02T08:16:21.112Z"`, new: `"timestamp":"2026-05-02T08:16:21.112Z","deep":` + strings.Repeat("[", 600) + strings.Repeat("]", 600)},
}

// TestCheckStoreHazardsSameAsFile: rows in each hazard's form, stored plain
// and compressed, give the findings of their export's lines.
func TestCheckStoreHazardsSameAsFile(t *testing.T) {
	const key = "agent:work:main"
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprintf("zstd=%v", compress), func(t *testing.T) {
			state := copyStore(t)
			path := agentDB(state, "work")
			canonical := bytes.SplitAfter(exportOf(t, state, key), []byte("\n"))
			stored := map[int][]byte{} // line: the row's new text
			for _, h := range rowHazards {
				if compress && h.plainOnly {
					continue
				}
				text := stored[h.line]
				if text == nil {
					text = bytes.TrimSuffix(canonical[h.line-1], []byte("\n"))
				}
				if !bytes.Contains(text, []byte(h.old)) {
					t.Fatalf("%s: line %d does not hold %s", h.name, h.line, h.old)
				}
				stored[h.line] = bytes.Replace(text, []byte(h.old), []byte(h.new), 1)
			}
			for line, text := range stored {
				setRow(t, path, workSession, line, text, compress)
			}
			export := exportOf(t, state, key)
			if store, shared := sameAsFile(t, state, key, export); len(store) > 0 || shared == 0 {
				t.Errorf("store findings %v, %d transcript findings compared", store, shared)
			}
			// Each form alone: its row in the export, stored as it is.
			for _, h := range rowHazards {
				if h.judged == unclaimed || compress {
					continue
				}
				text := bytes.TrimSuffix(canonical[h.line-1], []byte("\n"))
				text = bytes.Replace(text, []byte(h.old), []byte(h.new), 1)
				if got := storedTextDiffers(t, canonical, h.line, text); got != (h.judged == differs) {
					t.Errorf("%s: the stored text of line %d gives other findings than the export line: %v, want %v", h.name, h.line, got, h.judged == differs)
				}
			}
		})
	}
}

// storedTextDiffers reports whether the export lines, with line replaced
// by the stored text, check as a file with other transcript findings
// than with its export line.
func storedTextDiffers(t *testing.T, canonical [][]byte, line int, text []byte) bool {
	t.Helper()
	lines := slices.Clone(canonical)
	lines[line-1] = append(append([]byte{}, text...), '\n')
	export := slices.Clone(canonical)
	export[line-1] = exportLine(t, text)
	dir := t.TempDir()
	asStored, asExported := filepath.Join(dir, "stored.jsonl"), filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(asStored, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(asExported, bytes.Join(export, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--format", "json", "--severity-min", "info"}
	_, a := runOut(t, append(args, asStored)...)
	_, b := runOut(t, append(args, asExported)...)
	fa, _ := transcriptFindings(t, a)
	fb, _ := transcriptFindings(t, b)
	if len(fa) != len(fb) {
		return true
	}
	for i := range fa {
		if fa[i] != fb[i] {
			return true
		}
	}
	return false
}

// exportLine is the export's line of a row: JSON.stringify(JSON.parse(text))
// and "\n".
func exportLine(t *testing.T, text []byte) []byte {
	t.Helper()
	v, err := jsonl.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return append(jsonl.AppendJSON(nil, &v), '\n')
}

// setRow stores text as the row of the session's line (its seq-th row in
// seq order), plain or compressed.
func setRow(t *testing.T, path, session string, line int, text []byte, compress bool) {
	t.Helper()
	alter(t, path, func(w *sql.DB) error {
		var seq int64
		if err := w.QueryRow(`SELECT seq FROM transcript_events WHERE session_id = ? ORDER BY seq LIMIT 1 OFFSET ?`, session, line-1).Scan(&seq); err != nil {
			return err
		}
		if compress {
			// A compressed row needs a navigation_json (only the bounded
			// view reads it, not check without --provider): the session's
			// compressed row lends its own.
			return exec1(`UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = ?,
  navigation_json = coalesce(navigation_json, (SELECT navigation_json FROM transcript_events WHERE session_id = ? AND event_zstd IS NOT NULL LIMIT 1))
  WHERE session_id = ? AND seq = ?`, compressed(t, text), len(text), session, session, seq)(w)
		}
		return exec1(`UPDATE transcript_events SET event_json = ?, event_zstd = NULL, event_utf8_bytes = ? WHERE session_id = ? AND seq = ?`,
			string(text), len(text), session, seq)(w)
	})
}

// FuzzCheckStoreRow stores any text as one row of agent:work:main, plain
// or compressed, and holds check --session to check on what export writes
// for the session: the same transcript findings, and a row fault exactly
// when export stops at that row (the file then holds the lines before
// it). Seeds: the rows of rowHazards, and texts that are not JSON.
func FuzzCheckStoreRow(f *testing.F) {
	canonical := bytes.SplitAfter(exportOf(f, copyStore(f), "agent:work:main"), []byte("\n"))
	for _, h := range rowHazards {
		line := bytes.TrimSuffix(canonical[h.line-1], []byte("\n"))
		f.Add(bytes.Replace(line, []byte(h.old), []byte(h.new), 1), !h.plainOnly, uint8(h.line-1))
	}
	for _, s := range []string{"", " ", `{"type":"message",`, "{}\n{}", `[]`, `"x"`, "\xef\xbb\xbf{}", `{"type":"message","id":"d95e2b14","parentId":"7a0c5d92","message":{"role":"user","content":[{"type":"text","text":""}]}}`} {
		f.Add([]byte(s), false, uint8(6))
	}
	f.Fuzz(func(t *testing.T, text []byte, compress bool, at uint8) {
		const key = "agent:work:main"
		line := 1 + int(at)%16
		compress = compress && len(text) > 0 && len(text) <= 4<<20 // what the table allows
		state := copyStore(t)
		setRow(t, agentDB(state, "work"), workSession, line, text, compress)
		code, export := runOut(t, "export", "--session", key, state)
		if code != exitOK && code != exitFindings {
			t.Fatalf("export: exit %d", code)
		}
		store, _ := sameAsFile(t, state, key, append([]byte{}, export...)) // not nil when empty
		faults := 0
		for _, id := range store {
			if id != "store/identity-mismatch" && id != "store/active-event-missing" {
				faults++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[code == exitFindings]; faults != want {
			t.Errorf("export exit %d, store findings %v; want %d row fault", code, store, want)
		}
	})
}
