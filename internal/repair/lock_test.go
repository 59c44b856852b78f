package repair

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// liveChild starts a process that sleeps until the test ends and returns
// its pid.
func liveChild(t *testing.T) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs a sleep command")
	}
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a child process: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run child: %v", err)
	}
	pid := cmd.Process.Pid
	if pidAlive(pid) {
		t.Skipf("pid %d was reused at once", pid)
	}
	return pid
}

// writeLock writes a lock file for session with the given body and mtime.
func writeLock(t *testing.T, session, body string, mtime time.Time) string {
	t.Helper()
	lp := LockPath(session)
	if err := os.WriteFile(lp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(lp, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return lp
}

func lockJSON(pid any, createdAt any, starttime any) string {
	m := []string{}
	if pid != nil {
		m = append(m, fmt.Sprintf(`"pid": %v`, pid))
	}
	if createdAt != nil {
		m = append(m, fmt.Sprintf(`"createdAt": %q`, createdAt))
	}
	if starttime != nil {
		m = append(m, fmt.Sprintf(`"starttime": %v`, starttime))
	}
	return "{\n  " + strings.Join(m, ",\n  ") + "\n}"
}

func TestLockBodyIsOpenClawsPayload(t *testing.T) {
	session := filepath.Join(t.TempDir(), "s.jsonl")
	now := time.Date(2026, 5, 2, 14, 7, 31, 204_000_000, time.UTC)
	l, err := AcquireLock(session, LockOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	body, err := os.ReadFile(session + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": \"2026-05-02T14:07:31.204Z\"", os.Getpid())
	if st, ok := processStartTime(os.Getpid()); ok {
		want += fmt.Sprintf(",\n  \"starttime\": %d", st)
	} else if runtime.GOOS == "linux" {
		t.Error("no start time for our own pid on Linux")
	}
	want += "\n}"
	if string(body) != want {
		t.Errorf("lock body:\n%s\nwant:\n%s", body, want)
	}
	if _, err := jsonl.Parse(body); err != nil {
		t.Errorf("lock body is not JSON: %v", err)
	}
}

func TestAcquireReleaseAndReentry(t *testing.T) {
	session := filepath.Join(t.TempDir(), "s.jsonl")
	l, err := AcquireLock(session, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Paths(); len(got) != 1 || got[0] != session+".lock" {
		t.Errorf("Paths() = %v", got)
	}
	// A second acquisition, even by this process, must see a live lock.
	_, err = AcquireLock(session, LockOptions{})
	var live *LiveLockError
	if !errors.As(err, &live) {
		t.Fatalf("second AcquireLock: got %v, want *LiveLockError", err)
	}
	if live.Info.PID != os.Getpid() || live.Info.Stale || !strings.Contains(err.Error(), "s.jsonl.lock") {
		t.Errorf("live lock info: %+v (%v)", live.Info, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(session + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock still there after Release: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
}

func TestReleaseLeavesAForeignLock(t *testing.T) {
	session := filepath.Join(t.TempDir(), "s.jsonl")
	l, err := AcquireLock(session, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := lockJSON(liveChild(t), time.Now().UTC().Format(time.RFC3339Nano), nil)
	writeLock(t, session, other, time.Now())
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(session + ".lock")
	if err != nil || string(got) != other {
		t.Errorf("foreign lock was touched: %q, %v", got, err)
	}
}

func TestLockVerdicts(t *testing.T) {
	now := time.Now()
	iso := func(d time.Duration) string { return jsISOString(now.Add(d)) }
	live := liveChild(t)
	dead := deadPID(t)
	liveStart, haveStart := processStartTime(live)
	old := now.Add(-time.Hour)
	tests := []struct {
		name        string
		body        string
		mtime       time.Time
		linuxOnly   bool
		wantReasons []string
		reclaimable bool
	}{
		{"live", lockJSON(live, iso(-time.Minute), nil), now, false, nil, false},
		{"live with start time", lockJSON(live, iso(-time.Minute), liveStart), now, true, nil, false},
		{"dead pid", lockJSON(dead, iso(-time.Minute), nil), now, false, []string{StaleDeadPID}, true},
		{"recycled pid", lockJSON(live, iso(-time.Minute), liveStart+1), now, true, []string{StaleRecycledPID}, true},
		{"too old", lockJSON(live, iso(-31*time.Minute), nil), now, false, []string{StaleTooOld}, true},
		{"29 minutes is not too old", lockJSON(live, iso(-29*time.Minute), nil), now, false, nil, false},
		{"invalid createdAt, fresh file", lockJSON(live, "yesterday", nil), now, false, []string{StaleInvalidCreatedAt}, false},
		{"invalid createdAt, old file", lockJSON(live, "yesterday", nil), old, false, []string{StaleInvalidCreatedAt}, true},
		{"empty body, fresh file", "", now, false, []string{StaleMissingPID, StaleInvalidCreatedAt}, false},
		{"empty body, old file", "", old, false, []string{StaleMissingPID, StaleInvalidCreatedAt}, true},
		{"pid a string", lockJSON(`"12"`, iso(0), nil), now, false, []string{StaleMissingPID}, false},
		{"pid fractional", lockJSON(1.5, iso(0), nil), now, false, []string{StaleMissingPID}, false},
		{"pid zero", lockJSON(0, iso(0), nil), now, false, []string{StaleMissingPID}, false},
		{"dead pid and too old", lockJSON(dead, iso(-2*time.Hour), nil), now, false, []string{StaleDeadPID, StaleTooOld}, true},
		{"orphan of our own pid", lockJSON(os.Getpid(), iso(0), nil), now, false, []string{StaleOrphanSelfPID}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linuxOnly && !haveStart {
				t.Skip("no process start times on this platform")
			}
			session := filepath.Join(t.TempDir(), "s.jsonl")
			writeLock(t, session, tt.body, tt.mtime)
			info, err := InspectLock(session, LockOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(info.StaleReasons, tt.wantReasons) || info.Stale != (len(tt.wantReasons) > 0) {
				t.Errorf("stale=%v reasons=%v, want %v", info.Stale, info.StaleReasons, tt.wantReasons)
			}
			if info.Reclaimable != tt.reclaimable {
				t.Errorf("reclaimable=%v, want %v", info.Reclaimable, tt.reclaimable)
			}
			checkAcquireAgainst(t, session, tt.body, tt.reclaimable)
		})
	}
}

// checkAcquireAgainst checks that AcquireLock replaces a reclaimable lock
// (reporting it), refuses a live one, and takes it over with Force.
func checkAcquireAgainst(t *testing.T, session, body string, reclaimable bool) {
	t.Helper()
	l, err := AcquireLock(session, LockOptions{})
	if !reclaimable {
		var live *LiveLockError
		if !errors.As(err, &live) {
			t.Fatalf("AcquireLock over a live lock: %v, want *LiveLockError", err)
		}
		if got, _ := os.ReadFile(session + ".lock"); string(got) != body {
			t.Errorf("refused acquisition changed the lock: %q", got)
		}
		if l, err = AcquireLock(session, LockOptions{Force: true}); err != nil {
			t.Fatalf("AcquireLock with Force: %v", err)
		}
		if len(l.Overridden) != 1 || len(l.ReplacedStale) != 0 {
			t.Errorf("Force: overridden %v, replaced %v", l.Overridden, l.ReplacedStale)
		}
	} else {
		if err != nil {
			t.Fatalf("AcquireLock over a stale lock: %v", err)
		}
		if len(l.ReplacedStale) != 1 || len(l.Overridden) != 0 {
			t.Errorf("stale lock not reported: replaced %v, overridden %v", l.ReplacedStale, l.Overridden)
		}
	}
	if got, _ := os.ReadFile(session + ".lock"); !strings.Contains(string(got), fmt.Sprintf(`"pid": %d,`, os.Getpid())) {
		t.Errorf("lock is not ours after acquisition: %q", got)
	}
	if err := l.Release(); err != nil {
		t.Error(err)
	}
}

func TestAcquireWaitsForALiveLock(t *testing.T) {
	session := filepath.Join(t.TempDir(), "s.jsonl")
	lp := writeLock(t, session, lockJSON(liveChild(t), jsISOString(time.Now()), nil), time.Now())
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = os.Remove(lp)
	}()
	start := time.Now()
	l, err := AcquireLock(session, LockOptions{Wait: 5 * time.Second})
	if err != nil {
		t.Fatalf("AcquireLock with Wait: %v", err)
	}
	defer l.Release()
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("acquired after %v, before the live lock went away", waited)
	}
}

func TestAcquireGivesUpAfterWait(t *testing.T) {
	session := filepath.Join(t.TempDir(), "s.jsonl")
	writeLock(t, session, lockJSON(liveChild(t), jsISOString(time.Now()), nil), time.Now())
	_, err := AcquireLock(session, LockOptions{Wait: 150 * time.Millisecond})
	var live *LiveLockError
	if !errors.As(err, &live) {
		t.Fatalf("got %v, want *LiveLockError", err)
	}
}

func TestAcquireReportsUnwritableDirectory(t *testing.T) {
	_, err := AcquireLock(filepath.Join(t.TempDir(), "missing", "s.jsonl"), LockOptions{})
	if err == nil || !strings.Contains(err.Error(), "create write lock") {
		t.Errorf("got %v, want a create write lock error", err)
	}
}

func TestSymlinkedSessionTakesBothLocks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "b.jsonl")
	link := filepath.Join(dir, "a.jsonl")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	l, err := AcquireLock(link, LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{LockPath(link), LockPath(target)}
	if !slices.Equal(l.Paths(), want) {
		t.Errorf("Paths() = %v, want %v", l.Paths(), want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	for _, p := range want {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", p)
		}
	}
}

func TestLockPathResolvesTheDirectoryOnly(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "alias")); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	realResolved, _ := filepath.EvalSymlinks(real)
	got := LockPath(filepath.Join(dir, "alias", "x.jsonl"))
	if want := filepath.Join(realResolved, "x.jsonl.lock"); got != want {
		t.Errorf("LockPath = %s, want %s", got, want)
	}
}

func TestProcessStartTimeAndZombies(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux /proc only")
	}
	if _, ok := processStartTime(os.Getpid()); !ok {
		t.Fatal("no start time for our own process")
	}
	if _, ok := processStartTime(deadPID(t)); ok {
		t.Error("start time for a dead pid")
	}
	// An exited child that has not been waited for is a zombie: dead to OpenClaw.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for !isZombie(cmd.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if pidAlive(cmd.Process.Pid) {
		t.Error("a zombie counts as alive")
	}
}

func TestParseJSDate(t *testing.T) {
	utc := func(y, mo, d, h, mi, s, ms int) time.Time {
		return time.Date(y, time.Month(mo), d, h, mi, s, ms*1e6, time.UTC)
	}
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		// Values checked against node's Date.parse.
		{"2026-01-02T03:04:05.678Z", utc(2026, 1, 2, 3, 4, 5, 678), true},
		{"2026-01-02", utc(2026, 1, 2, 0, 0, 0, 0), true},
		{"2026", utc(2026, 1, 1, 0, 0, 0, 0), true},
		{"2026-01-02T03:04:05.1234567Z", utc(2026, 1, 2, 3, 4, 5, 123), true},
		{"2026-01-02t03:04:05z", utc(2026, 1, 2, 3, 4, 5, 0), true},
		{"+002026-01-02T00:00:00Z", utc(2026, 1, 2, 0, 0, 0, 0), true},
		{"2026-01-02T24:00:00Z", utc(2026, 1, 3, 0, 0, 0, 0), true},
		{"2026-01-02T03:04:05+01:00", utc(2026, 1, 2, 2, 4, 5, 0), true},
		{"2026-01-02T03:04:05+0100", utc(2026, 1, 2, 2, 4, 5, 0), true},
		{"2026-01-02T03:04", time.Date(2026, 1, 2, 3, 4, 0, 0, time.Local), true},
		{"2026-01-02 03:04:05", time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local), true},
		{"2026-01-02T03:04:05.Z", time.Time{}, false},
		{"-000000-01-01T00:00:00Z", time.Time{}, false},
		{"2026-01-02T24:00:01Z", time.Time{}, false},
		{"2026-13-01", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := parseJSDate(tt.in)
		if ok != tt.ok || (ok && !got.Equal(tt.want)) {
			t.Errorf("parseJSDate(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzLockBody feeds arbitrary lock bodies and createdAt strings through
// the reader and the verdict: no panics, reasons only from OpenClaw's set,
// and the ISO strings OpenClaw writes always parse back to their instant.
func FuzzLockBody(f *testing.F) {
	f.Add([]byte(lockJSON(4242, "2026-05-02T14:07:31.204Z", 123)), "2026-05-02T14:07:31.204Z", int64(1777730851204))
	f.Add([]byte(""), "", int64(0))
	f.Add([]byte(`{"pid":1e3,"createdAt":7,"starttime":-1}`), "+275760-09-13T00:00:00Z", int64(-1))
	f.Add([]byte(`[1,2]`), "2026-01-02 03:04:05.9999+0530", int64(253402300799999))
	known := []string{StaleMissingPID, StaleDeadPID, StaleRecycledPID, StaleInvalidCreatedAt, StaleTooOld, StaleOrphanSelfPID}
	f.Fuzz(func(t *testing.T, body []byte, createdAt string, ms int64) {
		info := &LockInfo{raw: body}
		readLockPayload(body, info)
		judgeLock(info, LockOptions{})
		for _, r := range info.StaleReasons {
			if !slices.Contains(known, r) {
				t.Fatalf("unknown stale reason %q", r)
			}
		}
		if info.Stale != (len(info.StaleReasons) > 0) {
			t.Fatalf("stale %v with reasons %v", info.Stale, info.StaleReasons)
		}
		_, _ = parseJSDate(createdAt)
		if ms >= 0 && ms < 253402300800000 { // years 0–9999, where toISOString has four digits
			at := time.UnixMilli(ms)
			if got, ok := parseJSDate(jsISOString(at)); !ok || !got.Equal(at) {
				t.Fatalf("parseJSDate(%q) = %v, %v; want %v", jsISOString(at), got, ok, at)
			}
		}
	})
}

func TestTooOldBoundary(t *testing.T) {
	created := time.Date(2026, 5, 2, 14, 0, 0, 0, time.UTC)
	session := filepath.Join(t.TempDir(), "s.jsonl")
	writeLock(t, session, lockJSON(liveChild(t), jsISOString(created), nil), time.Now())
	for _, tt := range []struct {
		after time.Duration
		stale bool
	}{{30 * time.Minute, false}, {30*time.Minute + time.Millisecond, true}, {-time.Hour, false}} {
		info, err := InspectLock(session, LockOptions{Now: func() time.Time { return created.Add(tt.after) }})
		if err != nil {
			t.Fatal(err)
		}
		if info.Stale != tt.stale || (tt.after < 0 && info.Age != 0) {
			t.Errorf("after %v: stale=%v age=%v, want stale=%v", tt.after, info.Stale, info.Age, tt.stale)
		}
	}
}

func TestLockIsPublishedComplete(t *testing.T) {
	for _, linkFails := range []bool{false, true} {
		t.Run(map[bool]string{false: "link", true: "exclusive create"}[linkFails], func(t *testing.T) {
			dir := t.TempDir()
			session := filepath.Join(dir, "s.jsonl")
			var seen []string
			withSeam(t, &linkLock, func(o, n string) error {
				seen = append(seen, readString(t, o)) // the body is complete before it is published
				if linkFails {
					return &os.LinkError{Op: "link", Old: o, New: n, Err: syscall.EPERM}
				}
				return os.Link(o, n)
			})
			l, err := AcquireLock(session, LockOptions{})
			if err != nil {
				t.Fatal(err)
			}
			body := readString(t, session+".lock")
			if len(seen) != 1 || seen[0] != body || !strings.HasPrefix(body, "{\n  \"pid\": ") {
				t.Errorf("published %q, lock holds %q", seen, body)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"s.jsonl.lock"}) {
				t.Errorf("directory holds %v", names)
			}
			_ = l.Release()
		})
	}
}

// Paths returns the lock files held, in acquisition order.
func (l *Lock) Paths() []string {
	paths := make([]string, len(l.held))
	for i, h := range l.held {
		paths[i] = h.path
	}
	return paths
}

// TestLockMessagesSayWhatTheLockIs: a fresh empty lock, a lock without a
// pid and a dangling symlink at the lock path are refused with a message
// that says what they are, not "a running OpenClaw" or "other processes
// keep taking it"; the symlink is refused at the first attempt.
func TestLockMessagesSayWhatTheLockIs(t *testing.T) {
	cases := []struct {
		name, body string
		want       string
	}{
		{"empty", "", "session is locked: the lock file is empty (OpenClaw creates it before it writes its pid"},
		{"no pid", `{"createdAt":"` + jsISOString(time.Now()) + `"}`, "session is locked: the lock file names no pid; it counts as held until it is 30m0s old"},
		{"not JSON", `{"pid":`, "session is locked: the lock file is not a readable JSON lock body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			if err := os.WriteFile(path+".lock", []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := AcquireLock(path, LockOptions{})
			var live *LiveLockError
			if !errors.As(err, &live) {
				t.Fatalf("got %v, want *LiveLockError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "running OpenClaw") || !strings.Contains(msg, "--force") {
				t.Errorf("message %q, want %q", msg, c.want)
			}
		})
	}
	t.Run("dangling symlink", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		if err := os.Symlink(filepath.Join(dir, "nowhere"), path+".lock"); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		for _, force := range []bool{false, true} {
			_, err := AcquireLock(path, LockOptions{Force: force})
			var dl *DanglingLockError
			if !errors.As(err, &dl) || !strings.Contains(err.Error(), "dangling symlink") || strings.Contains(err.Error(), "attempts") {
				t.Errorf("force %v: got %v, want a dangling-symlink error", force, err)
			}
		}
	})
}
