package jsonl

import (
	"context"
	"io"
	"io/fs"
)

// ContextReader is a reader that fails with ctx's error once ctx is done,
// so that long work reading through it (a check, a repair's first pass, a
// session load, a replay) stops at its next read: every reader of this
// module reads at most a batch (1 MiB) or a line at a time.
type ContextReader struct {
	ctx context.Context
	src any // what was wrapped
	r   io.Reader
	ra  io.ReaderAt
}

// WithContext returns r reading under ctx. It also implements
// io.ReaderAt when r does, and io.Seeker when r does.
func WithContext(ctx context.Context, r io.Reader) *ContextReader {
	ra, _ := r.(io.ReaderAt)
	return &ContextReader{ctx: ctx, src: r, r: r, ra: ra}
}

// WithContextAt returns ra reading at offsets under ctx; it also
// implements io.Reader (and io.Seeker) when ra does.
func WithContextAt(ctx context.Context, ra io.ReaderAt) *ContextReader {
	r, _ := ra.(io.Reader)
	return &ContextReader{ctx: ctx, src: ra, r: r, ra: ra}
}

// Read reads from the underlying reader unless ctx is done.
func (c *ContextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.r == nil {
		return 0, errNoReader
	}
	return c.r.Read(p)
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
	return c.ra.ReadAt(p, off)
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
