package repair

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Options configure [RepairFile], [RepairTo] and [RepairStream].
type Options struct {
	// DryRun plans the repair without writing anything and without taking
	// the lock; Result.Repaired then means "would be rewritten".
	DryRun bool
	// KeepBackup keeps the .bak-<pid>-<ms> sibling after a replace.
	KeepBackup bool
	// Force takes over a live OpenClaw write lock, and replaces a file
	// whose owner this process cannot keep (Result.OwnerChange).
	Force bool
	// Now and UUID are the clock and the UUID v4 source of synthetic tool
	// results (nil: the real clock and crypto/rand).
	Now  func() time.Time
	UUID func() string
	// OnVerdict, when set, sees every line that is not simply kept, during
	// the first pass (see [Analyze]).
	OnVerdict func(Verdict)
	// Context, when set, stops the first pass at its next read once it is
	// done: nothing is written and the file is left as it was.
	Context context.Context
	// LostFound, when set, saves every line a repair in place drops or
	// rewrites in a lost-and-found record before the file is replaced
	// (Result.LostFoundPath); when the record cannot be written the file is
	// not repaired. Dry runs and RepairTo/RepairStream write none.
	LostFound *LostFound
	// Lock and Replace tune the lock and the safe replace (tests); Force
	// and KeepBackup above take precedence over their fields.
	Lock    LockOptions
	Replace ReplaceOptions
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) uuid() string {
	if o.UUID != nil {
		return o.UUID()
	}
	return session.RandomUUID()
}

// Result is OpenClaw's result object for one file (docs/fix.md), plus
// what openclaw-doctor adds around it.
type Result struct {
	Path string // the path as given
	// Repaired is true when the file was rewritten (for a dry run: would
	// be).
	Repaired bool
	// Reason is OpenClaw's reason for not repairing ("missing session
	// file", "failed to read session file: …", "empty session file",
	// "invalid session header", "repair failed: …"), or "".
	Reason string
	Counts
	// BackupPath is the backup left beside the file (kept on request, or
	// because deleting it failed, or because of a concurrent writer).
	BackupPath string
	// Plan is the first pass's plan (empty when the file could not be read).
	Plan Plan
	// LostFoundPath is the lost-and-found record of the lines the repair
	// dropped or rewrote ("" when none was written).
	LostFoundPath string
	// BackupCleanupErr is why the backup could not be deleted after a
	// successful replace (the backup is then kept: BackupPath).
	BackupCleanupErr error
	// Lock reports stale locks replaced and live locks taken over.
	ReplacedStaleLocks, OverriddenLocks []LockInfo
	// LockReleaseErr is why the write lock could not be removed after the
	// repair (the <file>.lock is then left behind).
	LockReleaseErr error
	// OtherLinks counts the file's other hard links: the repair gives
	// only the name repaired the new content, the others keep the old.
	OtherLinks int
	// OwnerChange is set when the repaired file did not keep (for a dry
	// run: could not keep) the original's owner and group; a repair only
	// goes ahead that way with Force.
	OwnerChange *OwnerError
}

// ErrLocked wraps the *LiveLockError of a refused repair.
var ErrLocked = errors.New("session is locked")

