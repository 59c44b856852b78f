package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// readEverything lists and exports every session of every agent database
// under stateDir, as a reader of the store would.
func readEverything(t *testing.T, stateDir string) (modes []Mode) {
	t.Helper()
	ctx := context.Background()
	dbs, err := AgentDatabases(stateDir)
	if err != nil || len(dbs) == 0 {
		t.Fatalf("agent databases: %v, %v", dbs, err)
	}
	for _, a := range dbs {
		db := open(t, a.Path)
		windows, err := db.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Sessions(ctx); err != nil {
			t.Fatal(err)
		}
		for _, w := range windows {
			if _, _, err := db.Export(ctx, w.SessionID, io.Discard); err != nil {
				t.Fatal(err)
			}
		}
		modes = append(modes, db.Mode())
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return modes
}

// Reading changes no file of the state directory and creates none: the
// main databases, their -wal and -shm files keep their bytes and times.
func TestReadOnlyChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, db string) // on each agent database
		mode  Mode
	}{
		{"committed: empty -wal and -shm", func(*testing.T, string) {}, ModeReadOnly},
		{"no -wal, no -shm (a copied backup)", func(t *testing.T, db string) {
			remove(t, db+"-wal", db+"-shm")
		}, ModeImmutable},
		{"empty -wal without -shm", func(t *testing.T, db string) {
			remove(t, db+"-shm")
		}, ModeImmutable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := copyState(t, "multi")
			dbs, _ := AgentDatabases(state)
			for _, a := range dbs {
				tc.setup(t, a.Path)
			}
			before := sessiontest.FileStates(t, state)
			for _, m := range readEverything(t, state) {
				if m != tc.mode {
					t.Errorf("opened %v, want %v", m, tc.mode)
				}
			}
			sessiontest.SameFiles(t, before, sessiontest.FileStates(t, state))
		})
	}
}

func remove(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}

