package jsonl

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"unsafe"
)

// A regular file can be read through a read-only mapping of it instead of
// read() calls: its batches are then views of the mapping, and the bytes
// reach the workers without being copied into a buffer first. Pages the
// consumer is done with are handed back (they stay in the page cache), so
// the process keeps only the batches in flight, as when reading.
//
// A mapped file that another program truncates meanwhile has pages that no
// longer exist; touching one is a fault, not a read error. Every goroutine
// that touches a batch (the one cutting batches, the workers, the
// consumer) runs with the runtime's panic-on-fault set while a mapping is
// read, and such a panic becomes a *fs.PathError naming the file
// ([ErrFileShrank]) for the pipeline to return: the lines consumed before
// it stand, as after a read error.

// ErrFileShrank is the error of a mapped file that became shorter while it
// was read.
var ErrFileShrank = errors.New("the file became shorter while it was being read (another program truncated it)")

// mapping is a file's read-only mapping, from its first byte.
type mapping struct {
	data     []byte
	name     string         // the file's name, for errors
	via      *ContextReader // the reader the file came in, or nil
	released int            // data[:released] was handed back
	unmap    func() error
	advise   func(b []byte) // hands pages back (nil: never)
}

// releaseStep is how much consumed input a mapping gathers before handing
// it back: a system call per two batches of check's. On the 1 GiB bench
// session, 4 MiB steps kept ~1.5 MiB more RSS for no CPU time measurably
// saved (six interleaved runs each).
const releaseStep = 1 << 20

// mapInput maps r when it is a regular, non-empty file read from its
// start (directly or through a [ContextReader]) and the platform maps
// files; nil otherwise.
func mapInput(r io.Reader) *mapping {
	via, _ := r.(*ContextReader)
	if via != nil {
		r, _ = via.src.(io.Reader)
	}
	f, ok := r.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= 0 || fi.Size() > maxMapped {
		return nil
	}
	if pos, err := f.Seek(0, io.SeekCurrent); err != nil || pos != 0 {
		return nil
	}
	m := mapFile(f, int(fi.Size()))
	if m != nil {
		m.via = via
	}
	return m
}

// read notes that n more bytes were taken from the mapping, as the
// [ContextReader] the file came in would note a read of them (its read
// counter), and fails as that read would once its context is done.
func (m *mapping) read(n int) error {
	if m.via == nil {
		return nil
	}
	if err := m.via.ctx.Err(); err != nil {
		return err
	}
	m.via.count(n)
	return nil
}

// release hands back the pages of data before end, once enough gathered.
func (m *mapping) release(end int) {
	end &^= os.Getpagesize() - 1
	if m.advise == nil || end-m.released < releaseStep {
		return
	}
	m.advise(m.data[m.released:end])
	m.released = end
}

// holds reports whether addr is in the mapping.
func (m *mapping) holds(addr uintptr) bool {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	return addr >= start && addr-start < uintptr(len(m.data))
}

// shrank is the error for a fault while reading the mapping.
func (m *mapping) shrank() error {
	return &fs.PathError{Op: "read", Path: m.name, Err: ErrFileShrank}
}

// guard runs fn on the calling goroutine with the runtime's panic-on-fault
// set when m is not nil, and turns a fault into m's error. Other panics go
// on.
func guard(m *mapping, fn func()) (err error) {
	if m == nil {
		fn()
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if f, fault := r.(interface{ Addr() uintptr }); !fault || !m.holds(f.Addr()) {
				panic(r)
			}
			err = m.shrank()
		}
	}()
	fn()
	return nil
}

// Mapped is a regular file's read-only mapping held by its caller across
// passes: a first pass cuts its batches out of it ([Pipeline.Mapping]) and
// a second pass copies from it, so the file is read from the kernel once.
// Code that touches its bytes outside the pipeline runs under
// [Mapped.Guard]: a file truncated meanwhile gives the same error as in the
// pipeline, not a crash.
type Mapped struct{ m *mapping }

// MapFile maps r as [Pipeline.MapFiles] would: a regular, non-empty file
// read from its start, directly or through a [ContextReader]. It returns
// nil when r is no such file or the platform maps no files; the caller
// reads r then. Close unmaps it.
func MapFile(r io.Reader) *Mapped {
	m := mapInput(r)
	if m == nil {
		return nil
	}
	return &Mapped{m: m}
}

// Bytes is the mapping: the file's first bytes, as many as it held when it
// was mapped. A file that grew since has more past them.
func (m *Mapped) Bytes() []byte { return m.m.data }

// Guard runs fn, turning a fault on the mapping (the file became shorter)
// into a *fs.PathError around [ErrFileShrank].
func (m *Mapped) Guard(fn func()) error { return guard(m.m, fn) }

// Shrank is the error Guard returns for a file that became shorter, for
// a caller whose system call (a write from the mapping) failed on the
// missing pages instead of faulting.
func (m *Mapped) Shrank() error { return m.m.shrank() }

// Close unmaps the mapping; its bytes must not be touched after.
func (m *Mapped) Close() error { return m.m.unmap() }

// Release hands back the pages wholly within the mapping's bytes
// [from, to) (they stay in the page cache), for a pass that is done with
// them: a mapped page a pass touched counts in the process's RSS until
// then. It returns to rounded down to a page: the start of the page not
// handed back, where the next release can start.
func (m *Mapped) Release(from, to int) int {
	page := os.Getpagesize()
	from = (from + page - 1) &^ (page - 1)
	to &^= page - 1
	if to > from && m.m.advise != nil {
		m.m.advise(m.m.data[from:to])
	}
	return to
}
