//go:build unix

package repair

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The set-id, sticky and plain modes a repair must keep.
var keptModes = []fs.FileMode{
	0o640 | fs.ModeSetuid,                 // 4640
	0o650 | fs.ModeSetgid,                 // 2650
	0o750 | fs.ModeSetuid | fs.ModeSetgid, // 6750
	0o755 | fs.ModeSticky,                 // 1755
	0o600, 0o640, 0o644, 0o400, 0o777,
}

// A session fix repairs (it drops the truncated line) and its repair.
const (
	damagedSession  = "{\"type\":\"session\",\"id\":\"s1\"}\n{\"type\":\"message\"\n"
	repairedSession = "{\"type\":\"session\",\"id\":\"s1\"}\n"
)

// childEnv names the directory a re-executed test binary works in as
// another user (see asNobody).
const childEnv = "OPENCLAW_DOCTOR_TEST_CHILD_DIR"

// TestRepairKeepsEveryModeBit: a repair in place keeps set-id, sticky and
// permission bits, as this process and, because a write by a process
// without CAP_FSETID clears set-id bits, as an unprivileged user (the
// test binary re-executed as nobody when this test runs as root).
func TestRepairKeepsEveryModeBit(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		repairEveryMode(t, dir)
		return
	}
	repairEveryMode(t, t.TempDir())
	if os.Geteuid() != 0 {
		return // the run above was the unprivileged one
	}
	out, err := asNobody(t, "TestRepairKeepsEveryModeBit", nil)
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func repairEveryMode(t *testing.T, dir string) {
	for _, mode := range keptModes {
		path := sessionFile(t, dir, "m"+strconv.FormatUint(uint64(mode), 8)+".jsonl", damagedSession, mode)
		res, err := RepairFile(path, Options{})
		if err != nil || !res.Repaired {
			t.Errorf("%v: repair: %+v, %v", mode, res, err)
			continue
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Errorf("uid %d: mode %v became %v", os.Geteuid(), mode, fi.Mode())
		}
		if got := readString(t, path); got != repairedSession {
			t.Errorf("%v: content %q", mode, got)
		}
	}
}

// asNobody re-runs the named test of this binary as the user nobody, in a
// directory nobody owns that prepare (when not nil) fills first, and
// returns its output. It fails the test when that cannot be arranged, so
// the unprivileged case never goes untested silently where the test runs
// as root.
func asNobody(t *testing.T, test string, prepare func(work string)) (string, error) {
	t.Helper()
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("running as root, but there is no user nobody to run the unprivileged case as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(base); d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o005); err != nil {
				t.Fatal(err)
			}
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "test.bin")
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(work, uid, gid); err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(work)
	}
	cmd := exec.Command(bin, "-test.run", "^"+test+"$", "-test.v")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), childEnv+"="+work, "HOME="+work, "GOCOVERDIR="+work)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err == nil && !strings.Contains(string(out), "--- PASS: "+test) {
		err = errors.New("the child did not run the test")
	}
	return string(out), err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}

// TestRepairOwnedByAnotherUser: as a user who cannot give the repaired file
// its owner, fix refuses (the file untouched, the reason naming --force)
// and a dry run says so; with Force it repairs and reports the change. As
// root the owner is kept.
func TestRepairOwnedByAnotherUser(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		path := filepath.Join(dir, "root-owned.jsonl") // made by the parent, owned by root
		dry, err := RepairFile(path, Options{DryRun: true})
		if err != nil || dry.OwnerChange == nil || dry.OwnerChange.UID != 0 {
			t.Errorf("dry run: %+v, %v: no owner note", dry.OwnerChange, err)
		}
		res, err := RepairFile(path, Options{})
		var oe *OwnerError
		if !errors.As(err, &oe) || res.Repaired || !strings.Contains(res.Reason, "--force") {
			t.Errorf("without --force: %+v, %v: want a refusal", res, err)
		}
		if got := readString(t, path); got != damagedSession {
			t.Errorf("refused, yet the file holds %q", got)
		}
		if names := dirNames(t, dir); len(names) != 1 {
			t.Errorf("left beside it: %v", names)
		}
		res, err = RepairFile(path, Options{Force: true})
		if err != nil || !res.Repaired || res.OwnerChange == nil || res.OwnerChange.NewUID != os.Geteuid() {
			t.Errorf("with --force: %+v, %v", res, err)
		}
		if got := readString(t, path); got != repairedSession {
			t.Errorf("with --force the file holds %q", got)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a file owned by another user (the unprivileged side runs as nobody under root)")
	}
	dir := t.TempDir()
	path := sessionFile(t, dir, "s.jsonl", damagedSession, 0o640)
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Fatal(err)
	}
	res, err := RepairFile(path, Options{})
	if err != nil || !res.Repaired || res.OwnerChange != nil {
		t.Fatalf("as root: %+v, %v", res, err)
	}
	fi, _ := os.Stat(path)
	if uid, gid, _ := fileOwner(fi); uid != 1234 || gid != 5678 {
		t.Errorf("as root: owner %d:%d, want 1234:5678", uid, gid)
	}
	out, err := asNobody(t, "TestRepairOwnedByAnotherUser", func(work string) {
		p := filepath.Join(work, "root-owned.jsonl")
		if err := os.WriteFile(p, []byte(damagedSession), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

// TestRepairReportsOtherHardLinks: a repair gives only the named link the
// new content, and says how many other names keep the old; a dry run
// says it too.
func TestRepairReportsOtherHardLinks(t *testing.T) {
	dir := t.TempDir()
	path := sessionFile(t, dir, "s.jsonl", damagedSession, 0o644)
	other := filepath.Join(dir, "other-name")
	if err := os.Link(path, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	dry, err := RepairFile(path, Options{DryRun: true})
	if err != nil || dry.OtherLinks != 1 {
		t.Errorf("dry run: other links %d, %v; want 1", dry.OtherLinks, err)
	}
	res, err := RepairFile(path, Options{})
	if err != nil || !res.Repaired || res.OtherLinks != 1 {
		t.Errorf("repair: %+v, %v; want 1 other link", res, err)
	}
	if got := readString(t, other); got != damagedSession {
		t.Errorf("the other name holds %q", got)
	}
	single := sessionFile(t, dir, "t.jsonl", damagedSession, 0o644)
	if res, _ := RepairFile(single, Options{}); res.OtherLinks != 0 {
		t.Errorf("a file with one name: %d other links", res.OtherLinks)
	}
}

// TestRepairReportsALockLeftBehind: when the write lock cannot be removed
// after the repair (EIO), the result says so and the lock stays.
func TestRepairReportsALockLeftBehind(t *testing.T) {
	dir := t.TempDir()
	path := sessionFile(t, dir, "s.jsonl", damagedSession, 0o644)
	withSeam(t, &removeLock, func(name string) error {
		return &fs.PathError{Op: "remove", Path: name, Err: syscall.EIO}
	})
	res, err := RepairFile(path, Options{})
	if err != nil || !res.Repaired {
		t.Fatalf("repair: %+v, %v", res, err)
	}
	if !errors.Is(res.LockReleaseErr, syscall.EIO) || !strings.Contains(res.LockReleaseErr.Error(), path+".lock") {
		t.Errorf("lock release error %v, want EIO naming %s.lock", res.LockReleaseErr, path)
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Errorf("the lock: %v", err)
	}
}
