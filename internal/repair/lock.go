package repair

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// DefaultLockStaleAfter is OpenClaw's session.writeLock.staleMs default: a
// write lock older than this is stale whatever its owner is doing.
const DefaultLockStaleAfter = 30 * time.Minute

// maxLockAttempts bounds how often one acquisition finds a lock gone or
// removes one, so two processes that keep reclaiming each other's locks
// cannot spin forever. Waiting for a live lock is bounded by
// LockOptions.Wait instead.
const maxLockAttempts = 100

// maxLockBackoff is the longest pause between two attempts while waiting for
// a live lock (OpenClaw: min(1 s, 50 ms × attempt)).
const maxLockBackoff = time.Second

// The reasons OpenClaw gives for a stale lock (staleReasons), in its words.
const (
	StaleMissingPID       = "missing-pid"
	StaleDeadPID          = "dead-pid"
	StaleRecycledPID      = "recycled-pid"
	StaleInvalidCreatedAt = "invalid-createdAt"
	StaleTooOld           = "too-old"
	StaleOrphanSelfPID    = "orphan-self-pid"
)

// LockOptions tune AcquireLock and InspectLock. The zero value is OpenClaw's
// defaults with no waiting and no forcing.
type LockOptions struct {
	// Force takes the lock over even when a live OpenClaw process holds it.
	// The taken-over lock is reported in Lock.Overridden.
	Force bool
	// Wait is how long AcquireLock waits for a live lock to go away before it
	// returns a *LiveLockError; 0 refuses at once.
	Wait time.Duration
	// StaleAfter is the age beyond which a lock is stale; 0 means
	// DefaultLockStaleAfter.
	StaleAfter time.Duration
	// Now is the clock (nil: time.Now). PID is the pid written into our lock
	// and compared with a lock's owner (0: os.Getpid()).
	Now func() time.Time
	PID int
}

func (o LockOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o LockOptions) pid() int {
	if o.PID > 0 {
		return o.PID
	}
	return os.Getpid()
}

func (o LockOptions) staleAfter() time.Duration {
	if o.StaleAfter > 0 {
		return o.StaleAfter
	}
	return DefaultLockStaleAfter
}

// LockInfo describes one OpenClaw write lock file as OpenClaw's
// inspectLockPayload sees it, plus whether OpenClaw's own acquire would
// reclaim it.
type LockInfo struct {
	Path string // the lock file
	// PID is the owner's pid (0 when the body has no valid positive
	// integer pid); PIDAlive reports whether that process still runs (not a
	// zombie). StartTime is the owner's recorded start time in clock ticks
	// when HasStartTime.
	PID          int
	PIDAlive     bool
	StartTime    uint64
	HasStartTime bool
	// CreatedAt is the body's createdAt string ("" when absent or not a
	// string); Age is now minus its time, clamped at 0, when AgeKnown.
	CreatedAt string
	Age       time.Duration
	AgeKnown  bool
	// Unreadable is true when the body could not be read or is not JSON
	// (OpenClaw then sees no pid and no createdAt).
	Unreadable bool
	// Stale and StaleReasons are OpenClaw's verdict (the Stale* constants,
	// in OpenClaw's order). `openclaw doctor --fix` removes stale locks.
	Stale        bool
	StaleReasons []string
	// Reclaimable is whether an acquiring process takes the lock over: a
	// stale lock whose only faults are a missing pid or createdAt counts
	// only once the file itself is older than the stale age, because a lock
	// that was just created has no body yet.
	Reclaimable bool
	// ModTime is the lock file's modification time.
	ModTime time.Time
	// HeldUntil is when a lock that is stale only for its body (no pid, no
	// valid createdAt) becomes reclaimable: ModTime plus the stale age.
	// Zero for other locks.
	HeldUntil time.Time

	raw []byte // the body as read, to recognise the same lock later
}

// String summarises the lock for messages, e.g.
// "pid 4242, created 2026-05-02T14:07:31.204Z (3m0s ago), stale: dead-pid".
func (i *LockInfo) String() string {
	var b strings.Builder
	switch {
	case i.PID > 0:
		fmt.Fprintf(&b, "pid %d", i.PID)
	case i.raw != nil && len(bytes.TrimSpace(i.raw)) == 0:
		b.WriteString("empty lock file, no pid")
	default:
		b.WriteString("no pid")
	}
	switch {
	case i.AgeKnown:
		fmt.Fprintf(&b, ", created %s (%s ago)", i.CreatedAt, i.Age.Round(time.Second))
	case i.CreatedAt != "":
		fmt.Fprintf(&b, ", created %q", i.CreatedAt)
	}
	if i.Stale {
		fmt.Fprintf(&b, ", stale: %s", strings.Join(i.StaleReasons, ", "))
	} else {
		b.WriteString(", live")
	}
	return b.String()
}

