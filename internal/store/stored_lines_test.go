package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// storedPass reads a [DB.CheckedLines] export as the line pass does: line
// by line, each judged as its export's line (Export), its top-level id
// and parentId handed to Entry, and a line JSON.parse rejects handed to
// Reject, which ends the reading. It returns the lines judged and the row
// that ended them.
func storedPass(t *testing.T, r *ExportReader, l *StoredLines) ([]byte, error) {
	t.Helper()
	var out []byte
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimSuffix(line, []byte("\n"))
			export, perr := l.Export(nil, line)
			if perr != nil {
				l.Reject(n, perr)
				return out, l.Fault()
			}
			if storedAsIs(line) && !bytes.Equal(export, line) {
				line = export
			}
			id, parent := topMembers(t, line)
			l.Entry(n, id, parent)
			out = append(append(out, line...), '\n')
		}
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
	}
}

// topMembers are a line's top-level id and parentId, as the line pass's
// scan reads them.
func topMembers(t *testing.T, line []byte) (id, parent jsonl.Field) {
	var s jsonl.Scanner
	s.Reset(line)
	if s.Peek() != '{' {
		return id, parent
	}
	_, err := s.Object(func(key string) error {
		f, err := s.Value()
		switch key {
		case "id":
			id = f
		case "parentId":
			parent = f
		}
		return err
	})
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return id, parent
}

// TestCheckedLinesSameAsCheckedReader: read as a line pass reads them,
// every session of every committed store, intact and with its index rows
// and rows made faulty, gives the export's lines, the same row fault and
// the same index faults as [DB.CheckedReader]: an identity row differing
// from a row handed on as stored, a row JSON.parse rejects in the middle
// of a session, index rows naming a seq without an event.
func TestCheckedLinesSameAsCheckedReader(t *testing.T) {
	ctx := context.Background()
	damage := map[string]func(w *sql.DB, sessionID string) error{
		"intact": func(*sql.DB, string) error { return nil },
		"identity and rows": func(w *sql.DB, id string) error {
			for _, q := range []struct {
				query string
				args  []any
			}{
				{`UPDATE transcript_event_identities SET parent_id = 'elsewhere' WHERE session_id = ? AND seq = (SELECT min(seq) + 2 FROM transcript_event_identities WHERE session_id = ?)`, []any{id, id}},
				{`UPDATE transcript_event_identities SET event_id = 'other' WHERE session_id = ? AND seq = (SELECT min(seq) + 1 FROM transcript_event_identities WHERE session_id = ?)`, []any{id, id}},
				{`INSERT INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?, 'ghost', 9999, 'message', NULL, 1)`, []any{id}},
				{`UPDATE transcript_events SET event_json = '{"type":"message",', event_zstd = NULL WHERE session_id = ? AND seq = (SELECT max(seq) - 3 FROM transcript_events WHERE session_id = ?)`, []any{id, id}},
			} {
				if _, err := w.Exec(q.query, q.args...); err != nil {
					return err
				}
			}
			return nil
		},
	}
	for name := range committedStores(t) {
		for what, change := range damage {
			state := copyState(t, name)
			dbs, err := filepath.Glob(filepath.Join(state, "agents", "*", "agent", "openclaw-agent.sqlite"))
			if err != nil || len(dbs) == 0 {
				t.Fatalf("%s: no agent database (%v)", name, err)
			}
			for _, path := range dbs {
				w := writer(t, path)
				ids := sessionIDs(t, w)
				for _, id := range ids {
					if err := change(w, id); err != nil {
						t.Fatalf("%s %s: %v", name, what, err)
					}
				}
				w.Close()
				for _, id := range ids {
					sameCheckedLines(t, ctx, fmt.Sprintf("%s %s %s", name, what, id), path, id)
				}
			}
		}
	}
}

// sessionIDs are the sessions holding events in the database at path.
func sessionIDs(t *testing.T, w *sql.DB) []string {
	t.Helper()
	rows, err := w.Query(`SELECT DISTINCT session_id FROM transcript_events ORDER BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil || len(ids) == 0 {
		t.Fatalf("no sessions (%v)", err)
	}
	return ids
}

// sameCheckedLines compares the two readings of one session.
func sameCheckedLines(t *testing.T, ctx context.Context, what, path, sessionID string) {
	t.Helper()
	kinds := []IndexKind{IdentityMismatch, ActiveEventMissing}
	db := open(t, path)
	defer db.Close()
	want, err := db.CheckedReader(ctx, sessionID, kinds...)
	if err != nil {
		t.Fatal(err)
	}
	var wantText bytes.Buffer
	_, wantErr := want.WriteTo(&wantText)
	wantFaults, wantN, err := want.IndexFaults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want.Close()
	r, l, err := db.CheckedLines(ctx, sessionID, kinds...)
	if err != nil {
		t.Fatal(err)
	}
	text, gotErr := storedPass(t, r, l)
	faults, n, err := r.IndexFaults(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if !bytes.Equal(text, wantText.Bytes()) {
		t.Errorf("%s: the pass judged other lines than the export's (at byte %d)", what, firstDiff(text, wantText.Bytes()))
	}
	var re *RowError
	if errors.As(wantErr, &re) != (gotErr != nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Errorf("%s: row fault %v, want %v", what, gotErr, wantErr)
	}
	if n != wantN || fmt.Sprint(faults) != fmt.Sprint(wantFaults) {
		t.Errorf("%s: index faults (%d)\n%v\nwant (%d)\n%v", what, n, faults, wantN, wantFaults)
	}
}
