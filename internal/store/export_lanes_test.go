package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// setLanes sets how exports are read (lanesOn, lanesOff) and how many
// index leaves a lane's run holds; restore sets them back.
func setLanes(mode, runLeaves int) (restore func()) {
	oldMode, oldLeaves := exportLanes, laneRunLeaves
	exportLanes, laneRunLeaves = mode, runLeaves
	return func() { exportLanes, laneRunLeaves = oldMode, oldLeaves }
}

// setFlight sets the export's flight budget; restore sets it back.
func setFlight(budget int) (restore func()) {
	old := exportFlight
	exportFlight = budget
	return func() { exportFlight = old }
}

// multiLeafStore is a copy of the committed "multi" store whose session
// session-1 has 3,000 more events, over many index and table leaves:
// short and long rows (some with overflow pages), rows that are not
// canonical, compressed rows, escaped ids. It returns the agent database
// and the session id.
func multiLeafStore(t *testing.T) (string, string) {
	t.Helper()
	state := copyState(t, "multi")
	path := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	w := unchecked(t, path)
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	const id = "session-1"
	for i := 0; i < 3000; i++ {
		seq := int64(10 + 2*i) // gaps between the seqs
		text := fmt.Sprintf(`{"type":"custom","id":"g-%d","parentId":"g-%d","n":%d,"text":%q}`, i, i-1, i, strings.Repeat("ab", i%300))
		switch {
		case i%211 == 7:
			text = fmt.Sprintf(`{"type":"custom","id":"g-%d","text":%q}`, i, strings.Repeat("long ", 1500+i))
		case i%13 == 3:
			text = fmt.Sprintf(`{"type": "custom", "id": "g-%d", "n": 1.0}`, i)
		case i%29 == 4:
			text = fmt.Sprintf(`{"type":"custom","id":"\u0067-%d","text":"caf\u00e9"}`, i)
		}
		if i%17 == 8 {
			_, err = tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_zstd, event_utf8_bytes, created_at) VALUES (?, ?, ?, ?, 0)`, id, seq, enc.EncodeAll([]byte(text), nil), len(text))
		} else {
			_, err = tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, event_utf8_bytes, created_at) VALUES (?, ?, ?, ?, 0)`, id, seq, text, len(text))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return path, id
}

// unchecked is a writer that does not check the table's CHECK
// constraints: compressed rows are written without the navigation report
// OpenClaw stores beside them (the export does not read it), and rows of
// shapes OpenClaw does not write can be made.
func unchecked(t *testing.T, path string) *sql.DB {
	t.Helper()
	w := writer(t, path)
	if _, err := w.Exec(`PRAGMA ignore_check_constraints = ON`); err != nil {
		t.Fatal(err)
	}
	return w
}

// exportWith exports sessionID of the database at path with the lanes
// set so: the text, the line count and the error; and the runs the lanes
// went through (0 on one reading goroutine, or when they handed the rest
// to the driver).
func exportWith(t *testing.T, path, sessionID string, mode, runLeaves int) (string, int) {
	out, runs, _ := exportHanded(t, path, sessionID, mode, runLeaves)
	return out, runs
}

// exportHanded is exportWith that also reports whether lanes handed the
// rest to the driver.
func exportHanded(t *testing.T, path, sessionID string, mode, runLeaves int) (string, int, bool) {
	t.Helper()
	defer setLanes(mode, runLeaves)()
	ctx := context.Background()
	db := open(t, path)
	defer db.Close()
	r, err := db.Reader(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = r.WriteTo(&out)
	runs := 0
	if r.lanes != nil {
		runs = r.lanes.run
	}
	handed := mode == lanesOn && r.pipe != nil
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	fmt.Fprintf(&out, "%d lines, error %v\n", r.Lines(), err)
	return out.String(), runs, handed
}

// TestLanesMatchOneLane: two lanes export every session of every
// committed store, and of one whose session spans many index leaves, as
// one reading goroutine does, for runs of one, two, three and sixteen
// leaves (the one-lane export is itself held to the driver's by
// TestFastPathMatchesDriver, which reads with lanes too); the long
// session is split into many runs.
func TestLanesMatchOneLane(t *testing.T) {
	long, longID := multiLeafStore(t)
	split := false
	for _, path := range append(committedDatabases(t), long) {
		db := open(t, path)
		ws, err := db.Windows(context.Background())
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			want, _ := exportWith(t, path, w.SessionID, lanesOff, 1)
			for _, leaves := range []int{1, 2, 3, 16} {
				got, runs := exportWith(t, path, w.SessionID, lanesOn, leaves)
				if got != want {
					t.Errorf("%s %s, runs of %d leaves: two lanes give\n%.300s\none gives\n%.300s", path, w.SessionID, leaves, tail(got), tail(want))
				}
				if leaves == 1 {
					// Every batch meets the flight's budget: each lane
					// waits until the writer has taken what it handed on.
					for _, mode := range []int{lanesOn, lanesOff} {
						restore := setFlight(1)
						got, _ := exportWith(t, path, w.SessionID, mode, leaves)
						restore()
						if got != want {
							t.Errorf("%s %s, lanes %d, a flight of 1 byte: the export differs:\n%.300s", path, w.SessionID, mode, tail(got))
						}
					}
				}
				if w.SessionID == longID && leaves == 1 && runs >= 10 {
					split = true
				}

			}
		}
	}
	if !split {
		t.Error("the long session was not split into runs")
	}
	if got, _ := readAll(t, long, true); got != func() string { s, _ := readAll(t, long, false); return s }() {
		t.Errorf("%s: the fast path and the driver differ", long)
	}
}

