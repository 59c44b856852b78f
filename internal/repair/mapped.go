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
// them (a file that grew since), read from rest. The pages it is done with
// are handed back as it goes, so the second pass keeps the RSS of the
// first, whatever the output (a write from a mapping faults its pages in
// unless the output discards them).
type mappedInput struct {
	ctx      context.Context
	m        *jsonl.Mapped
	off      int // the next byte of the mapping to take
	released int // the mapping's bytes before released were handed back
	rest     io.Reader
}

// mappedChunk is the most the second pass writes from the mapping at once,
// and how much it gathers before handing pages back.
const mappedChunk = 1 << 20

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
	return &mappedInput{ctx: ctx, m: m, rest: r}, nil
}

// left is how many mapped bytes are not taken yet.
func (in *mappedInput) left() int { return len(in.m.Bytes()) - in.off }

// advance takes n mapped bytes, handing back the pages behind them once
// a chunk gathered.
func (in *mappedInput) advance(n int) {
	in.off += n
	if in.off-in.released >= mappedChunk || in.left() == 0 {
		in.released = in.m.Release(in.released, in.off)
	}
}

func (in *mappedInput) Read(p []byte) (int, error) {
	if in.left() == 0 {
		return in.rest.Read(p)
	}
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	n := copy(p, in.m.Bytes()[in.off:])
	in.advance(n)
	return n, nil
}

// write writes the next n mapped bytes to w, a chunk at a time.
func (in *mappedInput) write(w io.Writer, n int) (int, error) {
	done := 0
	for done < n {
		k := min(n-done, mappedChunk)
		k, err := w.Write(in.m.Bytes()[in.off : in.off+k])
		in.advance(k)
		if done += k; err != nil {
			return done, err
		}
	}
	return done, nil
}

// WriteTo writes the rest of the input to w.
func (in *mappedInput) WriteTo(w io.Writer) (int64, error) {
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := in.write(w, in.left())
	if err != nil {
		return int64(n), err
	}
	more, err := io.Copy(w, in.rest)
	return int64(n) + more, err
}

// copyMapped writes the next n bytes of r to w when r is a mappedInput
// whose mapping holds them (ok false: nothing was written, read them).
func copyMapped(w io.Writer, r io.Reader, n int64) (ok bool) {
	in, _ := r.(*mappedInput)
	if in == nil || n > int64(in.left()) || in.ctx.Err() != nil {
		return false
	}
	in.write(w, int(n)) // a bufio.Writer: its error comes back at the flush
	return true
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
