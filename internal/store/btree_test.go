package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readAll counts and exports every session of the database at path with
// the index checks, and without them on one reading goroutine and on two
// lanes, through the fast path or (fast false) through the driver alone,
// and returns everything a caller sees: the counts, the texts, the seqs
// of a few lines, the faults and errors.
func readAll(t *testing.T, path string, fast bool) (string, bool) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		return "open: " + err.Error(), false
	}
	defer db.Close()
	took := db.fast != nil
	if !fast {
		db.fast = nil
	}
	var out bytes.Buffer
	ws, err := db.Windows(ctx)
	if err != nil {
		return "windows: " + err.Error(), took
	}
	for _, w := range ws {
		fmt.Fprintf(&out, "session %s: %d events, seq <= %d, %d bytes\n", w.SessionID, w.Events, w.MaxSeq, w.Bytes)
		r, err := db.CheckedReader(ctx, w.SessionID, IdentityMismatch, ActiveEventMissing)
		if err != nil {
			out.WriteString("reader: " + err.Error() + "\n")
			continue
		}
		if _, err := r.WriteTo(&out); err != nil {
			out.WriteString("export: " + err.Error() + "\n")
		}
		faults, n, err := r.IndexFaults(ctx)
		for _, f := range faults {
			out.WriteString(f.Kind.String() + " " + f.Detail + "\n")
		}
		out.WriteString("faults: " + itoa(n > 0) + "\n")
		if err != nil {
			out.WriteString("faults: " + err.Error() + "\n")
		}
		r.Close()
		// The plain export, read by one goroutine and by two lanes (a
		// run per index leaf, so that short sessions are split too).
		for _, mode := range []int{lanesOff, lanesOn} {
			restore := setLanes(mode, 1)
			lines, _, err := db.Export(ctx, w.SessionID, &out)
			restore()
			fmt.Fprintf(&out, "%d lines\n", lines)
			if err != nil {
				out.WriteString("export: " + err.Error() + "\n")
			}
		}
		last := int(w.Events)
		seqs, err := db.Seqs(ctx, w.SessionID, []int{last + 1, 1, last, (last + 1) / 2, 1})
		fmt.Fprintf(&out, "seqs %v %v\n", seqs, err)
	}
	return out.String(), took
}

// committedDatabases are the agent databases of the committed stores.
func committedDatabases(t *testing.T) []string {
	t.Helper()
	var dbs []string
	for name := range committedStores(t) {
		agents, err := AgentDatabases(filepath.Join(storesDir, name, "state"))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range agents {
			dbs = append(dbs, a.Path)
		}
	}
	slices.Sort(dbs) // a seed names the same corruptions on every run
	return dbs
}

func TestFastPathMatchesDriver(t *testing.T) {
	for _, path := range committedDatabases(t) {
		fast, took := readAll(t, path, true)
		if !took {
			t.Errorf("%s: the fast path was not taken", path)
		}
		if driver, _ := readAll(t, path, false); fast != driver {
			t.Errorf("%s: the fast path reads\n%.2000s\nthe driver\n%.2000s", path, fast, driver)
		}
	}
}

// TestFastPathNotTakenWithWAL: with frames in the -wal, SQLite reads pages
// from it, so the b-trees of the main file are not read directly.
func TestFastPathNotTakenWithWAL(t *testing.T) {
	state := copyState(t, "multi")
	path := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	w := writer(t, path)
	for _, q := range []string{`PRAGMA wal_autocheckpoint = 0`, `UPDATE schema_meta SET app_version = app_version || 'x' WHERE meta_key = 'primary'`} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("the -wal holds no frames: %v", err)
	}
	if _, took := readAll(t, path, true); took {
		t.Error("the fast path was taken with frames in the -wal")
	}
}

