package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Opening an input, the one way every command does it (check, check
// --provider, fix, replay):
//
//   - a character or block device (/dev/zero, /dev/urandom, a disk) is
//     refused by name, before it is opened: it is not a session, and
//     reading one never ends or never meets a newline;
//   - a FIFO is opened on its own goroutine, so that SIGINT or SIGTERM
//     (the end of the command's context) abandons an open that waits for
//     a writer, and its reads are cancelled the same way (a read deadline
//     set when the context ends);
//   - anything else (a regular file, a folder, a missing name) is opened
//     as it always was, so its errors read as before;
//   - readers that read their input twice or at offsets get a FIFO spooled
//     to an unlinked temp file (openSeekableInput), as standard input is.
//
// Standard input itself is wrapped once (cancelOnDone), so a read that
// waits on an idle pipe or terminal is abandoned when the context ends.

// notRegularError is the cause of refusing an input that is neither a
// regular file nor a pipe (a character or block device), inside an
// *fs.PathError that names it (notRegular).
type notRegularError struct{ mode fs.FileMode }

func (e *notRegularError) Error() string {
	kind := "a character device"
	if e.mode&fs.ModeCharDevice == 0 {
		kind = "a block device"
	}
	return "not a regular file or pipe (" + kind + ")"
}

// notRegular is the error refusing the device at path.
func notRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: &notRegularError{mode: m}}
}

// inputMode is the type of the file at path (following symlinks), 0 when
// it cannot be told (the open then reports why).
func inputMode(path string) fs.FileMode {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Mode().Type()
}

func isDevice(m fs.FileMode) bool { return m&fs.ModeDevice != 0 }
func isPipe(m fs.FileMode) bool   { return m&fs.ModeNamedPipe != 0 }

// checkInputType refuses a device by name.
func checkInputType(path string) error {
	if m := inputMode(path); isDevice(m) {
		return notRegular(path, m)
	}
	return nil
}

// openInput opens the input at path for reading (see the top of this
// file). The error is the open's, one around a *notRegularError for a
// device, or one around the context's when it ended during the open of a
// FIFO.
func openInput(ctx context.Context, path string) (*os.File, error) {
	m := inputMode(path)
	switch {
	case isDevice(m):
		return nil, notRegular(path, m)
	case !isPipe(m):
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path) // blocks until a writer opens the FIFO
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, o.err
		}
		context.AfterFunc(ctx, func() { _ = o.f.SetReadDeadline(time.Now()) })
		return o.f, nil
	case <-ctx.Done():
		go func() { // should a writer come after all, close what was opened
			if o := <-done; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("interrupted while waiting for a writer to open the pipe: %w", ctx.Err())}
	}
}

// openSeekableInput is openInput for readers that read their input twice
// or at offsets: a FIFO's content is spooled to an unlinked temp file
// (cancelled with ctx) and that file is returned, rewound. The function
// returned closes what was opened.
func openSeekableInput(ctx context.Context, path string) (*os.File, func(), error) {
	f, err := openInput(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if !isPipe(inputMode(path)) {
		return f, func() { f.Close() }, nil
	}
	defer f.Close()
	return spool(f, path) // its reads end with ctx: openInput's read deadline
}

// cancelOnDone returns r wrapped so that a Read waiting for data returns
// the context's error once ctx ends (the waiting read itself is left to
// finish into a buffer of its own, which is then dropped). For standard
// input, which may be an idle pipe or a terminal.
func cancelOnDone(ctx context.Context, r io.Reader) io.Reader {
	if r == nil || ctx.Done() == nil {
		return r
	}
	return &cancelReader{ctx: ctx, r: r}
}

type cancelReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte
	// pending is the read still running after a cancelled call, if any.
	pending chan readResult
}

// cancelReadBytes bounds one read of a cancelReader.
const cancelReadBytes = 1 << 20

type readResult struct {
	n   int
	err error
}

func (c *cancelReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.pending != nil {
		return 0, errors.New("standard input: an earlier read was abandoned")
	}
	// At most cancelReadBytes at a time: a reader filling a huge line's
	// buffer must not get a second buffer of that size here.
	n := min(len(p), cancelReadBytes)
	if cap(c.buf) < n {
		c.buf = make([]byte, n)
	}
	buf := c.buf[:n]
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		c.pending, c.buf = done, nil // the read goes on into buf: never reuse it
		return 0, c.ctx.Err()
	}
}