// RepairFile repairs the session file at path in place, as OpenClaw's
// repairSessionFileIfNeeded does, holding OpenClaw's write lock from before
// the first read until the file is replaced. The result carries OpenClaw's
// reason for an early exit (the file is then untouched); the error is
// non-nil only when the repair was attempted and failed (Result.Reason
// then starts "repair failed: ") or when a live lock refused it (wrapping
// [ErrLocked] and the *LiveLockError; Result.Reason is its message; a dry
// run, which takes no lock, is refused by a live lock the same way). A file that needs nothing is not
// touched at all: same bytes, same mtime.
func RepairFile(path string, opts Options) (res Result, err error) {
	res = Result{Path: path}
	abs, reason := locate(path)
	if reason != "" {
		res.Reason = reason
		return res, nil
	}
	if opts.DryRun && !opts.Force {
		if live := refusingLock(abs, opts.Lock); live != nil {
			res.Reason = live.Error() // what the repair itself would answer
			return res, fmt.Errorf("%w: %w", ErrLocked, live)
		}
	}
	if !opts.DryRun {
		lockOpts := opts.Lock
		lockOpts.Force = opts.Force
		lock, err := AcquireLock(abs, lockOpts)
		if err != nil {
			var live *LiveLockError
			if errors.As(err, &live) {
				res.Reason = live.Error()
				return res, fmt.Errorf("%w: %w", ErrLocked, err)
			}
			res.Reason = "repair failed: " + err.Error()
			return res, err
		}
		defer func() { res.LockReleaseErr = lock.Release() }()
		res.ReplacedStaleLocks, res.OverriddenLocks = lock.ReplacedStale, lock.Overridden
	}
	snap, err := TakeSnapshot(abs)
	if err != nil {
		res.Reason = readFailure(err, abs)
		return res, nil
	}
	res.OtherLinks = int(snap.Links) - 1
	plan, err := analyzeFile(opts.context(), abs, opts.OnVerdict)
	if err != nil {
		res.Reason = readFailure(err, abs)
		return res, nil
	}
	res.Plan = plan
	if !fillPlanned(&res, &plan) {
		return res, nil
	}
	if opts.DryRun {
		res.OwnerChange = OwnerKeepable(snap)
		return res, nil
	}
	return replaceFile(res, abs, snap, &plan, opts)
}

// refusingLock is the live write lock that would refuse a repair of the
// session at abs (AcquireLock's judgement, without waiting), or nil; a dry
// run tells that truth without taking the lock.
func refusingLock(abs string, opts LockOptions) *LiveLockError {
	for _, lp := range lockPathsFor(abs) {
		if info, err := inspectLockFile(lp, opts); err == nil && !info.Reclaimable {
			return &LiveLockError{Info: *info}
		}
	}
	return nil
}

// fillPlanned copies the plan's outcome into res the way OpenClaw reports
// it and reports whether a rewrite is needed.
func fillPlanned(res *Result, plan *Plan) bool {
	switch {
	case plan.Reason != "":
		res.Reason = plan.Reason
		res.DroppedLines = plan.Counts.DroppedLines // early exits carry only droppedLines
		return false
	case !plan.NeedsRewrite():
		return false
	}
	res.Repaired, res.Counts = true, plan.Counts
	return true
}

// replaceFile is the second pass written through the safe replace.
func replaceFile(res Result, abs string, snap Snapshot, plan *Plan, opts Options) (Result, error) {
	ropts := opts.Replace
	ropts.KeepBackup = opts.KeepBackup
	ropts.AllowOwnerChange = opts.Force
	if opts.LostFound != nil && len(plan.Edits) > 0 {
		path, err := writeLostFound(opts.LostFound, snap, plan)
		if err != nil {
			return failedReplace(res, err), err
		}
		res.LostFoundPath = path
	}
	write := func(w io.Writer) error {
		f, err := os.Open(snap.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		return WriteRepaired(w, f, plan, opts.now, opts.uuid)
	}
	rr, err := Replace(abs, snap, write, ropts)
	res.BackupPath, res.BackupCleanupErr, res.OwnerChange = rr.BackupPath, rr.BackupCleanupErr, rr.OwnerChange
	if err != nil && !rr.Replaced {
		if res.LostFoundPath != "" {
			_ = os.Remove(res.LostFoundPath) // the session keeps every line
			res.LostFoundPath = ""
		}
		return failedReplace(res, err), err
	}
	return res, err // after the rename an error is a warning: the file is repaired
}

// failedReplace is OpenClaw's result for a repair that failed before the
// file was replaced.
func failedReplace(res Result, err error) Result {
	res.Repaired = false
	res.InsertedToolResults = 0 // OpenClaw's failure result has no insertedToolResults
	res.Reason = "repair failed: " + err.Error()
	return res
}

// locate resolves path and probes the file, as OpenClaw does before a
// repair: the absolute path, or OpenClaw's reason for leaving it alone.
func locate(path string) (abs, reason string) {
	if abs, reason = resolvePath(path); reason != "" {
		return "", reason
	}
	return abs, probe(abs)
}

// RepairTo writes the repaired content of the session file at path to w
// without touching the file: the file's own bytes, unchanged, when nothing
// needs (or can be) repaired. The result is what RepairFile would report.
func RepairTo(w io.Writer, path string, opts Options) (Result, error) {
	res := Result{Path: path}
	abs, reason := locate(path)
	if reason != "" {
		res.Reason = reason
		return res, nil
	}
	f, err := os.Open(abs)
	if err != nil {
		res.Reason = readFailure(err, abs)
		return res, nil
	}
	defer f.Close()
	return repairStream(res, w, f, abs, opts)
}

// RepairStream is RepairTo for content without a file name of its own
// (standard input spooled to a temp file that is already unlinked): it
// reads r twice, rewinding it in between, and names the content path in
// errors. With opts.DryRun it only plans the repair and writes nothing.
func RepairStream(w io.Writer, r io.ReadSeeker, path string, opts Options) (Result, error) {
	return repairStream(Result{Path: path}, w, r, path, opts)
}

// repairStream is the two passes of RepairTo over r, whose name in errors
// is name: r is read twice, rewound in between.
func repairStream(res Result, w io.Writer, r io.ReadSeeker, name string, opts Options) (Result, error) {
	cr := jsonl.WithContext(opts.context(), r) // both passes stop at their next read once it is done
	plan, err := Analyze(cr, opts.OnVerdict)
	if err == nil {
		_, err = cr.Seek(0, io.SeekStart)
	}
	if err != nil {
		res.Reason = readFailure(err, name)
		return res, nil
	}
	res.Plan = plan
	needed := fillPlanned(&res, &plan)
	switch {
	case opts.DryRun:
		return res, nil
	case !needed:
		var in inputCopier
		_, err := in.copy(w, cr, -1)
		return res, err
	}
	if err := WriteRepaired(w, cr, &plan, opts.now, opts.uuid); err != nil {
		return res, fmt.Errorf("%s: %w", res.Path, err)
	}
	return res, nil
}

// analyzeFile runs the first pass over the file at path.
func analyzeFile(ctx context.Context, path string, onVerdict func(Verdict)) (Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return Plan{}, err
	}
	defer f.Close()
	return Analyze(jsonl.WithContext(ctx, f), onVerdict)
}

