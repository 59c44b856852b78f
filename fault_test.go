//go:build unix

package main

// Fault tests for `openclaw-doctor fix` (docs/safety.md): the real command,
// run as a child process, is SIGKILLed at random points, raced by writers
// that respect or ignore OpenClaw's write lock, and run on a full disk.
// The test binary doubles as the command: testscript.Main (main_test.go)
// runs cmd.Main when invoked under the name "openclaw-doctor".

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
)

// defaultSIGKILLTrials is the number of random kill points in a default
// test run; bench/fix-sigkill.sh raises it through OCD_SIGKILL_TRIALS.
const defaultSIGKILLTrials = 50

// doctorCommand returns a path that runs openclaw-doctor: a symlink named
// after the command pointing at this test binary.
func doctorCommand(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "openclaw-doctor")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// doctorRun is one finished run of the command.
type doctorRun struct {
	stdout, stderr string
	code           int
	killed         bool
}

func startDoctor(t *testing.T, bin string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "OPENCLAW_STATE_DIR=", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

func waitDoctor(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer) doctorRun {
	t.Helper()
	err := cmd.Wait()
	r := doctorRun{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.killed = true
		}
	default:
		t.Fatal(err)
	}
	return r
}

func runDoctor(t *testing.T, bin string, args ...string) doctorRun {
	t.Helper()
	cmd, o, e := startDoctor(t, bin, args...)
	return waitDoctor(t, cmd, o, e)
}

// damagedSession is a session of about size bytes: a header, user and
// assistant messages, and every 97th line truncated (which fix drops).
func damagedSession(size int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":7,"id":"fault-1","timestamp":"2026-05-02T14:07:31.204Z","cwd":"/tmp"}` + "\n")
	for i := 0; b.Len() < size; i++ {
		text := fmt.Sprintf("line %d %s", i, strings.Repeat("x", 100+rng.IntN(300)))
		switch {
		case i%97 == 5:
			fmt.Fprintf(&b, `{"type":"message","id":"m%d","message":{"role":"user","content":"trunc`+"\n", i)
		case i%2 == 0:
			fmt.Fprintf(&b, `{"type":"message","id":"m%d","parentId":null,"timestamp":"2026-05-02T14:07:31.204Z","message":{"role":"user","content":[{"type":"text","text":%q}]}}`+"\n", i, text)
		default:
			fmt.Fprintf(&b, `{"type":"message","id":"m%d","parentId":null,"timestamp":"2026-05-02T14:07:31.204Z","message":{"role":"assistant","content":[{"type":"text","text":%q}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1777730851204}}`+"\n", i, text)
		}
	}
	return b.Bytes()
}

// writerLine is a valid user message a concurrent writer appends; fix keeps
// it byte for byte.
func writerLine(who string, n int) string {
	return fmt.Sprintf(`{"type":"message","id":"%s-%d","parentId":null,"timestamp":"2026-05-02T14:08:00.000Z","message":{"role":"user","content":"%s writes %d"}}`+"\n", who, n, who, n)
}

// faultFixture is a damaged session and what fix makes of it.
type faultFixture struct {
	bin                string
	original, expected []byte
}

func newFaultFixture(t *testing.T, size int) *faultFixture {
	t.Helper()
	f := &faultFixture{bin: doctorCommand(t), original: damagedSession(size, 1)}
	f.expected = f.repairedFrom(t, f.original)
	if bytes.Equal(f.original, f.expected) {
		t.Fatal("the damaged session needs no repair")
	}
	return f
}

// repairedFrom is `fix --stdout` of content.
func (f *faultFixture) repairedFrom(t *testing.T, content []byte) []byte {
	t.Helper()
	src := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, src, content)
	r := runDoctor(t, f.bin, "fix", "--stdout", src)
	if r.code != 0 {
		t.Fatalf("fix --stdout: exit %d: %s", r.code, r.stderr)
	}
	return []byte(r.stdout)
}