// LiveLockError is returned by AcquireLock when a live OpenClaw process
// holds the session's write lock and LockOptions.Force is false.
type LiveLockError struct {
	Info LockInfo
}

func (e *LiveLockError) Error() string {
	if what := e.Info.bodyFault(); what != "" {
		return fmt.Sprintf("%s: session is locked: %s; it counts as held until it is %s old (%s), unless --force takes it over",
			e.Info.Path, what, e.Info.HeldUntil.Sub(e.Info.ModTime).Round(time.Second), jsISOString(e.Info.HeldUntil))
	}
	return fmt.Sprintf("%s: session is locked by a running OpenClaw (%s)", e.Info.Path, e.Info.String())
}

// bodyFault says what is wrong with a lock that is held only because its
// file is young, though its body does not name a live owner; "" for any
// other lock.
func (i *LockInfo) bodyFault() string {
	if i.HeldUntil.IsZero() {
		return ""
	}
	switch {
	case i.raw != nil && len(bytes.TrimSpace(i.raw)) == 0:
		return "the lock file is empty (OpenClaw creates it before it writes its pid: another process is taking the lock now, or was killed while taking it)"
	case i.Unreadable:
		return "the lock file is not a readable JSON lock body"
	case i.PID == 0:
		return "the lock file names no pid"
	}
	return fmt.Sprintf("the lock file's createdAt is missing or invalid (its pid %d is running)", i.PID)
}

// Lock is OpenClaw's session write lock (<file>.lock) held by this process.
// While it is held, OpenClaw waits before it writes the session.
type Lock struct {
	// ReplacedStale lists the stale locks this acquisition removed, so the
	// caller can report them. Overridden lists live locks taken over because
	// of LockOptions.Force.
	ReplacedStale []LockInfo
	Overridden    []LockInfo

	held []heldLock
}

// heldPaths are the lock files this process holds, so a lock in our own pid
// is recognised as ours rather than as an orphan.
var heldPaths sync.Map // lock path → struct{}

func heldHere(lockPath string) bool {
	_, ok := heldPaths.Load(lockPath)
	return ok
}

type heldLock struct {
	path string
	body []byte
}

// LockPath is the write lock OpenClaw takes for the session file at path:
// the directory with its symlinks resolved (the path itself as given when
// that fails), the file's own base name, and ".lock".
func LockPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, filepath.Base(abs)+".lock")
}

// lockPathsFor lists the locks that protect path: OpenClaw's lock for the
// name given and, when path is a symlink to a file elsewhere, the lock an
// OpenClaw that opens the target directly would take.
func lockPathsFor(path string) []string {
	paths := []string{LockPath(path)}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		if tp := LockPath(target); tp != paths[0] {
			paths = append(paths, tp)
		}
	}
	return paths
}

// AcquireLock takes OpenClaw's write lock for the session file at path (and,
// for a symlink, the lock of its target too) by creating the lock file
// exclusively with OpenClaw's body. A stale lock is removed and listed in
// Lock.ReplacedStale. A live one makes AcquireLock wait up to opts.Wait and
// then return a *LiveLockError, unless opts.Force, which takes it over. Any
// other failure (e.g. a read-only directory) is returned with the lock
// path. On error no lock is held.
func AcquireLock(path string, opts LockOptions) (*Lock, error) {
	l := &Lock{}
	for _, lp := range lockPathsFor(path) {
		if err := l.acquireOne(lp, opts); err != nil {
			_ = l.Release()
			return nil, err
		}
	}
	return l, nil
}

func (l *Lock) acquireOne(lockPath string, opts LockOptions) error {
	deadline := opts.now().Add(opts.Wait)
	takeovers := 0 // locks that vanished or that we removed: bounded
	for attempt := 1; takeovers <= maxLockAttempts; attempt++ {
		body := lockBody(opts.pid(), opts.now())
		created, err := createLockFile(lockPath, body, opts.pid())
		if err != nil {
			return err
		}
		if created {
			l.held = append(l.held, heldLock{path: lockPath, body: body})
			heldPaths.Store(lockPath, struct{}{})
			return nil
		}
		info, err := inspectLockFile(lockPath, opts)
		if errors.Is(err, fs.ErrNotExist) {
			takeovers++
			continue // released between our create and our read
		}
		if err != nil {
			return err
		}
		switch {
		case info.Reclaimable:
			takeovers++
			if err := removeLockIfUnchanged(info); err != nil {
				return err
			}
			l.ReplacedStale = append(l.ReplacedStale, *info)
		case opts.Force:
			takeovers++
			if err := removeLockIfUnchanged(info); err != nil {
				return err
			}
			l.Overridden = append(l.Overridden, *info)
		case opts.now().Before(deadline):
			time.Sleep(min(maxLockBackoff, time.Duration(attempt)*50*time.Millisecond, deadline.Sub(opts.now())))
		default:
			return &LiveLockError{Info: *info}
		}
	}
	return fmt.Errorf("%s: could not take the write lock after %d attempts (other processes keep taking it)", lockPath, maxLockAttempts)
}

