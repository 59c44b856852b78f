package jsonl

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
)

// A line longer than a read buffer needs a buffer of its own. Growing one
// by doubling leaves every smaller buffer behind as garbage, which the
// collector, pacing itself on the live heap (the line), lets pile up: a
// 300 MB line took about 2.8 times its size. Two things keep it near one
// line plus one batch:
//
//   - when the input is a file that can be read at offsets (a regular file
//     behind *os.File or [ContextReader]), the line's end is found by
//     reading ahead through a small buffer, and the line's buffer is
//     allocated once, at its size;
//   - otherwise (a pipe) the buffer doubles, and the memory of a huge
//     buffer it outgrows is handed back to the system at once.

// lookAheadBuffer is the scratch buffer through which a line's end is
// found.
const lookAheadBuffer = 1 << 20

// releaseAbove is the size of an outgrown buffer whose memory is handed
// back at once (smaller ones are left to the collector).
const releaseAbove = 32 << 20

// positioned is an input whose read position is known and which can be
// read ahead of it without moving it.
type positioned interface {
	io.ReaderAt
	io.Seeker
}

// LineSizer is a reader that knows how many more of its bytes make up the
// line it is in the middle of, its "\n" included (ok false when it does
// not know): a stream that produces whole lines, such as a store's
// export. The pipeline then gives a long line a buffer of its size at
// once, as it does for a file, instead of doubling one.
type LineSizer interface {
	LineRest() (n int, ok bool)
}

// lineRest is how many more bytes of r make up the current line, its "\n"
// included, when r can be read ahead or knows it (ok false otherwise). It
// reads at most limit+2 bytes ahead: a longer rest is reported as limit+2.
func lineRest(r io.Reader, limit int) (n int, ok bool) {
	if s, isSizer := r.(LineSizer); isSizer {
		if n, ok := s.LineRest(); ok {
			return min(n, limit+2), true
		}
	}
	p, isPositioned := r.(positioned)
	if !isPositioned {
		return 0, false
	}
	pos, err := p.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	buf := make([]byte, lookAheadBuffer)
	for n <= limit+1 {
		k, err := p.ReadAt(buf, pos+int64(n))
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return n + i + 1, true
		}
		n += k
		if errors.Is(err, io.EOF) {
			return n, true
		}
		if err != nil {
			return 0, false // the reads to come meet the error
		}
	}
	return limit + 2, true
}

// releaseOutgrown hands the memory of an outgrown buffer of size n back to
// the system when it is huge; the caller holds no reference to it.
func releaseOutgrown(n int) {
	if n >= releaseAbove {
		debug.FreeOSMemory()
	}
}

// AllocLine returns a buffer of n bytes for (part of) one line. Before a
// huge one (releaseAbove or more) it runs a collection, so that huge buffers
// already dead (an earlier pass's or an earlier read's, not yet collected
// because the heap had not doubled) are freed and their memory reused
// rather than added to: peak memory follows the copies still in use. Huge
// lines are rare, so the collection costs little beside reading the line.
func AllocLine(n int) []byte {
	if n >= releaseAbove {
		runtime.GC()
	}
	return make([]byte, n)
}

// growLine returns buf's bytes in a buffer of capacity want (at least
// len(buf)), handing buf's memory back when it is huge. The caller drops
// every other reference to buf first, and replaces its own with the
// result.
func growLine(buf []byte, want int) []byte {
	grown := AllocLine(max(want, len(buf)))[:len(buf)]
	copy(grown, buf)
	releaseOutgrown(cap(buf)) // buf is dead from here on: the collector frees it
	return grown
}

// lineBufferSize is the capacity to give a buffer holding the have bytes
// read of an unfinished line of r: the whole line and one byte more (room
// to see what follows) when r can be read ahead, double the size
// otherwise; never more than limit+2 (enough to tell a line is too long).
func lineBufferSize(r io.Reader, have, limit int) int {
	if rest, ok := lineRest(r, limit-have); ok {
		return min(have+rest+1, limit+2)
	}
	return min(2*max(have, 1), limit+2)
}