func writeFile(t *testing.T, path string, content []byte) {
	t.Helper()
	if err := os.WriteFile(path, content, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sigkillTrials(t *testing.T) int {
	if s := os.Getenv("OCD_SIGKILL_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("OCD_SIGKILL_TRIALS=%q", s)
		}
		return n
	}
	return defaultSIGKILLTrials
}

// killStats counts what the SIGKILL trials saw.
type killStats struct {
	trials, killedBeforeRename, killedAfterRename, finished int
	staleLocks, leftoverTemps, leftoverBackups, redundant   int
	byTrigger                                               map[string]int
}

// A killTrigger is when a trial sends SIGKILL: a random delay after an
// event the test can observe from outside. Uniform delays over the whole
// run cover it evenly; the other triggers aim at the short phases a
// uniform delay rarely hits: publishing the lock (its body goes through a
// temp file), writing the repaired copy, and everything after the rename
// (the directory sync, the late-writer check, deleting the backup,
// releasing the lock).
type killTrigger struct {
	name  string
	event func(dir, path string, pid int) bool // polled until true
	delay func(rng *rand.Rand, window time.Duration) time.Duration
}

var killTriggers = []killTrigger{
	{"uniform", nil, func(rng *rand.Rand, w time.Duration) time.Duration { return time.Duration(rng.Int64N(int64(w))) }},
	{"uniform", nil, func(rng *rand.Rand, w time.Duration) time.Duration { return time.Duration(rng.Int64N(int64(w))) }},
	{"while taking the lock", tempExists, func(rng *rand.Rand, _ time.Duration) time.Duration {
		return time.Duration(rng.Int64N(int64(time.Millisecond)))
	}},
	{"while writing the temp file", func(dir, _ string, pid int) bool { return tempGrowing(dir, pid) }, func(rng *rand.Rand, w time.Duration) time.Duration { return time.Duration(rng.Int64N(int64(w) / 2)) }},
	{"after rename", renamed, func(rng *rand.Rand, _ time.Duration) time.Duration {
		return time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
	}},
}

// killAtRename kills the moment the rename shows.
var killAtRename = killTrigger{"at rename", renamed, func(*rand.Rand, time.Duration) time.Duration { return 0 }}

func tempExists(dir, _ string, pid int) bool {
	entries, _ := os.ReadDir(dir)
	marker := ".repair." + strconv.Itoa(pid) + "."
	for _, e := range entries {
		if strings.Contains(e.Name(), marker) {
			return true
		}
	}
	return false
}

// tempGrowing is true once fix is writing its repaired copy: a temp file
// of pid holding more than a lock body (the lock is published through a
// temp file of the same name pattern).
func tempGrowing(dir string, pid int) bool {
	entries, _ := os.ReadDir(dir)
	marker := ".repair." + strconv.Itoa(pid) + "."
	for _, e := range entries {
		if strings.Contains(e.Name(), marker) {
			if fi, err := e.Info(); err == nil && fi.Size() > 4096 {
				return true
			}
		}
	}
	return false
}

// renamed is true once the name holds another inode than the original's
// (whose backup link keeps its inode number from being reused meanwhile).
var originalInodes sync.Map // path → os.FileInfo

func renamed(_, path string, _ int) bool {
	orig, _ := originalInodes.Load(path)
	fi, err := os.Stat(path)
	return err == nil && orig != nil && !os.SameFile(fi, orig.(os.FileInfo))
}

// TestFixSurvivesSIGKILL kills `fix FILE` at random points. Afterwards the
// file must be byte-identical to the original or to the full repaired
// output (never partial, same mode), and a second `fix` must finish the job
// and report the stale lock the killed run left.
func TestFixSurvivesSIGKILL(t *testing.T) {
	f := newFaultFixture(t, 2<<20)
	window := f.fullRunTime(t)
	trials := sigkillTrials(t)
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 2))
	t.Logf("%d trials, %d-byte session, uninterrupted fix takes %v, seed %d", trials, len(f.original), window, seed)
	st := killStats{byTrigger: map[string]int{}}
	for i := range trials {
		f.killTrial(t, i, killTriggers[i%len(killTriggers)], rng, window, &st)
		if t.Failed() {
			t.Fatalf("trial %d failed", i)
		}
	}
	// The process does little after the rename, so a loaded machine can let
	// every "after rename" kill arrive too late: a few more trials that
	// kill the moment the rename shows keep that side covered.
	for extra := 0; st.killedAfterRename == 0 && extra < 20; extra++ {
		f.killTrial(t, trials+extra, killAtRename, rng, window, &st)
		if t.Failed() {
			t.Fatalf("trial %d failed", trials+extra)
		}
	}
	t.Logf("SIGKILL: %d trials (%v): %d killed before the rename (original intact), %d killed after it (repaired), %d finished first; "+
		"second run: %d stale locks reported, leftovers %d temp, %d backup (%d redundant)",
		st.trials, st.byTrigger, st.killedBeforeRename, st.killedAfterRename, st.finished, st.staleLocks, st.leftoverTemps, st.leftoverBackups, st.redundant)
	if st.killedBeforeRename == 0 || st.killedAfterRename == 0 && trials >= 20 {
		t.Error("the kill points missed a side of the rename")
	}
}

