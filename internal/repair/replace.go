package repair

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The safe replace, in one documented sequence (docs/safety.md):
//
//  1. The caller holds the session's write lock (AcquireLock) and took a
//     Snapshot before reading the file.
//  2. The new content is written to "<base>.repair.<pid>.<uuid>.tmp" in the
//     same directory (a rename is atomic only within one file system),
//     created exclusively and given the original's owner where permitted
//     (when it cannot keep the owner, the replace stops there unless
//     ReplaceOptions.AllowOwnerChange), then written, then given the
//     original's exact mode (after the last write: a write by a process
//     without CAP_FSETID clears set-id bits, and so does a chown), then
//     fsynced and closed (fsync before rename, or a crash can leave a
//     renamed but empty file: Ts'o, ext4 delayed allocation).
//  3. The backup "<file>.bak-<pid>-<ms>" is made a hard link to the original:
//     same inode, so it holds the original bytes and mode, and whatever a
//     lock-ignoring writer appends through a descriptor it already has open
//     lands in it. Where links are impossible it is an fsynced byte copy.
//     The directory is fsynced so the backup exists before the rename can.
//  4. Immediately before the rename, the original is compared with the
//     snapshot (inode, size, mtime); any change aborts.
//  5. rename(temp, file), then fsync the directory (renameio and POSIX give
//     atomicity, not durability: restic's fsyncDir).
//  6. If the old inode grew or changed after all, the backup is kept and the
//     appended bytes are reported. Otherwise the backup is deleted unless
//     asked to keep it; a failed delete keeps it and reports its path
//     (OpenClaw's behaviour).
//
// Any failure before the rename leaves the original byte-identical and
// removes the temp file and the backup.

// Step names a point in the replace sequence where ReplaceOptions.Hook runs.
type Step string

// The points where ReplaceOptions.Hook is called, in order.
const (
	StepTempWritten Step = "temp-written" // temp file written, fsynced and closed
	StepBackedUp    Step = "backed-up"    // backup link or copy made and its directory entry synced
	StepChecked     Step = "checked"      // original found unchanged; the rename comes next
	StepRenamed     Step = "renamed"      // temp renamed over the original
)

// ReplaceOptions tune Replace. The zero value deletes the backup after a
// successful replace.
type ReplaceOptions struct {
	// KeepBackup keeps the .bak-<pid>-<ms> sibling after a successful
	// replace (--keep-backup).
	KeepBackup bool
	// PID names the temp and backup files (0: os.Getpid()); Now gives the
	// backup's milliseconds (nil: time.Now).
	PID int
	Now func() time.Time
	// Hook, for tests, runs at each Step. An error returned before the
	// rename aborts the replace there, as a failure of that step would;
	// after the rename it is ignored.
	Hook func(Step) error
	// AllowOwnerChange replaces the file even when the new one cannot get
	// the original's owner and group (this process is neither root nor
	// permitted to give them): it is then owned by this process, and
	// ReplaceResult.OwnerChange says so. Without it such a replace stops
	// with an *OwnerError before anything is replaced.
	AllowOwnerChange bool
}

func (o ReplaceOptions) pid() int {
	if o.PID > 0 {
		return o.PID
	}
	return os.Getpid()
}

func (o ReplaceOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o ReplaceOptions) hook(s Step) error {
	if o.Hook == nil {
		return nil
	}
	return o.Hook(s)
}

// ReplaceResult says what Replace did.
type ReplaceResult struct {
	// Path is the file replaced: the symlink target when the caller named a
	// link (the link itself stays).
	Path string
	// Replaced is true once the new content is in place (the rename
	// happened), even when Replace also returns an error about what came
	// after.
	Replaced     bool
	BytesWritten int64
	// BackupPath is set when the backup still exists: kept on request,
	// because a concurrent writer was detected, because its deletion
	// failed (BackupCleanupErr), or because durability is in doubt.
	BackupPath       string
	BackupCleanupErr error
	// BackupCopied is true when a hard link was impossible and the backup
	// is a byte copy of the original.
	BackupCopied bool
	// AppendedBytes counts bytes a lock-ignoring writer appended to the
	// original after it was checked; they are at the end of the kept
	// backup, from offset Snapshot.Size.
	AppendedBytes int64
	// OwnerChange is set when the new file could not keep the original's
	// owner or group (only with ReplaceOptions.AllowOwnerChange).
	OwnerChange *OwnerError
}

