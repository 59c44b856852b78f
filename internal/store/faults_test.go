package store

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A row made faulty in a copy of a real store stops the export with a
// *RowError naming the database, the session, the seq and the line.
func TestRowFaults(t *testing.T) {
	compress := func(t *testing.T, b []byte) []byte {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		return enc.EncodeAll(b, nil)
	}
	for _, tc := range []struct {
		name   string
		fault  Fault
		zstd   bool // the faulty row is a compressed one
		change func(t *testing.T, w *sql.DB, sessionID string, seq int64, z []byte)
	}{
		{"checksum bytes changed", FaultChecksum, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			z[len(z)-1] ^= 0xff
			update(t, w, `event_zstd = ?`, id, seq, z)
		}},
		{"frame magic changed", FaultZstd, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			z[0] ^= 0xff
			update(t, w, `event_zstd = ?`, id, seq, z)
		}},
		{"truncated frame", FaultZstd, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			update(t, w, `event_zstd = ?`, id, seq, z[:len(z)/2])
		}},
		{"event_utf8_bytes one too large", FaultSize, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			update(t, w, `event_utf8_bytes = event_utf8_bytes + 1`, id, seq)
		}},
		{"event_utf8_bytes one too small", FaultSize, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			update(t, w, `event_utf8_bytes = event_utf8_bytes - 1`, id, seq)
		}},
		{"decoded text not UTF-8", FaultUTF8, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			text := []byte(`{"type":"custom","id":"x","text":"caf` + "\xe9" + `"}`)
			update(t, w, `event_zstd = ?, event_utf8_bytes = ?`, id, seq, compress(t, text), len(text))
		}},
		{"decoded surrogate half", FaultUTF8, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			text := []byte(`{"type":"custom","text":"` + "\xed\xa0\x80" + `"}`)
			update(t, w, `event_zstd = ?, event_utf8_bytes = ?`, id, seq, compress(t, text), len(text))
		}},
		{"decoded text not JSON", FaultJSON, true, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			text := []byte(`{"type":"custom",`)
			update(t, w, `event_zstd = ?, event_utf8_bytes = ?`, id, seq, compress(t, text), len(text))
		}},
		{"event_json not JSON", FaultJSON, false, func(t *testing.T, w *sql.DB, id string, seq int64, z []byte) {
			update(t, w, `event_json = '{"type":"message",'`, id, seq)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := copyState(t, "multi")
			dbs, _ := AgentDatabases(state)
			path := dbs[1].Path
			id, seq, line, z := pickRow(t, path, tc.zstd)
			w := writer(t, path)
			tc.change(t, w, id, seq, z)
			w.Close()

			db := open(t, path)
			defer db.Close()
			lines, _, err := db.Export(context.Background(), id, io.Discard)
			var re *RowError
			if !errors.As(err, &re) {
				t.Fatalf("Export = %v, want a *RowError", err)
			}
			if re.Fault != tc.fault || re.Seq != seq || re.Line != line || re.SessionID != id || re.Path != path {
				t.Fatalf("RowError = %+v (%v), want fault %q at seq %d line %d of session %s in %s", re, re, tc.fault, seq, line, id, path)
			}
			if lines != int64(line-1) {
				t.Errorf("%d lines exported before the fault at line %d", lines, line)
			}
		})
	}
}

// pickRow finds the last row of a session of the database that is stored
// compressed (or plain): its session, seq, line and zstd bytes.
func pickRow(t *testing.T, path string, compressed bool) (id string, seq int64, line int, z []byte) {
	t.Helper()
	db := open(t, path)
	defer db.Close()
	windows, err := db.Windows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range windows {
		rows, err := db.Events(context.Background(), w.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			if ev := rows.Event(); ev.Compressed == compressed {
				id, seq, line = w.SessionID, ev.Seq, ev.Line
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if id != "" {
			break
		}
	}
	if id == "" {
		t.Fatalf("no row with compressed=%v in %s", compressed, path)
	}
	if compressed {
		if err := db.tx.QueryRow(`SELECT event_zstd FROM transcript_events WHERE session_id = ? AND seq = ?`, id, seq).Scan(&z); err != nil {
			t.Fatal(err)
		}
	}
	return id, seq, line, z
}

func update(t *testing.T, w *sql.DB, set, id string, seq int64, args ...any) {
	t.Helper()
	res, err := w.Exec(`UPDATE transcript_events SET `+set+` WHERE session_id = ? AND seq = ?`, append(args, id, seq)...)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%d rows updated", n)
	}
}
