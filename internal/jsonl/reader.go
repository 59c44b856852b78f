package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// readBufferSize is the bufio buffer behind [Reader]. Lines shorter than this
// are returned without copying; longer ones are gathered in a spill buffer,
// up to [MaxLineBytes].
const readBufferSize = 1 << 20 // 1 MiB: measured sweet spot for bufio line splitting

// MaxLineBytes is the longest line [Reader] and [RunBatches] read: 512 MiB,
// about the longest string OpenClaw's JavaScript engine can hold (V8's
// limit is 2^29 - 24 characters), so OpenClaw cannot read such a line
// either. A longer line is a *[LineTooLongError], never unbounded memory.
const MaxLineBytes = 512 << 20

// maxLineBytes is MaxLineBytes; tests lower it.
var maxLineBytes = MaxLineBytes

// LineTooLongError is the read error for a line longer than [MaxLineBytes]:
// reading stops there, and the lines before it were read.
type LineTooLongError struct {
	Line   int   // the line's 1-based number
	Offset int64 // the byte offset where it starts
	Limit  int   // the limit in bytes
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d (at byte %d) is longer than %s, the longest line openclaw-doctor (and OpenClaw) can read", e.Line, e.Offset, byteSize(e.Limit))
}

// byteSize writes n in MiB when it is a whole number of them.
func byteSize(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Line is one physical line of a transcript.
type Line struct {
	Num    int    // 1-based physical line number; blank lines count
	Offset int64  // byte offset of the line's first byte in the input
	Bytes  []byte // the line without its "\n" and without a "\r" before it
	// Blank reports whether the line is empty after JavaScript's trim(), the
	// test OpenClaw uses to skip a line.
	Blank bool
	// CR reports that a "\r" was removed from the end of the line.
	CR bool
	// Newline reports whether the line ended with "\n" (false only for the
	// last line of a file without a final newline).
	Newline bool
}

// Size is the number of input bytes the line occupied, terminator included.
func (l Line) Size() int64 {
	n := int64(len(l.Bytes))
	if l.CR {
		n++
	}
	if l.Newline {
		n++
	}
	return n
}

// Reader splits an input into physical lines the way OpenClaw does
// (split on "\r?\n").
type Reader struct {
	src    io.Reader // read through br; read ahead of it to size a long line's buffer
	br     *bufio.Reader
	spill  []byte
	num    int
	offset int64
	err    error
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{src: r, br: bufio.NewReaderSize(r, readBufferSize)}
}

// Next returns the next line. Its Bytes are valid until the following call
// to Next. At the end of input it returns io.EOF; an empty input and the
// empty piece after a final "\n" produce no line.
func (r *Reader) Next() (Line, error) {
	if r.err != nil {
		return Line{}, r.err
	}
	data, err := r.readLine()
	if errors.Is(err, errLineTooLong) {
		err = &LineTooLongError{Line: r.num + 1, Offset: r.offset, Limit: maxLineBytes}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
		return Line{}, err
	}
	if len(data) == 0 && err != nil {
		r.err = io.EOF
		return Line{}, io.EOF
	}
	if err != nil {
		r.err = io.EOF // the last line had no final newline; report it now, EOF next time
	}
	line := Line{Num: r.num + 1, Offset: r.offset}
	r.num++
	r.offset += int64(len(data))
	if n := len(data); n > 0 && data[n-1] == '\n' {
		line.Newline = true
		data = data[:n-1]
	}
	if n := len(data); n > 0 && data[n-1] == '\r' {
		line.CR = true
		data = data[:n-1]
	}
	line.Bytes = data
	line.Blank = IsBlank(data)
	return line, nil
}

// errLineTooLong is readLine's signal that the line passed maxLineBytes.
var errLineTooLong = errors.New("line too long")

// readLine returns the next chunk up to and including "\n", using the spill
// buffer when the line is longer than the bufio buffer, up to maxLineBytes.
func (r *Reader) readLine() ([]byte, error) {
	if n := cap(r.spill); n > maxKeptSpill {
		r.spill = nil // do not keep a giant line's buffer alive for the rest of the file
		releaseOutgrown(n)
	}
	data, err := r.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return data, err
	}
	// The bufio buffer is empty now: the source is at the line's next byte.
	if want := lineBufferSize(r.src, len(data), maxLineBytes); cap(r.spill) < want {
		r.spill = make([]byte, 0, want)
	}
	r.spill = append(r.spill[:0], data...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(r.spill) > maxLineBytes {
			r.spill = nil
			return nil, errLineTooLong
		}
		data, err = r.br.ReadSlice('\n')
		if need := len(r.spill) + len(data); need > cap(r.spill) {
			r.spill = growLine(r.spill, max(need, 2*cap(r.spill)))
		}
		r.spill = append(r.spill, data...)
	}
	if tooLong(r.spill) {
		r.spill = nil
		return nil, errLineTooLong
	}
	return r.spill, err
}

// maxKeptSpill is the largest spill buffer kept between lines.
const maxKeptSpill = 64 << 20

// tooLong reports whether chunk, a line with its terminator, holds more
// than maxLineBytes of line.
func tooLong(chunk []byte) bool {
	n := len(chunk)
	if n > 0 && chunk[n-1] == '\n' {
		n--
		if n > 0 && chunk[n-1] == '\r' {
			n--
		}
	}
	return n > maxLineBytes
}