// findMain reads agent:main:main of the database at path in a snapshot
// of its own.
func findMain(t *testing.T, path string) Window {
	t.Helper()
	db := open(t, path)
	defer db.Close()
	s, err := db.Find(context.Background(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mainWithWriter copies the store and starts a writer process that
// commits one event to agent:main:main and keeps its connection open.
func mainWithWriter(t *testing.T) (state, main string, before Window, lw *liveWriter) {
	t.Helper()
	state = copyState(t, "multi")
	dbs, _ := AgentDatabases(state)
	main = dbs[0].Path
	before = findMain(t, main)
	lw = startWriter(t, main, before.SessionID, before.MaxSeq, 1, true)
	if st, err := os.Stat(main + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("the writer left no frames in the -wal: %v", err)
	}
	return state, main, before, lw
}

// With a live writer (another process) holding frames in the -wal,
// reading changes no file either: the -shm is opened read-only.
func TestReadOnlyWithLiveWriter(t *testing.T) {
	state, main, s, lw := mainWithWriter(t)
	before := sessiontest.FileStates(t, state)
	for _, m := range readEverything(t, state) {
		if m != ModeReadOnly {
			t.Errorf("opened %v with a live -wal", m)
		}
	}
	sessiontest.SameFiles(t, before, sessiontest.FileStates(t, state))
	if got := findMain(t, main); got.MaxSeq != s.MaxSeq+1 {
		t.Fatalf("the committed row in the -wal is not read: %+v", got)
	}
	lw.stop(t)
}

// A -wal with frames left by a writer that stopped without a checkpoint
// (a crash, or a copy taken while OpenClaw ran) is read, and nothing
// changes: SQLite reads the -wal into private memory.
func TestReadOnlyAfterWriterCrash(t *testing.T) {
	state, main, s, lw := mainWithWriter(t)
	lw.cmd.Process.Kill() // no close, no checkpoint: the frames stay in the -wal
	lw.cmd.Wait()
	before := sessiontest.FileStates(t, state)
	if got := findMain(t, main); got.MaxSeq != s.MaxSeq+1 {
		t.Fatalf("the committed row in the -wal is not read: %+v", got)
	}
	sessiontest.SameFiles(t, before, sessiontest.FileStates(t, state))
}

// A -wal holding frames without its -shm is refused rather than read by
// creating the -shm (a copy taken while OpenClaw was running).
func TestWALWithoutIndexRefused(t *testing.T) {
	state := copyState(t, "multi")
	dbs, _ := AgentDatabases(state)
	main := dbs[0].Path
	if err := os.WriteFile(main+"-wal", bytes.Repeat([]byte{1}, 32), 0o644); err != nil {
		t.Fatal(err)
	}
	remove(t, main+"-shm")
	before := sessiontest.FileStates(t, state)
	if _, err := Open(context.Background(), main); !errors.Is(err, ErrWALWithoutIndex) {
		t.Fatalf("Open = %v, want ErrWALWithoutIndex", err)
	}
	sessiontest.SameFiles(t, before, sessiontest.FileStates(t, state))
}

// A database copied into a read-only directory still reads.
func TestReadOnlyDirectory(t *testing.T) {
	for _, withWAL := range []bool{true, false} {
		t.Run(fmt.Sprintf("with -wal %v", withWAL), func(t *testing.T) {
			state := copyState(t, "multi")
			dbs, _ := AgentDatabases(state)
			dir := filepath.Dir(dbs[0].Path)
			if !withWAL {
				remove(t, dbs[0].Path+"-wal", dbs[0].Path+"-shm")
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if err := os.Chmod(filepath.Join(dir, e.Name()), 0o444); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			if os.Geteuid() == 0 {
				// chmod does not stop root; the modes chosen and the
				// unchanged files are still checked below.
				t.Log("running as root: the directory is not really read-only")
			} else if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
				f.Close()
				t.Fatal("the directory is writable after chmod 0555")
			}
			before := sessiontest.FileStates(t, state)
			want := map[bool]Mode{true: ModeReadOnly, false: ModeImmutable}[withWAL]
			if m := readEverything(t, state); m[0] != want {
				t.Errorf("opened %v, want %v", m[0], want)
			}
			sessiontest.SameFiles(t, before, sessiontest.FileStates(t, state))
		})
	}
}

// While a writer appends events through its own connection, every export
// is the session at one instant: the events before the reader opened plus
// a whole number of committed appends, each complete, and the listing
// made through the same DB agrees with it.
func TestSnapshotWhileWriting(t *testing.T) {
	state := copyState(t, "multi")
	dbs, _ := AgentDatabases(state)
	path := dbs[1].Path // agent work: small sessions
	const key = "agent:work:clean"
	ctx := context.Background()

	db := open(t, path)
	base, err := db.Find(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, _, err := db.Export(ctx, base.SessionID, &want); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// Each commit appends two events; a snapshot holds both or neither.
	lw := startWriter(t, path, base.SessionID, base.MaxSeq, 2, false)
	line := writerEvent

	seen := map[int]bool{}
	for range 30 {
		db := open(t, path)
		s, err := db.Find(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		lines, _, err := db.Export(ctx, base.SessionID, &got)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if lines != s.Events || int64(got.Len()) != s.Bytes+1 {
			t.Fatalf("listing (%d events, %d bytes) and export (%d lines, %d bytes) saw different instants", s.Events, s.Bytes, lines, got.Len())
		}
		rest, ok := bytes.CutPrefix(got.Bytes(), want.Bytes())
		if !ok {
			t.Fatal("the export lost or changed events that were there before")
		}
		appended := strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n")
		if len(rest) == 0 {
			appended = nil
		}
		if len(appended)%2 != 0 {
			t.Fatalf("a commit of two events was read half: %d appended lines", len(appended))
		}
		for i, l := range appended {
			if l != line(i) {
				t.Fatalf("appended line %d = %q, want %q", i, l, line(i))
			}
		}
		seen[len(appended)] = true
	}
	if commits := lw.stop(t); commits < 2 || len(seen) < 2 {
		t.Fatalf("the writer committed %d times and the reader saw %d distinct states: nothing was read while writing", commits, len(seen))
	}
}

// A gateway that starts while a read is in progress is not held up, and
// the reader keeps its snapshot while the gateway commits.
func TestWriterStartsDuringRead(t *testing.T) {
	state := copyState(t, "multi")
	dbs, _ := AgentDatabases(state)
	path := dbs[1].Path
	ctx := context.Background()
	db := open(t, path)
	defer db.Close()
	s, err := db.Find(ctx, "agent:work:clean")
	if err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	if _, _, err := db.Export(ctx, s.SessionID, &first); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	lw := startWriter(t, path, s.SessionID, s.MaxSeq, 1, true)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the writer waited %v for the reader", d)
	}
	var again bytes.Buffer
	if _, _, err := db.Export(ctx, s.SessionID, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), again.Bytes()) {
		t.Error("the reader's snapshot moved while it was open")
	}
	lw.stop(t)
}
