package jsonl

import (
	"os"
	"syscall"
)

// maxMapped is the largest file mapped: any on a 64-bit platform, 1 GiB
// on a 32-bit one (whose address space is short; a larger file is read).
const maxMapped = 1<<(30+(^uint(0)>>63)*32) - 1

// mapFile maps the first size bytes of f read-only, advising sequential
// reading; nil when the system refuses.
func mapFile(f *os.File, size int) *mapping {
	conn, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var data []byte
	ctlErr := conn.Control(func(fd uintptr) {
		data, err = syscall.Mmap(int(fd), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	})
	if ctlErr != nil || err != nil {
		return nil
	}
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return &mapping{data: data, name: f.Name(),
		unmap:  func() error { return syscall.Munmap(data) },
		advise: func(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) },
	}
}