func tail(s string) string { return s[max(0, len(s)-300):] }

// TestLanesHandOver: a row the fast path leaves to the driver (an empty
// event_zstd beside its event_json), in the middle of a long session,
// ends the lanes there; the driver reads the rest, and the export is the
// one a single reading goroutine and the driver give. A compressed row
// that fails its checksum stops the export at its line, the lines before
// it written, as with one reading goroutine.
func TestLanesHandOver(t *testing.T) {
	path, id := multiLeafStore(t)
	w := unchecked(t, path)
	update(t, w, `event_zstd = X''`, id, 10+2*1500)
	w.Close()
	want, _ := exportWith(t, path, id, lanesOff, 1)
	if !strings.HasSuffix(want, "3004 lines, error <nil>\n") {
		t.Fatalf("one reading goroutine: %s", tail(want))
	}
	for _, leaves := range []int{1, 3} {
		got, _, handed := exportHanded(t, path, id, lanesOn, leaves)
		if got != want || !handed {
			t.Errorf("runs of %d leaves: two lanes (handed over: %v) give\n%s\none gives\n%s", leaves, handed, tail(got), tail(want))
		}
	}

	// A compressed row whose checksum fails, past the handed-over one.
	const bad = 10 + 2*2099 // i = 2099: i%17 == 8
	db := open(t, path)
	var z []byte
	err := db.tx.QueryRow(`SELECT event_zstd FROM transcript_events WHERE session_id = ? AND seq = ?`, id, bad).Scan(&z)
	db.Close()
	if err != nil || len(z) == 0 {
		t.Fatalf("seq %d: %v, %d bytes of zstd", bad, err, len(z))
	}
	z[len(z)-1] ^= 0xff
	w = unchecked(t, path)
	update(t, w, `event_zstd = ?`, id, bad, z)
	w.Close()
	want, _ = exportWith(t, path, id, lanesOff, 1)
	if !strings.Contains(want, fmt.Sprintf("seq %d (line 2104): %s", bad, FaultChecksum)) {
		t.Fatalf("one reading goroutine: %s", tail(want))
	}
	for _, leaves := range []int{1, 3} {
		if got, _ := exportWith(t, path, id, lanesOn, leaves); got != want {
			t.Errorf("runs of %d leaves: two lanes give\n%s\none gives\n%s", leaves, tail(got), tail(want))
		}
	}
	// Without the handed-over row the lanes meet the fault themselves.
	w = unchecked(t, path)
	update(t, w, `event_zstd = NULL`, id, 10+2*1500)
	w.Close()
	want, _ = exportWith(t, path, id, lanesOff, 1)
	if got, runs := exportWith(t, path, id, lanesOn, 1); got != want || runs < 10 {
		t.Errorf("two lanes (%d runs) give\n%s\none gives\n%s", runs, tail(got), tail(want))
	}
}

// TestLanesCancel: cancelling an export read by two lanes, right away or
// once both lanes have batches waiting, ends it with the context's error
// and, once closed, leaves no goroutine behind.
func TestLanesCancel(t *testing.T) {
	path, id := multiLeafStore(t)
	defer setLanes(lanesOn, 1)()
	db := open(t, path)
	defer db.Close()
	before := runtime.NumGoroutine()
	for _, wait := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		r, err := db.Reader(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Read(make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		if wait {
			waitFor(t, "both lanes to have batches waiting", func() bool {
				return len(r.lanes.pipes[0].full) > 0 && len(r.lanes.pipes[1].full) > 0
			})
		}
		cancel()
		_, err = io.Copy(io.Discard, r)
		if err != context.Canceled {
			t.Errorf("wait %v: the export ended with %v", wait, err)
		}
		r.Close()
	}
	waitFor(t, "the lanes to end", func() bool { return runtime.NumGoroutine() <= before })
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			buf := make([]byte, 1<<20)
			t.Fatalf("waited 30 s for %s; goroutines:\n%s", what, buf[:runtime.Stack(buf, true)])
		}
	}
}

// TestExportLineRest: read a few bytes at a time, an export tells after
// each read how much of the line it stopped in is left, on every session
// of the committed stores and of one with rows of overflow pages.
func TestExportLineRest(t *testing.T) {
	long, _ := multiLeafStore(t)
	for _, path := range append(committedDatabases(t), long) {
		db := open(t, path)
		ws, err := db.Windows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			r, err := db.Reader(context.Background(), w.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			buf := make([]byte, 777)
			for {
				n, err := r.Read(buf)
				got = append(got, buf[:n]...)
				if err != nil {
					break
				}
				rest, ok := r.LineRest()
				if !strings.HasSuffix(string(got), "\n") {
					// The rest is read next: check it against the text read then.
					peek := make([]byte, rest)
					k, _ := io.ReadFull(r, peek)
					got = append(got, peek[:k]...)
					if !ok || k != rest || !bytes.HasSuffix(peek[:k], []byte("\n")) || bytes.IndexByte(peek[:k], '\n') != k-1 {
						t.Fatalf("%s %s: after %d bytes LineRest gave %d, %v; the next %d bytes read: %.80q", path, w.SessionID, len(got)-k, rest, ok, k, peek[:k])
					}
				}
			}
			lines := r.Lines()
			r.Close()
			want, _ := exportWith(t, path, w.SessionID, lanesOff, 1)
			if got := fmt.Sprintf("%s%d lines, error <nil>\n", got, lines); got != want {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Errorf("%s %s: the export read with LineRest differs at byte %d of %d (want %d): %.100q, want %.100q", path, w.SessionID, i, len(got), len(want), got[max(0, i-20):], want[max(0, i-20):])
			}
		}
		db.Close()
	}
}