// linkLock is the hard-link call that publishes a lock, and removeLock the
// call that deletes ours on release (seams for tests).
var (
	linkLock   = os.Link
	removeLock = os.Remove
)

// createLockFile creates lockPath exclusively with body and reports false,
// nil when it already exists. The body is written to a temp file first and
// published with link(2), which fails if the name exists: the lock appears
// complete or not at all. A process killed between OpenClaw's plain O_EXCL
// create and its write leaves an empty lock, which OpenClaw and we must
// treat as live for 30 minutes. Where hard links are impossible, the plain
// exclusive create is the fallback.
func createLockFile(lockPath string, body []byte, pid int) (bool, error) {
	dir, base := filepath.Split(lockPath)
	tmp, _, err := createExclusive(dir, tempName(strings.TrimSuffix(base, ".lock"), pid), 0o666)
	if err != nil {
		return false, fmt.Errorf("%s: create write lock: %w", lockPath, err)
	}
	_, werr := tmp.Write(body)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		_ = os.Remove(tmp.Name())
		return false, fmt.Errorf("%s: write lock body: %w", lockPath, err)
	}
	err = linkLock(tmp.Name(), lockPath)
	_ = os.Remove(tmp.Name())
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, nil
	}
	return createLockFileInPlace(lockPath, body)
}

// createLockFileInPlace is OpenClaw's own way: an exclusive create, then the
// body. A half-written lock is removed, as OpenClaw does.
func createLockFileInPlace(lockPath string, body []byte) (bool, error) {
	f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: create write lock: %w", lockPath, err)
	}
	_, werr := f.Write(body)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(lockPath)
		return false, fmt.Errorf("%s: write lock body: %w", lockPath, err)
	}
	return true, nil
}

// removeLockIfUnchanged deletes a lock we decided to take over, unless its
// body changed since we inspected it (its owner released it and another
// process took it meanwhile). The check narrows, but like OpenClaw's own
// reclaim cannot close, the window between reading and removing.
func removeLockIfUnchanged(info *LockInfo) error {
	now, err := os.ReadFile(info.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil && !bytes.Equal(now, info.raw) {
		return nil // someone else's fresh lock: the next attempt inspects it
	}
	if err := os.Remove(info.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: remove stale write lock: %w", info.Path, err)
	}
	return nil
}

// Release removes the lock files this process still owns. A lock file whose
// body is no longer ours (another process took it over) is left alone.
// Release is idempotent.
func (l *Lock) Release() error {
	var errs []error
	for i := len(l.held) - 1; i >= 0; i-- {
		h := l.held[i]
		heldPaths.Delete(h.path)
		cur, err := os.ReadFile(h.path)
		if err == nil && bytes.Equal(cur, h.body) {
			err = removeLock(h.path)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("%s: release write lock: %w", h.path, err))
		}
	}
	l.held = nil
	return errors.Join(errs...)
}

// lockBody is OpenClaw's lock payload, JSON.stringify(payload, null, 2):
// pid, createdAt as toISOString(), and starttime where the platform has it.
func lockBody(pid int, now time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"pid\": %d,\n  \"createdAt\": \"%s\"", pid, jsISOString(now))
	if st, ok := processStartTime(pid); ok {
		fmt.Fprintf(&b, ",\n  \"starttime\": %d", st)
	}
	b.WriteString("\n}")
	return b.Bytes()
}

// jsISOString formats t as JavaScript's Date.prototype.toISOString does for
// years 0–9999: UTC, milliseconds, "Z".
func jsISOString(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// InspectLock reports the write lock OpenClaw would take for the session
// file at path: nil, nil when there is none.
func InspectLock(path string, opts LockOptions) (*LockInfo, error) {
	info, err := inspectLockFile(LockPath(path), opts)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return info, err
}

func inspectLockFile(lockPath string, opts LockOptions) (*LockInfo, error) {
	st, err := os.Stat(lockPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, danglingLock(lockPath, err)
		}
		return nil, fmt.Errorf("%s: inspect write lock: %w", lockPath, err)
	}
	raw, err := os.ReadFile(lockPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	info := &LockInfo{Path: lockPath, ModTime: st.ModTime(), raw: raw, Unreadable: err != nil}
	if err == nil {
		info.Unreadable = !readLockPayload(raw, info)
	}
	judgeLock(info, opts)
	return info, nil
}

// danglingLock is a *DanglingLockError when lockPath is a symlink to
// nothing (it exists, so no lock can be created there, yet cannot be
// read), and err otherwise.
func danglingLock(lockPath string, err error) error {
	if fi, lerr := os.Lstat(lockPath); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(lockPath)
		return &DanglingLockError{Path: lockPath, Target: target}
	}
	return err
}