// OwnerError means the replaced file could not keep the original's owner
// and group: this process may not give them (only root may give a file
// away, and a group only to its members).
type OwnerError struct {
	Path           string
	UID, GID       int // the original's
	NewUID, NewGID int // what the new file gets
	ProcUID        int // this process's effective uid
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("%s: owned by uid %d gid %d; a repair by uid %d cannot keep that owner and would give the file to uid %d gid %d; nothing was replaced (--force repairs it anyway and changes the owner, or run as the owner or root)",
		e.Path, e.UID, e.GID, e.ProcUID, e.NewUID, e.NewGID)
}

// Change describes a permitted owner change, for a warning.
func (e *OwnerError) Change() string {
	return fmt.Sprintf("%s: its owner changed from uid %d gid %d to uid %d gid %d (this process may not keep the original owner)",
		e.Path, e.UID, e.GID, e.NewUID, e.NewGID)
}

// ChangedError means the file changed between the snapshot and the rename
// (another writer, or a replaced symlink), so nothing was replaced.
type ChangedError struct {
	Path   string
	Detail string // e.g. "size 1200 → 1350 bytes"
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s: changed since it was read (%s); nothing was replaced", e.Path, e.Detail)
}

// ConcurrentWriteError means the file was replaced but a writer that ignores
// OpenClaw's write lock wrote to the old file after the last check: its
// bytes are in the kept backup.
type ConcurrentWriteError struct {
	Path          string
	BackupPath    string
	AppendedBytes int64 // bytes added to the old file (≤ 0 when it was rewritten in place)
}

func (e *ConcurrentWriteError) Error() string {
	if e.AppendedBytes > 0 {
		return fmt.Sprintf("%s: another process appended %d bytes while it was being replaced; they are at the end of %s", e.Path, e.AppendedBytes, e.BackupPath)
	}
	return fmt.Sprintf("%s: another process modified the file while it was being replaced; its version is in %s", e.Path, e.BackupPath)
}

// Snapshot records what the original looked like when it was read. Take it
// before reading, so any write after the read shows up as a change.
type Snapshot struct {
	Path    string // the regular file itself: absolute, symlinks resolved
	Size    int64
	ModTime time.Time
	Mode    fs.FileMode
	// Links is the file's number of hard links: a replace gives only the
	// name it replaces the new content; other links keep the old inode.
	Links uint64
	info  fs.FileInfo // identity (device and inode) for os.SameFile
}

// TakeSnapshot resolves path's symlinks and records the target's identity,
// size, mtime, mode and owner. The target must be a regular file.
func TakeSnapshot(path string) (Snapshot, error) {
	target, err := resolveTarget(path)
	if err != nil {
		return Snapshot{}, err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return Snapshot{}, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return Snapshot{}, fmt.Errorf("%s: not a regular file", path)
	}
	pinIdentity(fi)
	return Snapshot{Path: target, Size: fi.Size(), ModTime: fi.ModTime(), Mode: fi.Mode(), Links: fileLinks(fi), info: fi}, nil
}

func resolveTarget(path string) (string, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s: resolve symlinks: %w", path, err)
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return abs, nil
}

// Seams for fault tests: making links or deleting the backup can fail in
// ways a test running as root cannot provoke otherwise.
var (
	linkFile   = os.Link
	removeFile = os.Remove
)

// Replace writes the content produced by write into a temp file beside the
// snapshot's file and atomically replaces that file with it, following the
// sequence documented at the top of this file. path is the name the caller
// used (a symlink is replaced at its target and stays a link); snap must
// have been taken from it before it was read. Errors name the file and the
// step that failed; a *ChangedError means nothing was replaced; a
// *ConcurrentWriteError means the replace happened and a lock-ignoring
// writer's bytes are in the kept backup (see ReplaceResult.Replaced).
func Replace(path string, snap Snapshot, write func(io.Writer) error, opts ReplaceOptions) (ReplaceResult, error) {
	r := &replacer{snap: snap, opts: opts, dir: filepath.Dir(snap.Path)}
	r.res.Path = snap.Path
	if target, err := resolveTarget(path); err != nil {
		return r.res, err
	} else if target != snap.Path {
		return r.res, &ChangedError{Path: path, Detail: "now resolves to " + target + " instead of " + snap.Path}
	}
	err := r.beforeRename(write)
	if err != nil {
		r.abort()
		return r.res, err
	}
	return r.res, r.afterRename()
}

