package repair

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	originalText = "{\"type\":\"session\"}\nnot json\n"
	repairedText = "{\"type\":\"session\"}\n"
)

// sessionFile writes content to dir/name with mode and returns its path.
func sessionFile(t *testing.T, dir, name, content string, mode fs.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// replaceWith snapshots path and replaces it with content.
func replaceWith(t *testing.T, path, content string, opts ReplaceOptions) (ReplaceResult, error) {
	t.Helper()
	snap, err := TakeSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	return Replace(path, snap, writeString(content), opts)
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirNames lists dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// withSeam replaces a package seam for the test.
func withSeam[T any](t *testing.T, seam *T, v T) {
	t.Helper()
	old := *seam
	*seam = v
	t.Cleanup(func() { *seam = old })
}

func TestReplacePreservesModeAndRemovesBackup(t *testing.T) {
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o444, 0o604 | fs.ModeSetgid} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := t.TempDir()
			path := sessionFile(t, dir, "s.jsonl", originalText, mode)
			res, err := replaceWith(t, path, repairedText, ReplaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := readString(t, path); got != repairedText {
				t.Errorf("content %q", got)
			}
			fi, _ := os.Stat(path)
			if fi.Mode() != mode {
				t.Errorf("mode %v, want %v", fi.Mode(), mode)
			}
			if !res.Replaced || res.BackupPath != "" || res.BytesWritten != int64(len(repairedText)) {
				t.Errorf("result %+v", res)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"s.jsonl"}) {
				t.Errorf("directory holds %v, want only s.jsonl", names)
			}
		})
	}
}

func TestReplaceKeepBackup(t *testing.T) {
	dir := t.TempDir()
	path := sessionFile(t, dir, "s.jsonl", originalText, 0o640)
	before, _ := os.Stat(path)
	now := time.UnixMilli(1777730851204)
	res, err := replaceWith(t, path, repairedText, ReplaceOptions{KeepBackup: true, PID: 4242, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	want := path + ".bak-4242-1777730851204"
	if res.BackupPath != want || res.BackupCopied {
		t.Fatalf("result %+v, want backup %s", res, want)
	}
	if got := readString(t, want); got != originalText {
		t.Errorf("backup holds %q", got)
	}
	bfi, _ := os.Stat(want)
	if !os.SameFile(bfi, before) || bfi.Mode() != 0o640 {
		t.Errorf("backup is not the original inode with its mode (mode %v)", bfi.Mode())
	}
}

func TestReplaceKeepsOwnerWherePermitted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing a file's owner needs root")
	}
	dir := t.TempDir()
	path := sessionFile(t, dir, "s.jsonl", originalText, 0o640)
	if err := os.Chown(path, 1234, 5678); err != nil {
		t.Skipf("chown: %v", err)
	}
	if _, err := replaceWith(t, path, repairedText, ReplaceOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if uid, gid, ok := fileOwner(fi); !ok || uid != 1234 || gid != 5678 {
		t.Errorf("owner %d:%d, want 1234:5678", uid, gid)
	}
}

func TestReplaceBackupDeleteFailureKeepsIt(t *testing.T) {
	dir := t.TempDir()
	path := sessionFile(t, dir, "s.jsonl", originalText, 0o600)
	withSeam(t, &removeFile, func(name string) error {
		return &fs.PathError{Op: "remove", Path: name, Err: syscall.EBUSY}
	})
	res, err := replaceWith(t, path, repairedText, ReplaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.BackupPath == "" || res.BackupCleanupErr == nil || !strings.Contains(res.BackupCleanupErr.Error(), "delete backup") {
		t.Fatalf("result %+v", res)
	}
	if got := readString(t, res.BackupPath); got != originalText {
		t.Errorf("kept backup holds %q", got)
	}
	if got := readString(t, path); got != repairedText {
		t.Errorf("file holds %q", got)
	}
}

func TestReplaceDetectsChangeBeforeRename(t *testing.T) {
	later := time.Now().Add(time.Hour)
	tests := []struct {
		name   string
		change func(path string) error
		detail string
	}{
		{"append", func(p string) error { return appendTo(p, "{\"late\":1}\n") }, "size"},
		{"same size rewrite", func(p string) error {
			if err := os.WriteFile(p, []byte(strings.ToUpper(originalText)), 0); err != nil {
				return err
			}
			return os.Chtimes(p, later, later)
		}, "modified at"},
		{"replaced by another file", func(p string) error {
			other := p + ".other"
			if err := os.WriteFile(other, []byte(originalText), 0o600); err != nil {
				return err
			}
			return os.Rename(other, p)
		}, "replaced by another file"},
	}
	for _, step := range []Step{StepTempWritten, StepBackedUp} {
		for _, tt := range tests {
			t.Run(string(step)+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				path := sessionFile(t, dir, "s.jsonl", originalText, 0o600)
				snap, _ := TakeSnapshot(path)
				var changed string
				hook := func(s Step) error {
					if s != step {
						return nil
					}
					if err := tt.change(path); err != nil {
						t.Fatal(err)
					}
					changed = readString(t, path)
					return nil
				}
				res, err := Replace(path, snap, writeString(repairedText), ReplaceOptions{Hook: hook})
				var ce *ChangedError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.detail) || res.Replaced {
					t.Fatalf("got %+v, %v; want a *ChangedError about %q", res, err, tt.detail)
				}
				if got := readString(t, path); got != changed {
					t.Errorf("file was touched: %q", got)
				}
				if names := dirNames(t, dir); !slices.Equal(names, []string{"s.jsonl"}) {
					t.Errorf("left behind: %v", names)
				}
			})
		}
	}
}