// fullRunTime measures an uninterrupted in-place fix: the fastest of three,
// since a busy machine only ever makes a run slower.
func (f *faultFixture) fullRunTime(t *testing.T) time.Duration {
	t.Helper()
	var times []time.Duration
	for range 3 {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		writeFile(t, path, f.original)
		start := time.Now()
		r := runDoctor(t, f.bin, "fix", path)
		times = append(times, time.Since(start))
		if r.code != 0 || !bytes.Equal(readFile(t, path), f.expected) {
			t.Fatalf("uninterrupted fix: exit %d, stderr %q, output matches: %v", r.code, r.stderr, bytes.Equal(readFile(t, path), f.expected))
		}
	}
	return slices.Min(times)
}

func (f *faultFixture) killTrial(t *testing.T, i int, trig killTrigger, rng *rand.Rand, window time.Duration, st *killStats) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	writeFile(t, path, f.original)
	if fi, err := os.Stat(path); err == nil {
		originalInodes.Store(path, fi)
	}
	cmd, o, e := startDoctor(t, f.bin, "fix", path)
	if trig.event != nil {
		waitFor(func() bool { return trig.event(dir, path, cmd.Process.Pid) }, cmd.Process.Pid, 10*time.Second)
	}
	delay := trig.delay(rng, window)
	time.Sleep(delay)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	r := waitDoctor(t, cmd, o, e)
	st.trials++
	st.byTrigger[trig.name]++
	got := readFile(t, path)
	switch {
	case !r.killed:
		st.finished++
		if r.code != 0 || !bytes.Equal(got, f.expected) {
			t.Errorf("trial %d: fix finished with exit %d but the file is not the repaired output: %s", i, r.code, r.stderr)
		}
	case bytes.Equal(got, f.original):
		st.killedBeforeRename++
	case bytes.Equal(got, f.expected):
		st.killedAfterRename++
	default:
		t.Errorf("trial %d: after SIGKILL (%s + %v) the file (%d bytes) is neither the original (%d) nor the repaired output (%d)",
			i, trig.name, delay, len(got), len(f.original), len(f.expected))
		return
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode() != 0o640 {
		t.Errorf("trial %d: mode after kill: %v, %v", i, fi.Mode(), err)
	}
	f.secondRun(t, i, path, st)
}