// TestFastPathCorruptPages corrupts copies of a database, a few bytes of
// a few pages at a time, and holds the fast path to the driver's answer:
// never a panic or a hang; where the driver reads the copy as sound, the
// same rows and no fault; where it reports damage, the fast path reports
// damage too. (On damaged pages the two may describe the damage from
// different places: the fast path checks each page's order and hands the
// rest to a new query, which may meet the damage where one scan did not.)
func TestFastPathCorruptPages(t *testing.T) {
	seed := int64(15)
	if s := os.Getenv("STORE_FUZZ_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	src := committedDatabases(t)
	rng := rand.New(rand.NewSource(seed))
	dir := t.TempDir()
	rounds := 150
	if testing.Short() {
		rounds = 20
	}
	for i := 0; i < rounds; i++ {
		orig, err := os.ReadFile(src[i%len(src)])
		if err != nil {
			t.Fatal(err)
		}
		data := bytes.Clone(orig)
		const pageSize = 4096
		for k := 0; k < 1+rng.Intn(4); k++ {
			pg := rng.Intn(len(data) / pageSize)
			for j := 0; j < 1+rng.Intn(8); j++ {
				off := pg*pageSize + rng.Intn(pageSize)
				if off >= 100 { // keep the file an SQLite database
					data[off] = byte(rng.Intn(256))
				}
			}
		}
		path := filepath.Join(dir, "corrupt.sqlite")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fast, _ := readAll(t, path, true)
		if driver, _ := readAll(t, path, false); fast != driver && !(reportsDamage(fast) && reportsDamage(driver)) {
			at := 0
			for at < len(fast) && at < len(driver) && fast[at] == driver[at] {
				at++
			}
			t.Fatalf("round %d: the fast path reads\n%.600s\nthe driver\n%.600s", i, fast[max(0, at-200):], driver[max(0, at-200):])
		}
	}
}

// reportsDamage reports whether readAll's output says the database is
// damaged: an error, or an index fault.
func reportsDamage(out string) bool {
	for _, mark := range []string{"open: ", "windows: ", "reader: ", "export: ", "faults: 1", "faults: store"} {
		if strings.HasPrefix(out, mark) || strings.Contains(out, "\n"+mark) {
			return true
		}
	}
	return false
}

// TestEstimate: Estimate gives the events and highest seq Windows counts,
// a size within a factor of two of its size (exact for the first 1,024
// rows, then sampled, whole index leaves counted at once), and through
// the driver exactly its figures; also when no row is sized exactly, so
// that the committed sessions' leaves are counted at once (then only the
// counts are held exact: a few samples stand for a short session's size
// only roughly).
func TestEstimate(t *testing.T) {
	for _, exact := range []int64{estimateExact, 0} {
		t.Run(fmt.Sprint("exact=", exact), func(t *testing.T) {
			defer func(n int64) { estimateExact = n }(estimateExact)
			estimateExact = exact
			testEstimate(t)
		})
	}
}

func testEstimate(t *testing.T) {
	ctx := context.Background()
	for _, path := range committedDatabases(t) {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := db.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, fast := range []bool{true, false} {
			if !fast {
				db.fast = nil
			}
			for _, w := range ws {
				got, err := db.Estimate(ctx, w.SessionID)
				if err != nil {
					t.Fatal(err)
				}
				ok := got.Events == w.Events && got.MaxSeq == w.MaxSeq
				if fast {
					ok = ok && (w.Bytes == 0) == (got.Bytes == 0)
					// A handful of samples stands for a short session
					// only roughly.
					ok = ok && (estimateExact == 0 || got.Bytes <= 2*w.Bytes && w.Bytes <= 2*got.Bytes)
				} else {
					ok = ok && got.Bytes == w.Bytes
				}
				if !ok {
					t.Errorf("%s %s (fast path %v): estimate %+v, count %+v", path, w.SessionID, fast, got, w.Transcript)
				}
			}
		}
		db.Close()
	}
}

// TestProvedWhileReading: texts proven canonical on the reading goroutine
// (which does so when the writing side falls behind) give the export and
// the index faults the writing side gives, on the committed stores and on
// a copy with non-canonical rows, escaped ids and index rows that differ.
func TestProvedWhileReading(t *testing.T) {
	state := copyState(t, "multi")
	dbs, err := AgentDatabases(state)
	if err != nil {
		t.Fatal(err)
	}
	faulty := dbs[0].Path
	w := writer(t, faulty)
	for _, q := range []string{
		`UPDATE transcript_events SET event_json = replace(event_json, '":', '": ') WHERE event_json IS NOT NULL AND seq % 7 = 3`,
		`UPDATE transcript_events SET event_json = replace(event_json, '"id":"', '"id":"\u0061') WHERE event_json IS NOT NULL AND seq % 11 = 5`,
		`UPDATE transcript_event_identities SET parent_id = 'elsewhere' WHERE seq % 5 = 2`,
		`DELETE FROM transcript_event_identities WHERE seq % 13 = 4`,
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	for _, path := range append(committedDatabases(t), faulty) {
		want, _ := readAll(t, path, true)
		proveAll = true
		got, _ := readAll(t, path, true)
		proveAll = false
		if got != want {
			t.Errorf("%s: proven while reading:\n%s\nproven while writing:\n%s", path, got, want)
		}
	}
}

// TestNextKeyedMatchesNext walks each session's entries of every index
// the fast path reads twice, through the general entry path alone and
// with the in-place decoder first, on every committed store: the same
// entries, and the decoder reads most of them.
func TestNextKeyedMatchesNext(t *testing.T) {
	ctx := context.Background()
	keyed := 0
	for _, path := range committedDatabases(t) {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if db.fast == nil {
			db.Close()
			t.Fatalf("%s: no fast path", path)
		}
		ws, err := db.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tree := range []*fastTree{db.fast.events, db.fast.identities, db.fast.active} {
			for _, w := range ws {
				key := []byte(w.SessionID)
				walk := func(inPlace bool) [][2]int64 {
					c := newIndexCursor(db.fast.pager)
					if err := c.seek(tree.index, key); err != nil {
						t.Fatal(err)
					}
					var got [][2]int64
					for {
						if inPlace {
							if a, b, ok := c.nextKeyed(key); ok {
								got = append(got, [2]int64{a, b})
								keyed++
								continue
							}
						}
						ok, err := c.next()
						if err != nil {
							t.Fatal(err)
						}
						if !ok {
							return got
						}
						if cmp, err := compareFirst(&c.rec, key); err != nil || cmp != 0 {
							return got
						}
						a, _ := c.rec.int(1)
						b, _ := rowidOf(&c.rec)
						got = append(got, [2]int64{a, b})
					}
				}
				want, got := walk(false), walk(true)
				if !slices.Equal(got, want) {
					t.Errorf("%s: session %s, index page %d: in place %v, entry path %v", path, w.SessionID, tree.index, got, want)
				}
			}
		}
		db.Close()
	}
	if keyed == 0 {
		t.Error("no entry was decoded in place")
	}
}

// TestIntValue holds the in-place integer decoder to the record's, for
// every integer serial type and sign.
func TestIntValue(t *testing.T) {
	for _, tc := range []struct {
		t byte
		d []byte
	}{
		{1, []byte{0x7f}}, {1, []byte{0x80}},
		{2, []byte{0x12, 0x34}}, {2, []byte{0xff, 0xfe}},
		{3, []byte{0x12, 0x34, 0x56}}, {3, []byte{0x80, 0, 1}},
		{4, []byte{0x12, 0x34, 0x56, 0x78}}, {4, []byte{0xff, 0, 0, 1}},
		{5, []byte{1, 2, 3, 4, 5, 6}}, {5, []byte{0xfe, 2, 0x83, 4, 5, 6}},
		{6, []byte{1, 2, 3, 4, 5, 6, 7, 8}}, {6, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}},
		{8, nil}, {9, nil},
	} {
		r := record{data: tc.d, types: []uint64{uint64(tc.t)}, offs: []int{0}}
		want, ok := r.int(0)
		if !ok || intSize(tc.t) != len(tc.d) {
			t.Fatalf("type %d: %d bytes, int ok %v", tc.t, len(tc.d), ok)
		}
		// At the end of the data (a byte at a time) and inside it (one
		// load).
		for _, data := range [][]byte{append([]byte{0xaa}, tc.d...), append(append([]byte{0xaa}, tc.d...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)} {
			if got := intAt(data, 1, len(tc.d), tc.t); got != want {
				t.Errorf("type %d % x in % x: %d, record says %d", tc.t, tc.d, data, got, want)
			}
		}
	}
}

// TestEqualKey holds the word-wise key compare to bytes.Equal, for every
// length up to a few words and a difference at every position.
func TestEqualKey(t *testing.T) {
	for n := 0; n <= 40; n++ {
		key := []byte(strings.Repeat("0196f1c2-7a3b-7c4d-9e8f-1a2b3c4d5e6f", 2)[:n])
		for _, other := range [][]byte{key[:max(n-1, 0)], append(slices.Clone(key), 'x')} {
			if equalKey(other, key) != bytes.Equal(other, key) {
				t.Errorf("%q vs %q: %v", other, key, equalKey(other, key))
			}
		}
		if !equalKey(slices.Clone(key), key) {
			t.Errorf("%q: not equal to itself", key)
		}
		for i := 0; i < n; i++ {
			other := slices.Clone(key)
			other[i] ^= 1
			if equalKey(other, key) {
				t.Errorf("%q vs %q: equal", other, key)
			}
		}
	}
}