// DanglingLockError means the write lock's path is a symlink to a file
// that does not exist: no lock can be taken there until it is removed.
type DanglingLockError struct {
	Path, Target string
}

func (e *DanglingLockError) Error() string {
	return fmt.Sprintf("%s: cannot take the write lock: the lock path is a dangling symlink (to %q); remove it if no OpenClaw uses it", e.Path, e.Target)
}

// readLockPayload fills pid, createdAt and starttime from a lock body the
// way OpenClaw's readLockPayload keeps them: pid a positive integer,
// starttime a non-negative integer, createdAt any string. It reports false
// when the body is not JSON.
func readLockPayload(raw []byte, info *LockInfo) bool {
	v, err := jsonl.Parse(raw)
	if err != nil {
		return false
	}
	if pid, ok := lockInteger(v.Get("pid")); ok && pid > 0 {
		info.PID = int(pid)
	}
	if c, ok := v.GetStr("createdAt"); ok {
		info.CreatedAt = c
	}
	if st, ok := lockInteger(v.Get("starttime")); ok {
		info.StartTime, info.HasStartTime = uint64(st), true
	}
	return true
}

// lockInteger is OpenClaw's isValidLockNumber: a JSON number that is a
// non-negative integer.
func lockInteger(v *jsonl.Value) (float64, bool) {
	f, ok := v.Float()
	if !ok || !v.IsNumber() {
		return 0, false
	}
	if f < 0 || f != math.Trunc(f) || math.IsInf(f, 0) || f > 1<<53 {
		return 0, false
	}
	return f, true
}

// judgeLock applies OpenClaw's inspectLockPayload, its orphan-self-pid rule
// and its mtime fallback for locks that have no body yet.
func judgeLock(info *LockInfo, opts LockOptions) {
	now := opts.now()
	if info.PID > 0 {
		info.PIDAlive = pidAlive(info.PID)
	}
	if t, ok := parseJSDate(info.CreatedAt); ok && info.CreatedAt != "" {
		info.Age, info.AgeKnown = max(0, now.Sub(t)), true
	}
	switch {
	case info.PID == 0:
		info.StaleReasons = append(info.StaleReasons, StaleMissingPID)
	case !info.PIDAlive:
		info.StaleReasons = append(info.StaleReasons, StaleDeadPID)
	case pidRecycled(info):
		info.StaleReasons = append(info.StaleReasons, StaleRecycledPID)
	}
	switch {
	case !info.AgeKnown:
		info.StaleReasons = append(info.StaleReasons, StaleInvalidCreatedAt)
	case info.Age > opts.staleAfter():
		info.StaleReasons = append(info.StaleReasons, StaleTooOld)
	}
	info.Stale = len(info.StaleReasons) > 0
	info.Reclaimable = info.Stale
	// A lock in our own pid that records no start time and that this
	// process does not hold was left by an earlier process with our pid;
	// OpenClaw reclaims it too.
	if info.PID == opts.pid() && !info.HasStartTime && !heldHere(info.Path) {
		info.Stale, info.Reclaimable = true, true
		info.StaleReasons = append(info.StaleReasons, StaleOrphanSelfPID)
	} else if info.Stale && onlyBodyFaults(info.StaleReasons) {
		info.Reclaimable = now.Sub(info.ModTime) > opts.staleAfter()
		if !info.Reclaimable {
			info.HeldUntil = info.ModTime.Add(opts.staleAfter())
		}
	}
}

// pidRecycled is true when the owner's pid is alive but belongs to a process
// that started at another time than the one recorded in the lock.
func pidRecycled(info *LockInfo) bool {
	if !info.PIDAlive || !info.HasStartTime {
		return false
	}
	cur, ok := processStartTime(info.PID)
	return ok && cur != info.StartTime
}

// onlyBodyFaults reports whether every reason is about a missing or
// unreadable body (missing pid, invalid createdAt).
func onlyBodyFaults(reasons []string) bool {
	for _, r := range reasons {
		if r != StaleMissingPID && r != StaleInvalidCreatedAt {
			return false
		}
	}
	return true
}

// parseJSDate is JavaScript's Date.parse for the ISO forms OpenClaw writes
// (it always writes toISOString()), shared with the session loader.
func parseJSDate(s string) (time.Time, bool) {
	ms, ok := session.ParseDateMillis(s)
	if !ok {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}