// waitFor polls cond until it holds, process pid has exited, or limit.
func waitFor(cond func() bool, pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		if syscall.Kill(pid, 0) != nil {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
	return false
}

// secondRun runs fix again after a kill: it must reclaim and report a
// stale lock, leave the repaired output, and release its own lock.
func (f *faultFixture) secondRun(t *testing.T, i int, path string, st *killStats) {
	_, lockErr := os.Stat(path + ".lock")
	hadLock := lockErr == nil
	r := runDoctor(t, f.bin, "fix", path)
	if r.code != 0 {
		t.Errorf("trial %d: second fix: exit %d: %s%s", i, r.code, r.stdout, r.stderr)
	}
	if got := readFile(t, path); !bytes.Equal(got, f.expected) {
		t.Errorf("trial %d: second fix did not leave the repaired output", i)
	}
	if hadLock {
		st.staleLocks++
		if !strings.Contains(r.stdout+r.stderr, "stale write lock") {
			t.Errorf("trial %d: the killed run's lock was not reported: %q", i, r.stdout+r.stderr)
		}
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("trial %d: lock left after the second run", i)
	}
	leftovers, err := repair.FindLeftovers(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leftovers {
		if l.Kind == "temp" {
			st.leftoverTemps++
		} else {
			st.leftoverBackups++
			if !bytes.Equal(readFile(t, l.Path), f.original) && !bytes.Equal(readFile(t, l.Path), f.expected) {
				t.Errorf("trial %d: leftover backup %s holds neither version", i, l.Path)
			}
		}
		if l.Redundant {
			st.redundant++
		}
	}
}

// TestFixMakesALockRespectingWriterWait plays OpenClaw appending to the
// session while fix holds its write lock: the writer waits for the lock,
// then appends, and nothing is lost.
func TestFixMakesALockRespectingWriterWait(t *testing.T) {
	f := newFaultFixture(t, 3<<20)
	line := writerLine("openclaw", 1)
	for attempt := range 5 {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		writeFile(t, path, f.original)
		cmd, o, e := startDoctor(t, f.bin, "fix", path)
		sawLock := waitForLockOf(path, cmd.Process.Pid, 10*time.Second)
		var wg sync.WaitGroup
		var lockErr error
		var waited time.Duration
		if sawLock {
			wg.Go(func() {
				start := time.Now()
				lockErr = appendUnderLock(path, line)
				waited = time.Since(start)
			})
		}
		r := waitDoctor(t, cmd, o, e)
		wg.Wait()
		if !sawLock {
			t.Logf("attempt %d: fix finished before the writer saw its lock", attempt)
			continue
		}
		if r.code != 0 || lockErr != nil {
			t.Fatalf("fix exit %d (%s), writer: %v", r.code, r.stderr, lockErr)
		}
		if got := readFile(t, path); string(got) != string(f.expected)+line {
			t.Fatalf("after fix and a waiting writer the file (%d bytes) is not the repaired output plus the writer's line", len(got))
		}
		t.Logf("the writer waited %v for fix's lock and lost nothing", waited)
		return
	}
	t.Fatal("the writer never saw fix's lock")
}

// waitForLockOf polls until path's OpenClaw lock names pid.
func waitForLockOf(path string, pid int, limit time.Duration) bool {
	want := fmt.Sprintf(`"pid": %d,`, pid)
	return waitFor(func() bool {
		b, err := os.ReadFile(repair.LockPath(path))
		return err == nil && strings.Contains(string(b), want)
	}, pid, limit)
}

// appendUnderLock is OpenClaw's way to write: take the session write lock
// (waiting for it), append, release.
func appendUnderLock(path, line string) error {
	lock, err := repair.AcquireLock(path, repair.LockOptions{Wait: 30 * time.Second})
	if err != nil {
		return err
	}
	defer lock.Release()
	if len(lock.ReplacedStale)+len(lock.Overridden) > 0 {
		return fmt.Errorf("the writer took the lock from someone: %v %v", lock.ReplacedStale, lock.Overridden)
	}
	fd, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fd.WriteString(line)
	return errors.Join(err, fd.Close())
}

// TestFixDetectsALockIgnoringWriter appends through a descriptor opened
// before fix started, while fix writes its temp file. fix must notice
// (nothing replaced, exit 1) and every appended line must survive, in the
// file or in a kept backup; a second fix then repairs the file with them.
func TestFixDetectsALockIgnoringWriter(t *testing.T) {
	f := newFaultFixture(t, 3<<20)
	const burst = 20
	for attempt := range 5 {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		writeFile(t, path, f.original)
		fd, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd, o, e := startDoctor(t, f.bin, "fix", path)
		var lines strings.Builder
		sawTemp := waitFor(func() bool { return tempGrowing(dir, cmd.Process.Pid) }, cmd.Process.Pid, 10*time.Second)
		if sawTemp {
			for n := range burst {
				lines.WriteString(writerLine("rogue", n))
				if _, err := fd.WriteString(writerLine("rogue", n)); err != nil {
					t.Fatal(err)
				}
			}
		}
		r := waitDoctor(t, cmd, o, e)
		_ = fd.Close()
		if !sawTemp {
			t.Logf("attempt %d: fix finished before its temp file was seen", attempt)
			continue
		}
		f.checkRogueLinesSurvive(t, path, lines.String())
		// Caught by the snapshot check before the rename ("changed since it
		// was read"), by fix's second pass ("changed between the two
		// passes"), or after the rename ("appended … bytes").
		if out := r.stderr + r.stdout; r.code != 1 || !strings.Contains(out, "changed") && !strings.Contains(out, "appended") {
			t.Fatalf("fix did not report the concurrent writer: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		return
	}
	t.Fatal("never caught fix writing its temp file")
}

func (f *faultFixture) checkRogueLinesSurvive(t *testing.T, path, lines string) {
	t.Helper()
	got := readFile(t, path)
	kept := ""
	leftovers, _ := repair.FindLeftovers(path)
	for _, l := range leftovers {
		if l.Kind == "backup" {
			kept += string(readFile(t, l.Path))
		}
	}
	withLines := append(append([]byte{}, f.original...), lines...)
	switch {
	case bytes.Equal(got, withLines):
		t.Log("fix saw the change before its rename and replaced nothing")
	case bytes.Equal(got, f.repairedFrom(t, withLines)):
		t.Log("the lines were written before fix took its snapshot, and fix repaired them in")
		return
	case bytes.Equal(got, f.expected) && strings.Contains(kept, string(f.original)+lines):
		t.Log("fix caught the late append after its rename and kept the backup")
	default:
		t.Fatalf("the rogue writer's lines are neither in the untouched file nor in a kept backup")
	}
	r := runDoctor(t, f.bin, "fix", path)
	want := f.repairedFrom(t, withLines)
	if r.code != 0 || !bytes.Equal(readFile(t, path), want) && !bytes.Equal(readFile(t, path), f.expected) {
		t.Errorf("second fix: exit %d %s", r.code, r.stderr)
	}
}

// TestFixOnAFullDisk runs fix where the repaired copy cannot fit: the
// original must stay byte-identical, with no temp file, backup or lock left.
func TestFixOnAFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("full-disk test: needs root on Linux to mount a small tmpfs")
	}
	f := newFaultFixture(t, 1<<20)
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1536k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("full-disk test: cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	path := filepath.Join(dir, "s.jsonl")
	writeFile(t, path, f.original)
	r := runDoctor(t, f.bin, "fix", path)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "no space left on device") {
		t.Errorf("fix on a full disk: exit %d, stdout %q, stderr %q; want 1 and ENOSPC", r.code, r.stdout, r.stderr)
	}
	if !bytes.Equal(readFile(t, path), f.original) {
		t.Fatal("the original changed on a full disk")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left on the full disk: %v", names)
	}
	t.Logf("full disk: fix exited %d, original intact: %s", r.code, strings.TrimSpace(r.stdout+r.stderr))
}
