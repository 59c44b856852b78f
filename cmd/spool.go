package cmd

import (
	"io"
	"os"
)

// spoolStdin copies standard input to a temporary file and rewinds it, for
// readers that read their input twice or at offsets (fix's two passes,
// replay's loader, check --provider's replay after the line pass). The file
// is unlinked as soon as it exists (see newTempFile), so a killed process
// leaves no copy of the session behind. A failure is an *unreadableError
// around a *spoolError.
func spoolStdin(a *app) (*os.File, func(), error) {
	f, closeF, err := newTempFile("openclaw-doctor-stdin-*.jsonl")
	if err != nil {
		return nil, nil, &unreadableError{err: &spoolError{err: err}}
	}
	if _, err := io.Copy(f, a.In); err != nil {
		closeF()
		return nil, nil, &unreadableError{err: &spoolError{copying: true, err: err}}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		closeF()
		return nil, nil, &unreadableError{err: &spoolError{err: err}}
	}
	return f, closeF, nil
}

// spoolError is a failure to spool standard input: copying it (reading
// standard input or writing the copy), or making the file.
type spoolError struct {
	copying bool
	err     error
}

func (e *spoolError) Error() string { return "spooling standard input: " + e.err.Error() }
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