func appendTo(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	return errors.Join(err, f.Close())
}

// TestReplaceCatchesALateAppend plays a writer that ignores the lock and
// appends through a descriptor it opened before the repair, between the
// last check and the rename: its bytes must be in the kept backup, for a
// linked and for a copied backup.
func TestReplaceCatchesALateAppend(t *testing.T) {
	for _, copied := range []bool{false, true} {
		t.Run(map[bool]string{false: "linked backup", true: "copied backup"}[copied], func(t *testing.T) {
			if copied {
				withSeam(t, &linkFile, func(string, string) error { return syscall.EPERM })
			}
			dir := t.TempDir()
			path := sessionFile(t, dir, "s.jsonl", originalText, 0o600)
			writer, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer writer.Close()
			const late = "{\"late\":true}\n"
			hook := func(s Step) error {
				if s == StepChecked {
					_, err := writer.WriteString(late)
					return err
				}
				return nil
			}
			res, err := replaceWith(t, path, repairedText, ReplaceOptions{Hook: hook})
			var cw *ConcurrentWriteError
			if !errors.As(err, &cw) || !res.Replaced {
				t.Fatalf("got %+v, %v; want a *ConcurrentWriteError after the replace", res, err)
			}
			if res.AppendedBytes != int64(len(late)) || cw.AppendedBytes != int64(len(late)) || res.BackupCopied != copied {
				t.Errorf("result %+v, error %+v", res, cw)
			}
			if got := readString(t, res.BackupPath); got != originalText+late {
				t.Errorf("backup holds %q, want the original and the late line", got)
			}
			if got := readString(t, path); got != repairedText {
				t.Errorf("file holds %q", got)
			}
			if !strings.Contains(err.Error(), "appended 14 bytes") || !strings.Contains(err.Error(), res.BackupPath) {
				t.Errorf("message %q does not say how much and where", err)
			}
		})
	}
}

func TestReplaceSymlinkReplacesTargetKeepsLink(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "real")
	if err := os.Mkdir(realDir, 0o755); err != nil {
		t.Fatal(err)
	}
	target := sessionFile(t, realDir, "b.jsonl", originalText, 0o600)
	link := filepath.Join(dir, "a.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	res, err := replaceWith(t, link, repairedText, ReplaceOptions{KeepBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link is gone or no longer a symlink: %v", err)
	}
	if got := readString(t, target); got != repairedText {
		t.Errorf("target holds %q", got)
	}
	if filepath.Dir(res.BackupPath) != realDir {
		t.Errorf("backup %s is not beside the target", res.BackupPath)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"a.jsonl", "real"}) {
		t.Errorf("link's directory holds %v", names)
	}
}

