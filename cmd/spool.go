package cmd

import (
	"bytes"
	"io"
	"os"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// spoolStdin copies standard input to a temporary file and rewinds it, for
// readers that read their input twice or at offsets (fix's two passes,
// replay's loader, check --provider's replay after the line pass). The file
// is unlinked as soon as it exists (see newTempFile), so a killed process
// leaves no copy of the session behind. A failure is an *unreadableError
// around a *spoolError.
func spoolStdin(a *app) (*os.File, func(), error) {
	f, closeF, err := spool(a.In, "standard input")
	if err != nil {
		return nil, nil, &unreadableError{err: err}
	}
	return f, closeF, nil
}

// spool copies r, named name in errors, to an unlinked temporary file and
// rewinds it (see spoolStdin). A failure is a *spoolError.
func spool(r io.Reader, name string) (*os.File, func(), error) {
	f, closeF, err := newTempFile("openclaw-doctor-stdin-*.jsonl")
	if err != nil {
		return nil, nil, &spoolError{name: name, err: err}
	}
	if _, err := io.Copy(f, &lineLimit{r: r}); err != nil {
		closeF()
		return nil, nil, &spoolError{name: name, copying: true, err: err}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		closeF()
		return nil, nil, &spoolError{name: name, err: err}
	}
	return f, closeF, nil
}

// lineLimit passes r through, failing with a *jsonl.LineTooLongError once a
// line grows past jsonl.MaxLineBytes: no reader would take it, so the
// spool stops there instead of filling the disk (standard input can be
// /dev/zero).
type lineLimit struct {
	r         io.Reader
	lines     int   // newlines seen
	offset    int64 // bytes seen
	lineStart int64 // offset of the current line
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		l.lines++
		l.lineStart = l.offset + int64(i+j+1)
		i += j + 1
	}
	l.offset += int64(n)
	if l.offset-l.lineStart > jsonl.MaxLineBytes+1 { // room for a "\r" before the "\n"
		return n, &jsonl.LineTooLongError{Line: l.lines + 1, Offset: l.lineStart, Limit: jsonl.MaxLineBytes}
	}
	return n, err
}

// spoolError is a failure to spool an input (standard input, a pipe):
// copying it (reading it or writing the copy), or making the file.
type spoolError struct {
	name    string
	copying bool
	err     error
}

func (e *spoolError) Error() string { return "spooling " + e.name + ": " + e.err.Error() }
func (e *spoolError) Unwrap() error { return e.err }

// newTempFile creates a temporary file and the function that closes it.
// The file is removed at once where the system allows it (not on Windows,
// where an open file cannot be removed; the close function removes it
// there), so nothing is left behind even when the process is killed.
func newTempFile(pattern string) (*os.File, func(), error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, nil, err
	}
	name := f.Name()
	unlinked := os.Remove(name) == nil
	return f, func() {
		f.Close()
		if !unlinked {
			os.Remove(name)
		}
	}, nil
}