// replacer carries one Replace through its steps.
type replacer struct {
	snap Snapshot
	opts ReplaceOptions
	dir  string
	res  ReplaceResult

	tempPath   string
	backupPath string
	backupLen  int64    // bytes in a copied backup
	old        *os.File // the original inode, watched for late writers
}

// beforeRename runs steps 2–5 up to and including the rename.
func (r *replacer) beforeRename(write func(io.Writer) error) error {
	if err := r.writeTemp(write); err != nil {
		return err
	}
	if err := r.opts.hook(StepTempWritten); err != nil {
		return err
	}
	if err := r.openOld(); err != nil {
		return err
	}
	if err := r.makeBackup(); err != nil {
		return err
	}
	if err := r.opts.hook(StepBackedUp); err != nil {
		return err
	}
	if err := r.checkUnchanged(); err != nil {
		return err
	}
	if err := r.opts.hook(StepChecked); err != nil {
		return err
	}
	if !holdOldAcrossRename {
		r.closeOld() // Windows cannot rename over a file that is open
	}
	if err := os.Rename(r.tempPath, r.snap.Path); err != nil {
		return fmt.Errorf("%s: rename %s over it: %w", r.snap.Path, filepath.Base(r.tempPath), err)
	}
	r.res.Replaced = true
	r.tempPath = ""
	return nil
}

// abort undoes a replace that failed before its rename: the temp file and
// the backup go, the original was never touched.
func (r *replacer) abort() {
	r.closeOld()
	if r.tempPath != "" {
		_ = os.Remove(r.tempPath)
	}
	if r.backupPath != "" {
		_ = removeFile(r.backupPath)
	}
}

func (r *replacer) closeOld() {
	if r.old != nil {
		_ = r.old.Close()
		r.old = nil
	}
}

// afterRename makes the rename durable, looks for late writers and deals
// with the backup (step 6).
func (r *replacer) afterRename() error {
	defer r.closeOld()
	_ = r.opts.hook(StepRenamed)
	if err := fsyncDir(r.dir); err != nil {
		r.res.BackupPath = r.backupPath
		return fmt.Errorf("%s: replaced, but syncing its directory failed, so the backup %s is kept: %w", r.snap.Path, r.backupPath, err)
	}
	if err := r.checkLateWrites(); err != nil {
		return err
	}
	if r.opts.KeepBackup {
		r.res.BackupPath = r.backupPath
		return nil
	}
	if err := removeFile(r.backupPath); err != nil {
		r.res.BackupPath = r.backupPath
		r.res.BackupCleanupErr = fmt.Errorf("%s: delete backup: %w", r.backupPath, err)
	}
	return nil
}

// writeTemp creates the temp file with the original's mode and owner,
// streams the new content into it and makes it durable.
func (r *replacer) writeTemp(write func(io.Writer) error) error {
	f, name, err := createExclusive(r.dir, tempName(filepath.Base(r.snap.Path), r.opts.pid()), r.snap.Mode)
	if err != nil {
		return fmt.Errorf("%s: create temp file: %w", r.snap.Path, err)
	}
	r.tempPath = name
	err = r.fillTemp(f, write)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: close temp file %s: %w", r.snap.Path, filepath.Base(name), cerr)
	}
	return err
}

