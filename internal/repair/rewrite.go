package repair

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Analyze is the first pass: it classifies every line of r and returns the
// plan. onVerdict, when not nil, sees the verdict of every line that is not
// simply kept (drops, rewrites, re-serialized and blank lines), in order.
// The per-line work is spread over the CPUs; the plan does not depend on
// how many there are.
func Analyze(r io.Reader, onVerdict func(Verdict)) (Plan, error) {
	if w := workersFor(); w > 1 {
		return analyzeParallel(r, w, onVerdict)
	}
	return analyzeSequential(r, onVerdict)
}

// analyzeSequential is Analyze on the calling goroutine alone.
func analyzeSequential(r io.Reader, onVerdict func(Verdict)) (Plan, error) {
	c := NewClassifier()
	rd := jsonl.NewReader(r)
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return c.Finish(), nil
		}
		if err != nil {
			return Plan{}, fmt.Errorf("line %d: %w", c.plan.Lines+1, err)
		}
		v := c.Line(l)
		if onVerdict != nil && (v.Action != Keep || v.Reserialize) {
			onVerdict(v)
		}
	}
}

// errChanged reports input that differs between the two passes.
var errChanged = errors.New("the file changed between the two passes of the repair")

// writeBufferSize is the output buffer of the second pass.
const writeBufferSize = 1 << 20

// WriteRepaired is the second pass: it streams the repaired file to w,
// reading the same input as the plan's first pass from r. Every entry is
// written on its own line ending in "\n"; blank lines and dropped lines are
// left out; kept lines keep their bytes (invalid UTF-8 replaced as the
// WHATWG decoder does, a trailing "\r" removed); rewritten, re-serialized
// and inserted entries are written as JSON.stringify writes them. now and
// uuid give the synthetic entries' time and "repair-<uuid>" ids.
//
// It reports errChanged when the input no longer matches the plan.
func WriteRepaired(w io.Writer, r io.Reader, p *Plan, now func() time.Time, uuid func() string) error {
	bw := bufio.NewWriterSize(w, writeBufferSize)
	var err error
	if p.Verbatim {
		err = writeRanges(bw, r, p, now, uuid)
	} else {
		err = writeLines(bw, r, p, now, uuid)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// writeRanges is the second pass for a plan whose kept lines are their own
// output: the input is copied in whole ranges between the changed lines
// and the insertions (in-kernel when both ends are files).
func writeRanges(bw *bufio.Writer, r io.Reader, p *Plan, now func() time.Time, uuid func() string) error {
	changes, inserts := p.Edits, p.Inserts
	var pos int64
	var line, buf []byte
	var in inputCopier
	copyTo := func(off int64) error {
		if n, err := in.copy(bw, r, off-pos); err != nil {
			return fmt.Errorf("%w (%d of %d bytes)", errChanged, pos+n, off)
		}
		pos = off
		return nil
	}
	for len(changes) > 0 || len(inserts) > 0 {
		if len(inserts) > 0 && (len(changes) == 0 || inserts[0].AfterOffset <= changes[0].Offset) {
			if err := copyTo(inserts[0].AfterOffset); err != nil {
				return err
			}
			buf = appendInsert(buf[:0], inserts[0], now, uuid)
			bw.Write(buf)
			inserts = inserts[1:]
			continue
		}
		ch := changes[0]
		changes = changes[1:]
		if err := copyTo(ch.Offset); err != nil {
			return err
		}
		if ch.Lines > 1 {
			if err := skipMalformed(r, ch); err != nil {
				return err
			}
			pos += ch.Size
			continue
		}
		line = slices.Grow(line[:0], int(ch.Size))[:ch.Size]
		if _, err := io.ReadFull(r, line); err != nil || line[len(line)-1] != '\n' {
			return errChanged
		}
		pos += ch.Size
		var err error
		if buf, err = appendChanged(buf[:0], jsonl.Line{Num: ch.Line, Bytes: line[:len(line)-1]}, ch); err != nil {
			return err
		}
		bw.Write(buf)
	}
	n, err := in.copy(bw, r, -1)
	if err != nil {
		return err
	}
	if pos+n != p.Bytes {
		return errChanged
	}
	return nil
}

// copyChunk is the most an inputCopier reads and writes at a time.
const copyChunk = 1 << 20

// An inputCopier copies ranges of the input to the output. A file goes
// through io.Copy, which hands the copy to the kernel when the output is a
// file too. Any other reader (a file behind a context) is read up to a MiB
// at a time into one buffer kept across ranges: io.Copy would read and
// write it in 32 KiB pieces through the writer's ReadFrom, two system
// calls per 32 KiB.
type inputCopier struct{ buf []byte }

// copy copies the next n bytes of r to w (n < 0: all that is left) and
// returns how many it copied; fewer than n only with an error (io.EOF when
// r ended first).
func (c *inputCopier) copy(w io.Writer, r io.Reader, n int64) (int64, error) {
	if _, ok := r.(*os.File); ok {
		if n < 0 {
			return io.Copy(w, r)
		}
		return io.CopyN(w, r, n)
	}
	if n == 0 {
		return 0, nil
	}
	want := copyChunk
	if n > 0 {
		r = io.LimitReader(r, n)
		want = int(min(n, copyChunk))
	}
	if len(c.buf) < want {
		c.buf = make([]byte, want)
	}
	done, err := io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{r}, c.buf)
	if err == nil && n >= 0 && done < n {
		err = io.EOF
	}
	return done, err
}

// writeLines is the second pass line by line, for inputs with "\r\n" line
// ends, blank lines, invalid UTF-8 or no final newline.
func writeLines(bw *bufio.Writer, r io.Reader, p *Plan, now func() time.Time, uuid func() string) error {
	rd := jsonl.NewReader(r)
	changes, inserts := p.Edits, p.Inserts
	var buf []byte
	lines := 0
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", lines+1, err)
		}
		lines = l.Num
		switch {
		case len(changes) > 0 && changes[0].Lines > 1 && changes[0].Line <= l.Num:
			// A run of malformed lines: each must still be one.
			if jsonl.Validate(l.Bytes) == nil || l.Blank {
				return errChanged
			}
			if l.Num == changes[0].Line+changes[0].Lines-1 {
				changes = changes[1:]
			}
		case len(changes) > 0 && changes[0].Line == l.Num:
			if buf, err = appendChanged(buf[:0], l, changes[0]); err != nil {
				return err
			}
			changes = changes[1:]
			bw.Write(buf)
		case l.Blank:
			continue
		default:
			bw.Write(jsonl.ToValidUTF8(bytes.TrimRight(l.Bytes, "\r")))
			bw.WriteByte('\n')
		}
		for len(inserts) > 0 && inserts[0].AfterLine == l.Num {
			buf = appendInsert(buf[:0], inserts[0], now, uuid)
			bw.Write(buf)
			inserts = inserts[1:]
		}
	}
	if lines != p.Lines || len(changes) > 0 || len(inserts) > 0 {
		return errChanged
	}
	return nil
}

