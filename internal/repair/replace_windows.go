package repair

import (
	"io/fs"
	"os"
)

// holdOldAcrossRename: Windows refuses to rename over a file that is open
// without FILE_SHARE_DELETE, which Go does not request, so the old file is
// closed before the rename and watched through the backup link instead.
// A copied backup (no hard links) cannot see late writers on Windows.
const holdOldAcrossRename = false

// fsyncDir is a no-op: Windows cannot open a directory for syncing, and
// NTFS journals its metadata.
func fsyncDir(string) error { return nil }

// fileOwner is unknown on Windows (ownership is an ACL, kept by the
// rename's target directory inheritance).
func fileOwner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// fileLinks is 1: the link count is not in Windows' file information.
func fileLinks(fs.FileInfo) uint64 { return 1 }

// pinIdentity loads the file's volume serial and file index now: on Windows
// os.SameFile reads them lazily by path, which after a rename would name
// the new file.
func pinIdentity(fi fs.FileInfo) { os.SameFile(fi, fi) }