func (r *replacer) fillTemp(f *os.File, write func(io.Writer) error) error {
	if change := matchOwner(f, r.snap); change != nil {
		if !r.opts.AllowOwnerChange {
			return change
		}
		r.res.OwnerChange = change
	}
	cw := &countingWriter{w: f}
	bw := bufio.NewWriterSize(cw, 1<<20)
	if err := write(bw); err != nil {
		return fmt.Errorf("%s: write temp file: %w", r.snap.Path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: write temp file: %w", r.snap.Path, err)
	}
	r.res.BytesWritten = cw.n
	if err := matchMode(f, r.snap); err != nil {
		return fmt.Errorf("%s: set mode of temp file: %w", r.snap.Path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%s: sync temp file: %w", r.snap.Path, err)
	}
	return nil
}

// openOld opens the original so the inode can be watched after the rename
// (and read for a copied backup), and checks it is still the snapshot's.
func (r *replacer) openOld() error {
	f, err := os.Open(r.snap.Path)
	if err != nil {
		return fmt.Errorf("%s: reopen original: %w", r.snap.Path, err)
	}
	r.old = f
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: stat original: %w", r.snap.Path, err)
	}
	if !os.SameFile(fi, r.snap.info) {
		return &ChangedError{Path: r.snap.Path, Detail: "replaced by another file"}
	}
	return nil
}

// makeBackup links the backup to the original, or copies it where a link
// is impossible, and syncs the directory entry.
func (r *replacer) makeBackup() error {
	name := fmt.Sprintf("%s.bak-%d-%d", r.snap.Path, r.opts.pid(), r.opts.now().UnixMilli())
	if err := linkFile(r.snap.Path, name); err == nil {
		r.backupPath = name
		if err := r.checkBackupIsOriginal(); err != nil {
			return err
		}
	} else if err := r.copyBackup(name); err != nil {
		return err
	}
	if err := fsyncDir(r.dir); err != nil {
		return fmt.Errorf("%s: sync directory after creating backup: %w", r.snap.Path, err)
	}
	return nil
}

// checkBackupIsOriginal guards against the name having been replaced
// between opening the original and linking it.
func (r *replacer) checkBackupIsOriginal() error {
	fi, err := os.Lstat(r.backupPath)
	if err != nil {
		return fmt.Errorf("%s: stat backup: %w", r.backupPath, err)
	}
	if !os.SameFile(fi, r.snap.info) {
		return &ChangedError{Path: r.snap.Path, Detail: "replaced by another file"}
	}
	return nil
}

// copyBackup writes the original's bytes, read through the descriptor
// opened from the snapshot's inode, into a new file with its mode, fsynced.
func (r *replacer) copyBackup(name string) error {
	f, _, err := createExclusive(r.dir, filepath.Base(name), r.snap.Mode)
	if err != nil {
		return fmt.Errorf("%s: create backup: %w", r.snap.Path, err)
	}
	r.backupPath = name
	r.res.BackupCopied = true
	_ = matchOwner(f, r.snap) // a backup that cannot keep the owner is still a backup
	r.backupLen, err = io.Copy(f, io.NewSectionReader(r.old, 0, 1<<62))
	if err == nil {
		err = matchMode(f, r.snap) // after the last write, which may clear set-id bits
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: copy original to backup %s: %w", r.snap.Path, filepath.Base(name), err)
	}
	return nil
}

// checkUnchanged compares the file now at the path, and the inode we hold,
// with the snapshot: same inode, size and mtime.
func (r *replacer) checkUnchanged() error {
	fi, err := os.Lstat(r.snap.Path)
	if err != nil {
		return fmt.Errorf("%s: stat before rename: %w", r.snap.Path, err)
	}
	if !os.SameFile(fi, r.snap.info) {
		return &ChangedError{Path: r.snap.Path, Detail: "replaced by another file"}
	}
	if d := describeChange(r.snap, fi); d != "" {
		return &ChangedError{Path: r.snap.Path, Detail: d}
	}
	if r.res.BackupCopied && fi.Size() != r.backupLen {
		return &ChangedError{Path: r.snap.Path, Detail: "written to while it was being backed up"}
	}
	return nil
}

// describeChange says how fi differs from the snapshot, "" when size and
// mtime are unchanged.
func describeChange(snap Snapshot, fi fs.FileInfo) string {
	switch {
	case fi.Size() != snap.Size:
		return fmt.Sprintf("size %d → %d bytes", snap.Size, fi.Size())
	case !fi.ModTime().Equal(snap.ModTime):
		return fmt.Sprintf("modified at %s", fi.ModTime().Format(time.RFC3339Nano))
	}
	return ""
}

// checkLateWrites looks at the old inode after the rename: a writer that
// ignores the lock and held the file open may have written to it after the
// check. Its bytes are then in the backup (the same inode, or appended to
// the copy), which is kept.
func (r *replacer) checkLateWrites() error {
	fi, err := r.oldInodeStat()
	if err != nil || describeChange(r.snap, fi) == "" {
		return nil // nothing to watch (Windows with a copied backup) or no change
	}
	r.res.AppendedBytes = fi.Size() - r.snap.Size
	r.res.BackupPath = r.backupPath
	if r.res.BackupCopied && r.old != nil && fi.Size() > r.backupLen {
		if err := r.copyTail(fi.Size()); err != nil {
			return err
		}
	}
	return &ConcurrentWriteError{Path: r.snap.Path, BackupPath: r.backupPath, AppendedBytes: r.res.AppendedBytes}
}

// oldInodeStat stats the replaced inode: through the descriptor where it
// stayed open, else through the backup link.
func (r *replacer) oldInodeStat() (fs.FileInfo, error) {
	if r.old != nil {
		return r.old.Stat()
	}
	if r.res.BackupCopied {
		return nil, errors.New("old inode not observable")
	}
	return os.Stat(r.backupPath)
}

// copyTail appends what a late writer added to the old inode to the copied
// backup.
func (r *replacer) copyTail(size int64) error {
	f, err := os.OpenFile(r.backupPath, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = io.Copy(f, io.NewSectionReader(r.old, r.backupLen, size-r.backupLen))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("%s: another process wrote %d bytes during the replace; copying them to the backup %s failed: %w", r.snap.Path, size-r.backupLen, r.backupPath, err)
	}
	return nil
}

// createExclusive creates dir/name exclusively with mode's permission bits
// (the umask is undone by matchMode).
func createExclusive(dir, name string, mode fs.FileMode) (*os.File, string, error) {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	return f, path, err
}

// matchOwner gives f, a new file, the snapshot's owner and group where
// this process may. It returns an *OwnerError when f ends up with another
// owner or group than the original (nil where owners are unknown). Call it
// before matchMode: chown clears set-id bits.
func matchOwner(f *os.File, snap Snapshot) *OwnerError {
	uid, gid, ok := fileOwner(snap.info)
	if !ok {
		return nil
	}
	_ = f.Chown(uid, gid) // not permitted unless root, or the owner giving a group it is in
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	newUID, newGID, ok := fileOwner(fi)
	if !ok || newUID == uid && newGID == gid {
		return nil
	}
	return &OwnerError{Path: snap.Path, UID: uid, GID: gid, NewUID: newUID, NewGID: newGID, ProcUID: os.Geteuid()}
}

// OwnerKeepable predicts, without writing, whether a replace of the
// snapshot's file by this process can keep its owner and group (only
// root may give a file away, and a group only to its members). It
// returns nil when it can, or when owners are unknown.
func OwnerKeepable(snap Snapshot) *OwnerError {
	uid, gid, ok := fileOwner(snap.info)
	euid := os.Geteuid()
	if !ok || euid == 0 || euid == -1 {
		return nil
	}
	if uid == euid && inGroup(gid) {
		return nil
	}
	newGID := gid
	if !inGroup(gid) {
		newGID = os.Getegid()
	}
	return &OwnerError{Path: snap.Path, UID: uid, GID: gid, NewUID: euid, NewGID: newGID, ProcUID: euid}
}

// inGroup reports whether this process may give a file group gid.
func inGroup(gid int) bool {
	if gid == os.Getegid() {
		return true
	}
	groups, _ := os.Getgroups()
	return slices.Contains(groups, gid)
}

// matchMode gives f the snapshot's exact permission, set-id and sticky
// bits (undoing the umask). Call it after the last write to f: a write by
// a process without CAP_FSETID clears set-id bits.
func matchMode(f *os.File, snap Snapshot) error {
	return f.Chmod(snap.Mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
}

// maxNameBytes is the longest file name most file systems accept
// (NAME_MAX on Linux and macOS).
const maxNameBytes = 255

// tempName is OpenClaw's temp file name "<base>.repair.<pid>.<uuid>.tmp",
// with characters of the prefix outside [A-Za-z0-9._-] replaced by "-" and
// the base shortened when the name would exceed maxNameBytes.
func tempName(base string, pid int) string {
	suffix := ".repair." + strconv.Itoa(pid) + "." + session.RandomUUID() + ".tmp"
	safe := sanitizeName(base)
	if over := len(safe) + len(suffix) - maxNameBytes; over > 0 {
		safe = safe[:len(safe)-over]
	}
	return safe + suffix
}

// sanitizeName replaces every character outside [A-Za-z0-9._-] by "-".
func sanitizeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return r
		}
		return '-'
	}, name)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Leftover is a file a replace leaves beside a session file when it is