func TestReplaceRefusesARetargetedSymlink(t *testing.T) {
	dir := t.TempDir()
	a := sessionFile(t, dir, "a.jsonl", originalText, 0o600)
	b := sessionFile(t, dir, "b.jsonl", originalText, 0o600)
	link := filepath.Join(dir, "s.jsonl")
	if err := os.Symlink(a, link); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	snap, _ := TakeSnapshot(link)
	_ = os.Remove(link)
	_ = os.Symlink(b, link)
	_, err := Replace(link, snap, writeString(repairedText), ReplaceOptions{})
	var ce *ChangedError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want *ChangedError", err)
	}
	if readString(t, a) != originalText || readString(t, b) != originalText {
		t.Error("a file was touched")
	}
}

func TestReplaceFailuresLeaveTheOriginal(t *testing.T) {
	boom := errors.New("injected failure")
	for _, step := range []Step{StepTempWritten, StepBackedUp, StepChecked, "write"} {
		t.Run(string(step), func(t *testing.T) {
			dir := t.TempDir()
			path := sessionFile(t, dir, "s.jsonl", originalText, 0o600)
			before, _ := os.Stat(path)
			write := writeString(repairedText)
			if step == "write" {
				write = func(w io.Writer) error {
					_, _ = io.WriteString(w, "partial")
					return boom
				}
			}
			snap, _ := TakeSnapshot(path)
			res, err := Replace(path, snap, write, ReplaceOptions{KeepBackup: true, Hook: func(s Step) error {
				if s == step {
					return boom
				}
				return nil
			}})
			if !errors.Is(err, boom) || res.Replaced {
				t.Fatalf("got %+v, %v", res, err)
			}
			after, _ := os.Stat(path)
			if got := readString(t, path); got != originalText || !os.SameFile(before, after) {
				t.Errorf("original changed: %q", got)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"s.jsonl"}) {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

func TestReplaceFallsBackToACopiedBackup(t *testing.T) {
	withSeam(t, &linkFile, func(o, n string) error { return &os.LinkError{Op: "link", Old: o, New: n, Err: syscall.EPERM} })
	dir := t.TempDir()
	path := sessionFile(t, dir, "s.jsonl", originalText, 0o640)
	res, err := replaceWith(t, path, repairedText, ReplaceOptions{KeepBackup: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.BackupCopied || res.BackupPath == "" {
		t.Fatalf("result %+v", res)
	}
	if got := readString(t, res.BackupPath); got != originalText {
		t.Errorf("copied backup holds %q", got)
	}
	if fi, _ := os.Stat(res.BackupPath); fi.Mode() != 0o640 {
		t.Errorf("copied backup mode %v", fi.Mode())
	}
	if got := readString(t, path); got != repairedText {
		t.Errorf("file holds %q", got)
	}
}

// mountTmpfs mounts a tmpfs of size bytes (root only) and returns its
// path; it skips the test where that is impossible.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root on Linux")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

func TestReplaceInAReadOnlyDirectory(t *testing.T) {
	var dir string
	if os.Geteuid() == 0 {
		// Root ignores permission bits: use a file system mounted read-only.
		dir = mountTmpfs(t, "1m")
	} else {
		dir = t.TempDir()
	}
	path := sessionFile(t, dir, "s.jsonl", originalText, 0o600)
	if os.Geteuid() == 0 {
		if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
			t.Skipf("remount read-only: %v: %s", err, out)
		}
	} else {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	}
	_, err := replaceWith(t, path, repairedText, ReplaceOptions{})
	if err == nil || !strings.Contains(err.Error(), "create temp file") || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v, want a clear temp file error naming the file", err)
	}
	if got := readString(t, path); got != originalText {
		t.Errorf("original changed: %q", got)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"s.jsonl"}) {
		t.Errorf("left behind: %v", names)
	}
}

func TestReplaceOnAFullDisk(t *testing.T) {
	dir := mountTmpfs(t, "64k")
	original := strings.Repeat("{\"type\":\"message\",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n", 600) // ~40 KiB
	path := sessionFile(t, dir, "s.jsonl", original, 0o600)
	_, err := replaceWith(t, path, original+original, ReplaceOptions{})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want ENOSPC", err)
	}
	if got := readString(t, path); got != original {
		t.Error("original changed")
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"s.jsonl"}) {
		t.Errorf("left behind: %v", names)
	}
}

func TestTempName(t *testing.T) {
	tests := []struct{ base, wantPrefix string }{
		{"s.jsonl", "s.jsonl.repair.77."},
		{"my session (1).jsonl", "my-session--1-.jsonl.repair.77."},
		{"séance.jsonl", "s-ance.jsonl.repair.77."},
	}
	for _, tt := range tests {
		got := tempName(tt.base, 77)
		if !strings.HasPrefix(got, tt.wantPrefix) || !strings.HasSuffix(got, ".tmp") || len(got) != len(tt.wantPrefix)+36+4 {
			t.Errorf("tempName(%q) = %q", tt.base, got)
		}
	}
	if got := tempName(strings.Repeat("x", 250)+".jsonl", 1234567); len(got) != maxNameBytes {
		t.Errorf("long name: %d bytes", len(got))
	}
	if a, b := tempName("s", 1), tempName("s", 1); a == b {
		t.Error("temp names repeat")
	}
}

func TestTakeSnapshotRejectsNonRegularFiles(t *testing.T) {
	if _, err := TakeSnapshot(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := TakeSnapshot(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestFindLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := sessionFile(t, dir, "my session.jsonl", originalText, 0o600)
	dead, live := deadPID(t), liveChild(t)
	touch := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	linked := filepath.Join(dir, "my session.jsonl.bak-"+itoa(dead)+"-1777730851204")
	if err := os.Link(path, linked); err != nil {
		t.Fatal(err)
	}
	uuid := "0b5e6c1d-2f3a-4b5c-8d9e-0f1a2b3c4d5e"
	want := map[string]Leftover{
		linked: {Kind: "backup", PID: dead, Redundant: true},
		touch("my session.jsonl.bak-" + itoa(dead) + "-1777730851999"):       {Kind: "backup", PID: dead},
		touch("my-session.jsonl.repair." + itoa(dead) + "." + uuid + ".tmp"): {Kind: "temp", PID: dead, Redundant: true},
		touch("my-session.jsonl.repair." + itoa(live) + "." + uuid + ".tmp"): {Kind: "temp", PID: live, PIDAlive: true},
	}
	for _, other := range []string{
		"my session.jsonl.bak-x-1", "other.jsonl.bak-1-2", "my-session.jsonl.repair.1.short.tmp",
		"my session.jsonl.lock", "my-session.jsonl.repair." + itoa(dead) + "." + uuid + ".tmpx",
	} {
		touch(other)
	}
	got, err := FindLeftovers(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("found %d leftovers, want %d: %+v", len(got), len(want), got)
	}
	for _, l := range got {
		w, ok := want[l.Path]
		w.Path = l.Path
		if !ok || l != w {
			t.Errorf("leftover %+v, want %+v", l, w)
		}
	}
	// ClearLeftovers removes only the dead process's temp file.
	cleared, err := ClearLeftovers(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range cleared {
		_, statErr := os.Lstat(l.Path)
		wantRemoved := l.Kind == "temp" && !l.PIDAlive
		if l.Removed != wantRemoved || (statErr == nil) == wantRemoved {
			t.Errorf("ClearLeftovers: %s: removed %v (still there: %v), want removed %v", l.Path, l.Removed, statErr == nil, wantRemoved)
		}
	}
}

func TestParseLeftoverOfAShortenedName(t *testing.T) {
	base := strings.Repeat("x", 250) + ".jsonl"
	name := tempName(base, 1234567)
	if l, ok := parseLeftover(name, base, sanitizeName(base)); !ok || l.Kind != "temp" || l.PID != 1234567 {
		t.Errorf("parseLeftover(%q) = %+v, %v", name, l, ok)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
