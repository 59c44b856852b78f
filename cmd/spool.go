package cmd

import (
	"io"
	"os"
)

// spoolStdin copies standard input to a temporary file and rewinds it, for
// readers that read their input twice or at offsets (fix's two passes,
// replay's loader, check --provider's replay after the line pass). The file
// is unlinked as soon as it exists (see newTempFile), so a killed process
// leaves no copy of the session behind. A failure to copy standard input is
// a *spoolCopyError; any other failure is creating or rewinding the file.
func spoolStdin(a *app) (*os.File, func(), error) {
	f, closeF, err := newTempFile("openclaw-doctor-stdin-*.jsonl")
	if err != nil {
		return nil, nil, err
	}
	if _, err := io.Copy(f, a.In); err != nil {
		closeF()
		return nil, nil, &spoolCopyError{err: err}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		closeF()
		return nil, nil, err
	}
	return f, closeF, nil
}

// spoolCopyError is a failure to read standard input (or to write its
// copy), as opposed to creating the spool; fix words the two differently.
type spoolCopyError struct{ err error }

func (e *spoolCopyError) Error() string { return e.err.Error() }
func (e *spoolCopyError) Unwrap() error { return e.err }

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