// interrupted (killed, power loss) or cannot delete its backup.
type Leftover struct {
	Path string
	// Kind is "temp" (<base>.repair.<pid>.<uuid>.tmp) or "backup"
	// (<file>.bak-<pid>-<ms>).
	Kind string
	// PID is the process that made it; PIDAlive means that process still
	// runs (a repair may be in progress: leave its files alone).
	PID      int
	PIDAlive bool
	// Redundant means deleting it loses nothing: a temp file of a process
	// that is gone (the original was never replaced by it, or the rename
	// already consumed the name), or a backup that is still another name
	// for the current file (a repair killed before its rename).
	Redundant bool
	// Removed means ClearLeftovers deleted it.
	Removed bool
}

// ClearLeftovers is FindLeftovers, then removes the temp files of repairs
// whose process is gone: they hold nothing the session lacks. Backups are
// never removed (one may hold bytes a writer that ignored the lock
// appended); neither is anything of a process that still runs.
func ClearLeftovers(path string) ([]Leftover, error) {
	leftovers, err := FindLeftovers(path)
	for i, l := range leftovers {
		if l.Kind == "temp" && l.Redundant {
			leftovers[i].Removed = os.Remove(l.Path) == nil
		}
	}
	return leftovers, err
}

// FindLeftovers lists the temp files and backups beside the session file at
// path (symlinks resolved) that a replace may have left behind.
func FindLeftovers(path string) ([]Leftover, error) {
	target, err := resolveTarget(path)
	if err != nil {
		return nil, err
	}
	dir, base := filepath.Split(target)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: list leftovers: %w", dir, err)
	}
	current, _ := os.Stat(target)
	safeBase := sanitizeName(base)
	var out []Leftover
	for _, e := range entries {
		if l, ok := parseLeftover(e.Name(), base, safeBase); ok {
			l.Path = filepath.Join(dir, e.Name())
			l.PIDAlive = pidAlive(l.PID)
			l.Redundant = !l.PIDAlive && (l.Kind == "temp" || sameFileAs(l.Path, current))
			out = append(out, l)
		}
	}
	return out, nil
}