// skipMalformed reads the run of malformed lines ch covers from r,
// checking that each is still one; memory is bounded by the longest line.
func skipMalformed(r io.Reader, ch LineEdit) error {
	rd := jsonl.NewReader(io.LimitReader(r, ch.Size))
	n := 0
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || l.Blank || !l.Newline {
			return errChanged
		}
		if jsonl.Validate(l.Bytes) == nil {
			return errChanged
		}
		n++
	}
	if n != ch.Lines {
		return errChanged
	}
	return nil
}

// appendInsert appends a synthetic tool result and its newline.
func appendInsert(dst []byte, in Insert, now func() time.Time, uuid func() string) []byte {
	e := in.Entry(now(), uuid())
	return append(jsonl.AppendJSON(dst, &e), '\n')
}

// appendChanged appends what a changed line becomes (nothing for a drop),
// checking that the line still gets the verdict the plan recorded.
func appendChanged(dst []byte, l jsonl.Line, ch LineEdit) ([]byte, error) {
	if ch.Action == Drop && ch.Rules == RuleMalformedLine {
		if jsonl.Validate(l.Bytes) == nil { // no copy of a long malformed line
			return dst, errChanged
		}
		return dst, nil
	}
	val, err := jsonl.ParseOwned(l.Bytes) // val is written out below and dropped: it may alias the line
	if err != nil {
		return dst, errChanged
	}
	res := classifyEntry(val)
	if res.action != ch.Action || res.rules != ch.Rules {
		return dst, errChanged
	}
	if res.action == Drop {
		return dst, nil
	}
	return append(jsonl.AppendJSON(dst, &res.value), '\n'), nil
}
