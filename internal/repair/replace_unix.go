//go:build unix

package repair

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// holdOldAcrossRename: POSIX lets a file be renamed over while it is open,
// so the old inode stays observable through our descriptor.
const holdOldAcrossRename = true

// fsyncDir makes dir's entries (a new link, a rename) durable. A rename is
// atomic without it but may be lost in a crash. File systems that cannot
// sync directories say so with EINVAL or ENOTSUP (restic's fsyncDir), and
// macOS's F_FULLFSYNC on a directory with ENOTTY; those are not errors.
func fsyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) ||
		(runtime.GOOS == "darwin" && errors.Is(err, syscall.ENOTTY)) {
		err = nil
	}
	return errors.Join(err, d.Close())
}

// fileOwner returns the uid and gid recorded in fi.
func fileOwner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// fileLinks returns the number of hard links recorded in fi (1 when
// unknown).
func fileLinks(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// pinIdentity is a no-op: os.Stat already records device and inode.
func pinIdentity(fs.FileInfo) {}
