package jsonl

import (
	"context"
	"io"
	"io/fs"
	"sync/atomic"
)

// ContextReader is a reader that fails with ctx's error once ctx is done,
// so that long work reading through it (a check, a repair's first pass, a
// session load, a replay) stops at its next read: every reader of this
// module reads at most a batch (1 MiB) or a line at a time.
type ContextReader struct {
	ctx  context.Context
	src  any // what was wrapped
	r    io.Reader
	ra   io.ReaderAt
	read *atomic.Int64 // ctx's read counter (WithReadCounter), or nil
}

// WithContext returns r reading under ctx. It also implements
// io.ReaderAt when r does, and io.Seeker when r does.
func WithContext(ctx context.Context, r io.Reader) *ContextReader {
	ra, _ := r.(io.ReaderAt)
	return &ContextReader{ctx: ctx, src: r, r: r, ra: ra, read: readCounter(ctx)}
}

// WithContextAt returns ra reading at offsets under ctx; it also
// implements io.Reader (and io.Seeker) when ra does.
func WithContextAt(ctx context.Context, ra io.ReaderAt) *ContextReader {
	r, _ := ra.(io.Reader)
	return &ContextReader{ctx: ctx, src: ra, r: r, ra: ra, read: readCounter(ctx)}
}

// readCounterKey is the context key of WithReadCounter.
type readCounterKey struct{}

// WithReadCounter returns ctx carrying n: every ContextReader made under
// it adds the bytes it reads to n (one atomic add per read, and the
// readers of this module read a batch or a line at a time), so that
// whoever made ctx can show how far long work has gone. A nil n counts
// nothing (it hides the counter of a parent context).
func WithReadCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, readCounterKey{}, n)
}

func readCounter(ctx context.Context) *atomic.Int64 {
	n, _ := ctx.Value(readCounterKey{}).(*atomic.Int64)
	return n
}

// Read reads from the underlying reader unless ctx is done.
func (c *ContextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.r == nil {
		return 0, errNoReader
	}
	n, err := c.r.Read(p)
	c.count(n)
	return n, err
}

func (c *ContextReader) count(n int) {
	if c.read != nil && n > 0 {
		c.read.Add(int64(n))
	}
}

// LineRest is the wrapped reader's, when it is a [LineSizer].
func (c *ContextReader) LineRest() (int, bool) {
	if s, ok := c.src.(LineSizer); ok {
		return s.LineRest()
	}
	return 0, false
}

// ReadAt reads from the underlying reader unless ctx is done (or the
// reader is not an io.ReaderAt).
func (c *ContextReader) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.ra == nil {
		return 0, errNoReaderAt
	}
	n, err := c.ra.ReadAt(p, off)
	c.count(n)
	return n, err
}

// Seek seeks the underlying reader (an io.Seeker).
func (c *ContextReader) Seek(off int64, whence int) (int64, error) {
	s, ok := c.src.(io.Seeker)
	if !ok {
		return 0, errNoSeeker
	}
	return s.Seek(off, whence)
}

// Stat describes the underlying file (the readers of this module size
// their buffers from it).
func (c *ContextReader) Stat() (fs.FileInfo, error) {
	s, ok := c.src.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return nil, errNoStat
	}
	return s.Stat()
}

type readerError string

func (e readerError) Error() string { return string(e) }

const (
	errNoReader   readerError = "the input can only be read at an offset"
	errNoReaderAt readerError = "the input cannot be read at an offset"
	errNoSeeker   readerError = "the input cannot seek"
	errNoStat     readerError = "the input is not a file"
)