// context is o.Context, or a context that is never done.
func (o *Options) context() context.Context {
	if o.Context == nil {
		return context.Background()
	}
	return o.Context
}

// resolvePath absolutizes path; an empty path is a missing file. Unlike
// OpenClaw, which trims the path first, the name is taken byte for byte: a
// session named " s.jsonl" is that file, never "s.jsonl" (docs/fix.md).
func resolvePath(path string) (string, string) {
	if path == "" {
		return "", ReasonMissing
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", ReasonMissing
	}
	return abs, ""
}

// probe reports OpenClaw's reason when the file cannot be read at all:
// missing, a directory, unreadable, or neither a regular file nor a
// directory (a pipe or a device: it is not opened, since opening a pipe
// waits for a writer).
func probe(abs string) string {
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return "failed to read session file: " + abs + ": not a regular file"
	}
	f, err := os.Open(abs)
	if err != nil {
		return readFailure(err, abs)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return readFailure(&fs.PathError{Op: "read", Path: abs, Err: syscall.EISDIR}, abs)
	}
	return ""
}

// readFailure turns a read error into OpenClaw's reason: "missing session
// file" for a missing file, otherwise "failed to read session file: " and
// the message Node gives for the same error.
func readFailure(err error, abs string) string {
	if errors.Is(err, fs.ErrNotExist) {
		return ReasonMissing
	}
	return "failed to read session file: " + nodeErrorMessage(err, abs)
}

// nodeErrorMessage renders common errors the way Node's fs errors read
// ("EACCES: permission denied, open '/x'"), so reasons match OpenClaw's.
func nodeErrorMessage(err error, abs string) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	op := "open"
	var pe *fs.PathError
	if errors.As(err, &pe) {
		op = pe.Op
	}
	switch errno {
	case syscall.EISDIR:
		return "EISDIR: illegal operation on a directory, read"
	case syscall.EACCES:
		return fmt.Sprintf("EACCES: permission denied, %s '%s'", op, abs)
	case syscall.ENOTDIR:
		return fmt.Sprintf("ENOTDIR: not a directory, %s '%s'", op, abs)
	case syscall.ELOOP:
		return fmt.Sprintf("ELOOP: too many symbolic links encountered, %s '%s'", op, abs)
	}
	return err.Error()
}
