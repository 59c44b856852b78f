package repair

// A regular file given to RepairTo or RepairStream is mapped once and both
// passes read the mapping: the first cuts its batches out of it, the second
// copies the kept ranges from it straight to the output. The second pass's
// checks stay those of a second read (the changed lines are judged again,
// the length must match the plan), and a file truncated under the mapping
// ends the repair with jsonl's ErrFileShrank error, never a crash.

import (
	"context"
	"errors"
	"io"
	"syscall"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// mappedInput is the second pass's input when the first read the file
// through its mapping: the mapped bytes, then whatever the file holds past
// them (a file that grew since), read from rest.
type mappedInput struct {
	ctx  context.Context
	data []byte // the mapped bytes not taken yet
	rest io.Reader
}

// secondPassInput is where the second pass reads: the mapping, when the
// file held no more than it during the first pass, else the file again
// from its start.
func secondPassInput(ctx context.Context, r io.ReadSeeker, m *jsonl.Mapped, planned int64) (io.Reader, error) {
	if m == nil || planned > int64(len(m.Bytes())) {
		_, err := r.Seek(0, io.SeekStart)
		return r, err
	}
	if _, err := r.Seek(int64(len(m.Bytes())), io.SeekStart); err != nil {
		return nil, err
	}
	return &mappedInput{ctx: ctx, data: m.Bytes(), rest: r}, nil
}

func (in *mappedInput) Read(p []byte) (int, error) {
	if len(in.data) == 0 {
		return in.rest.Read(p)
	}
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	n := copy(p, in.data)
	in.data = in.data[n:]
	return n, nil
}

// WriteTo writes the rest of the input to w, the mapped bytes in one write.
func (in *mappedInput) WriteTo(w io.Writer) (int64, error) {
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := w.Write(in.data)
	in.data = in.data[n:]
	if err != nil {
		return int64(n), err
	}
	more, err := io.Copy(w, in.rest)
	return int64(n) + more, err
}

// takeMapped takes the next n bytes of r when r is a mappedInput whose
// mapping holds them (ok false: read them).
func takeMapped(r io.Reader, n int64) (b []byte, ok bool) {
	in, _ := r.(*mappedInput)
	if in == nil || n > int64(len(in.data)) || in.ctx.Err() != nil {
		return nil, false
	}
	b, in.data = in.data[:n], in.data[n:]
	return b, true
}

// fromMapping runs pass, which may read m's bytes (m nil: none), turning a
// fault on the mapping, or a write from it that failed on the missing
// pages, into m's error for a file that became shorter.
func fromMapping(m *jsonl.Mapped, pass func() error) error {
	if m == nil {
		return pass()
	}
	var err error
	if fault := m.Guard(func() { err = pass() }); fault != nil {
		return fault
	}
	if errors.Is(err, syscall.EFAULT) {
		return m.Shrank()
	}
	return err
}