// parseLeftover recognises "<base>.bak-<pid>-<ms>" and
// "<safe base, maybe shortened>.repair.<pid>.<uuid>.tmp".
func parseLeftover(name, base, safeBase string) (Leftover, bool) {
	if rest, ok := strings.CutPrefix(name, base+".bak-"); ok {
		pid, ms, ok := strings.Cut(rest, "-")
		if n, err := strconv.Atoi(pid); ok && err == nil && allDigits(ms) {
			return Leftover{Kind: "backup", PID: n}, true
		}
		return Leftover{}, false
	}
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok || len(rest) < 36+1 || rest[len(rest)-37] != '.' {
		return Leftover{}, false
	}
	head := rest[:len(rest)-37]
	i := strings.LastIndex(head, ".repair.") // the base itself may contain ".repair."
	if i <= 0 {
		return Leftover{}, false
	}
	prefix, pid := head[:i], head[i+len(".repair."):]
	n, err := strconv.Atoi(pid)
	if err != nil || !strings.HasPrefix(safeBase, prefix) {
		return Leftover{}, false
	}
	return Leftover{Kind: "temp", PID: n}, true
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func sameFileAs(path string, fi fs.FileInfo) bool {
	if fi == nil {
		return false
	}
	other, err := os.Stat(path)
	return err == nil && os.SameFile(other, fi)
}
