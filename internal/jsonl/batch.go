package jsonl

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"sync"
)

// The batch pipeline spreads per-line work over the CPUs while the
// ordered work stays in line order: the input is cut into batches of whole
// lines, workers fill each batch's output in any order, and one consumer
// sees the batches in input order. The repair classifier, check's facts
// and the session loader's first pass all run on it ([RunBatches]), so
// their results do not depend on the number of workers.

// batchSize is the input read per batch: large enough that the hand-offs
// cost nothing, small enough that the batches in flight stay a few MiB.
const batchSize = 1 << 20

// ScanBatchSize is the batch size for a pass whose per-line work only
// scans the line into small facts (check, fix's first pass): with half the
// default, the batches in flight take half the memory and stay closer to
// the caches the reads fill them through. On the 1 GiB bench session
// check's peak RSS drops from ~40 to ~35 MiB, fix's on the 200 MiB one from
// ~34 to ~24 MiB, at the same or less CPU time.
const ScanBatchSize = 512 << 10

// batchLines is the number of lines a batch aims at: per-line outputs cost
// far more than a short line's bytes, so a run of very short lines (a file
// of garbage) gets smaller batches, which keeps the outputs in flight a few
// MiB whatever the lines. The size comes back as the lines get longer.
const batchLines = 8192

// minBatchSize is the smallest input read per batch.
const minBatchSize = 32 << 10

// batchesInFlight bounds the batches read ahead of the in-order consumer,
// per worker, which bounds memory.
const batchesInFlight = 3

// keptBatchBytes: a batch buffer grown past this by a long line is left to
// the garbage collector after use rather than kept for the rest of the
// input.
const keptBatchBytes = 4 * batchSize

// Batch is a run of whole lines of the input, read into one buffer (the
// only copy the pipeline makes), and Out, what the workers computed for
// them. A Batch and its Out are reused for later batches: a worker
// overwrites Out (keeping its slices' capacity) and the consumer must not
// keep references into the batch's lines past its call.
type Batch[T any] struct {
	data   []byte
	ends   []int32 // where the first lines of data end (see index)
	num    int     // number of the line before the first one
	offset int64   // input offset of data[0]
	err    error   // a read error after data
	spare  []byte  // b's own buffer while data is a long line's (see lineBuffer)
	held   int     // the bytes of buffer counted in flight (see runParallel)
	Out    T
	done   chan struct{}
}

// Lines yields the batch's lines, split exactly as [Reader] splits
// them (numbers and offsets are the input's).
func (b *Batch[T]) Lines(yield func(Line) bool) {
	data, ends := b.data, b.ends
	for pos, num := 0, b.num; pos < len(data); num++ {
		l := Line{Num: num + 1, Offset: b.offset + int64(pos)}
		end := len(data)
		if len(ends) > 0 { // the reader's pass found it
			end, ends = int(ends[0]), ends[1:]
		} else if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end = pos + i
		}
		next := end
		if end < len(data) {
			next, l.Newline = end+1, true
		}
		line := data[pos:end]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			l.CR, line = true, line[:n-1]
		}
		l.Bytes, l.Blank = line, IsBlank(line)
		if !yield(l) {
			return
		}
		pos = next
	}
}

// Pipeline says how [RunBatches] runs.
type Pipeline[T any] struct {
	// Workers is the number of goroutines running the per-batch work; 1 (or
	// less) runs everything on the caller's goroutine, with no hand-offs.
	Workers int
	// SizeHint is the input's size when known (otherwise 0 or negative): a
	// small input gets a buffer its size instead of a full batch.
	SizeHint int64
	// BatchSize is the input read per batch (0 or less: 1 MiB). A line
	// longer than that makes its batch grow to hold it.
	BatchSize int
	// NewWorker returns one worker's function (called once per worker, so
	// the function may own state, such as a scanner). It fills b.Out from
	// b's lines; it may run on any goroutine and in any order.
	NewWorker func() func(b *Batch[T])
	// Context, when set, stops the pipeline before the next batch once it
	// is done; RunBatches then returns its error.
	Context context.Context
	// Consume sees every batch after its work, in input order, on the
	// caller's goroutine. An error stops the pipeline and is returned.
	Consume func(b *Batch[T]) error
}

// RunBatches reads r in batches of whole lines, runs p's work on each and
// consumes them in order. A read error is returned after the batch of the
// whole lines read before it was consumed (the incomplete line is dropped,
// as [Reader] drops it).
func RunBatches[T any](r io.Reader, p Pipeline[T]) error {
	size := batchSize
	if p.BatchSize > 0 {
		size = p.BatchSize
	}
	rd := &batchReader[T]{r: r, size: size, full: size, long: make(chan []byte, keptLineBuffers)}
	if p.SizeHint > 0 && p.SizeHint < int64(size) {
		rd.size = int(p.SizeHint) + 1 // room to see the end of the input in one read
		rd.full = rd.size
	}
	if p.Workers <= 1 {
		return runInline(rd, p)
	}
	return runParallel(rd, p)
}

// runInline reads, works and consumes one batch at a time.
func runInline[T any](rd *batchReader[T], p Pipeline[T]) error {
	work := p.NewWorker()
	b := &Batch[T]{}
	defer func() { dropHuge(b) }()
	return inline(rd, p, work, &b)
}

// inline is runInline's loop.
func inline[T any](rd *batchReader[T], p Pipeline[T], work func(*Batch[T]), bp **Batch[T]) error {
	for {
		if dropHuge(*bp) {
			*bp = &Batch[T]{}
		}
		b := *bp
		last := rd.next(b)
		work(b)
		if err := p.err(); err != nil {
			return err
		}
		if err := p.Consume(b); err != nil {
			return err
		}
		if last {
			return b.err
		}
	}
}

// runParallel reads on one goroutine, works on p.Workers goroutines and
// consumes on the caller's.
func runParallel[T any](rd *batchReader[T], p Pipeline[T]) error {
	n := p.Workers * batchesInFlight
	work := make(chan *Batch[T], n)
	order := make(chan *Batch[T], n)
	free := make(chan *Batch[T], n+2)
	// No goroutine outlives the call: an early return (a consumer's error,
	// a cancelled context) first waits for the reading goroutine (its read
	// in progress ends first: the commands cancel reads of pipes and
	// terminals when their context ends) and for the workers to finish the
	// batches handed to them.
	var running sync.WaitGroup
	defer running.Wait()
	for range p.Workers {
		do := p.NewWorker()
		running.Go(func() {
			for b := range work {
				do(b)
				close(b.done)
			}
		})
	}
	stop := make(chan struct{})
	defer close(stop)
	flight := NewFlight(readAheadBytes).Share()
	running.Go(func() {
		defer close(work)
		defer close(order)
		for {
			if !flight.Wait(stop) {
				return
			}
			b := takeBatch(free)
			last := rd.next(b)
			b.held = cap(b.data)
			flight.Hold(b.held)
			b.done = make(chan struct{})
			select {
			case order <- b:
			case <-stop:
				return
			}
			work <- b
			if last {
				return
			}
		}
	})
	return consumeInOrder(p, order, free, rd.long, flight)
}

// consumeInOrder is runParallel's consumer.
func consumeInOrder[T any](p Pipeline[T], order <-chan *Batch[T], free chan *Batch[T], long chan []byte, flight *FlightShare) error {
	for b := range order {
		<-b.done
		if err := p.err(); err != nil {
			return err
		}
		if err := p.Consume(b); err != nil {
			return err
		}
		if b.err != nil {
			return b.err
		}
		flight.Release(b.held)
		recycle(b, free, long)
	}
	return nil
}

// err is the error of p's context, if it is done.
func (p *Pipeline[T]) err() error {
	if p.Context == nil {
		return nil
	}
	return p.Context.Err()
}

// batchReader cuts an input into batches of whole lines.
type batchReader[T any] struct {
	r      io.Reader
	size   int         // buffer size of a batch
	full   int         // the size for lines of usual length (size shrinks for short lines)
	carry  []byte      // the incomplete line at the end of the last read
	long   chan []byte // long lines' buffers handed back, for the next long lines
	num    int
	offset int64
}

// next fills b with the next run of whole lines (reusing its buffer when it
// is big enough) and reports whether it is the last batch: the end of the
// input, whose last line may lack a newline, or a read error (b.err).
func (rd *batchReader[T]) next(b *Batch[T]) (last bool) {
	b.err = nil
	restoreSpare(b, rd.long)
	if cap(b.data) < rd.size {
		b.data = make([]byte, 0, rd.size)
	}
	var data []byte
	if 2*len(rd.carry) > cap(b.data) { // the start of a line longer than half a batch
		data = rd.lineBuffer(b, rd.carry, lineBufferSize(rd.r, len(rd.carry), maxLineBytes))
	} else {
		data = append(b.data[:0], rd.carry...)
	}
	for {
		n, err := io.ReadFull(rd.r, data[len(data):cap(data)])
		data = data[:len(data)+n]
		cut := len(data)
		switch {
		case err == nil:
			cut = lastNewline(data) + 1
			if cut == 0 && len(data) <= maxLineBytes { // a line longer than the buffer: read on in one that holds it
				want := lineBufferSize(rd.r, len(data), maxLineBytes)
				data = rd.lineBuffer(b, data, want)
				continue
			}
		case !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
			b.err = err
			cut = lastNewline(data) + 1
		}
		if rd.tooLong(b, data) {
			return true
		}
		b.data, b.num, b.offset = data[:cut], rd.num, rd.offset
		if err == nil {
			rd.carry = append(rd.carry[:0], data[cut:]...)
			if cap(rd.carry) > keptBatchBytes && len(rd.carry) < batchSize {
				rd.carry = append([]byte(nil), rd.carry...) // do not keep a giant line's buffer
			}
		}
		rd.take(b, cut)
		return err != nil
	}
}

// tooLong ends the input at the first line of data longer than
// maxLineBytes, if there is one: b gets the lines before it and the
// *LineTooLongError.
func (rd *batchReader[T]) tooLong(b *Batch[T], data []byte) bool {
	if len(data) <= maxLineBytes {
		return false
	}
	n, off, ok := longLine(data)
	if !ok {
		return false
	}
	b.data, b.num, b.offset = data[:off], rd.num, rd.offset
	b.index()
	b.err = &LineTooLongError{Line: rd.num + n, Offset: rd.offset + int64(off), Limit: maxLineBytes}
	rd.num += n - 1
	rd.offset += int64(off)
	return true
}

// take notes b.data, the next cut bytes of the input, as the next batch.
func (rd *batchReader[T]) take(b *Batch[T], cut int) {
	lines := b.index()
	rd.num += lines
	rd.offset += int64(cut)
	rd.resize(lines, cut)
}

// maxNotedEnds bounds the line ends a batch notes: the lines of a batch
// past it (a run of very short lines, read before the batch size adapts
// to them) are counted, and Lines finds their ends itself.
const maxNotedEnds = 2 * batchLines

// index notes where the batch's lines end and returns how many there are
// (the lines ending in a newline): the one pass over the batch that counts
// them also finds each line's end for Lines, which runs on a worker.
func (b *Batch[T]) index() int {
	data, ends := b.data, b.ends[:0]
	for pos := 0; ; pos++ {
		if len(ends) == maxNotedEnds {
			b.ends = ends
			return len(ends) + bytes.Count(data[pos:], []byte{'\n'})
		}
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			b.ends = ends
			return len(ends)
		}
		pos += i
		ends = append(ends, int32(pos))
	}
}

// lastNewline is bytes.LastIndexByte(b, '\n') eight bytes at a time: a
// batch usually ends inside a line, often a long one, that the search
// walks back over.
func lastNewline(b []byte) int {
	i := len(b)
	for ; i >= 8; i -= 8 {
		if m := eqMask(binary.LittleEndian.Uint64(b[i-8:]), '\n'); m != 0 {
			return i - 8 + (63-bits.LeadingZeros64(m))>>3
		}
	}
	return bytes.LastIndexByte(b[:i], '\n')
}

// longLine finds the first line of data longer than maxLineBytes, the
// unfinished piece at its end included: its number within data (from 1)
// and its offset.
func longLine(data []byte) (n, off int, ok bool) {
	for n = 1; off < len(data); n++ {
		next := bytes.IndexByte(data[off:], '\n') + 1 // the line with its "\n"
		if next == 0 {
			next = len(data) - off
		}
		if tooLong(data[off : off+next]) {
			return n, off, true
		}
		off += next
	}
	return 0, 0, false
}

// resize adapts the next batch's size to the lines of the last one: about
// batchLines of them, between minBatchSize and the full size.
func (rd *batchReader[T]) resize(lines, n int) {
	switch {
	case lines > batchLines && rd.size > minBatchSize:
		rd.size = max(minBatchSize, int(int64(n)*batchLines/int64(lines)))
	case lines < batchLines/2 && rd.size < rd.full:
		rd.size = min(rd.full, 2*rd.size)
	}
}

// takeBatch reuses a consumed batch (its buffer and Out) when there is one.
func takeBatch[T any](free chan *Batch[T]) *Batch[T] {
	select {
	case b := <-free:
		return b
	default:
	}
	return &Batch[T]{}
}

// recycle keeps a consumed batch for reuse, unless it grew for a huge line
// (its buffer is then left to the garbage collector); a long line's buffer
// goes back to long.
func recycle[T any](b *Batch[T], free chan *Batch[T], long chan []byte) {
	restoreSpare(b, long)
	if dropHuge(b) {
		return
	}
	b.data, b.ends, b.err = b.data[:0], b.ends[:0], nil
	select {
	case free <- b:
	default:
	}
}

// readAheadBytes bounds the bytes of the batches read ahead of the
// consumer (jsonl.Flight), beside their number (batchesInFlight): batches
// of usual lines never reach it, but where long lines cluster (inline
// images of a MiB or two) each batch holds one, and eight of them read
// ahead would hold eight such lines.
const readAheadBytes = 6 << 20

// keptLineBuffers is how many buffers of long lines a pipeline keeps for
// the long lines after them. A line longer than half a batch's buffer is
// read into a buffer of its own (see lineBufferRoom), and
// the batch keeps its usual buffer aside for the batches after it; the
// long line's buffer serves the next long line, rather than a new one
// being made (and faulted in) for each.
const keptLineBuffers = 3

// lineBuffer moves data, the bytes read so far of a line longer than b's
// buffer, into a buffer of capacity want (at least len(data)): one a
// batch handed back when it is big enough, else a new one. b's own buffer
// is set aside for the batches after this one; a line buffer the line
// outgrows goes back for the next long line.
func (rd *batchReader[T]) lineBuffer(b *Batch[T], data []byte, want int) []byte {
	want = max(want, len(data))
	var grown []byte
	select {
	case buf := <-rd.long:
		if cap(buf) >= want {
			grown = buf[:len(data)]
		} // else it is left to the collector
	default:
	}
	if grown == nil {
		grown = AllocLine(lineBufferRoom(want))[:len(data)]
	}
	copy(grown, data)
	if b.spare == nil {
		b.spare = b.data[:0]
	} else {
		putLine(rd.long, data)
	}
	b.data = nil // set to the batch's lines at the end of next
	return grown
}

// lineBufferRoom is the capacity of a new buffer for a line of want
// bytes: up to keptBatchBytes rounded up to whole MiB (batchSize), so that
// it can serve the long lines after it, which vary in length; a longer line
// gets exactly its size, as it is not kept.
func lineBufferRoom(want int) int {
	if rounded := (want + batchSize - 1) / batchSize * batchSize; rounded <= keptBatchBytes {
		return rounded
	}
	return want
}

// restoreSpare gives b its own buffer back once it is done with a long
// line's, which goes back to long.
func restoreSpare[T any](b *Batch[T], long chan []byte) {
	if b.spare == nil {
		return
	}
	if cap(b.data) > keptBatchBytes {
		var zero T
		b.Out = zero // Out may hold pieces of the line: they would keep it alive
	}
	line := b.data
	b.data, b.spare = b.spare, nil // before putLine: a huge line's memory is handed back there
	putLine(long, line)
}

// putLine hands a long line's buffer back for the next long line, unless
// it is huge (its memory is then handed back, see releaseOutgrown) or
// enough are kept already (it is then left to the collector).
func putLine(long chan []byte, buf []byte) {
	if cap(buf) > keptBatchBytes {
		releaseOutgrown(cap(buf))
		return
	}
	select {
	case long <- buf[:0]:
	default:
	}
}

// dropHuge drops b's buffer (and its Out) when a long line grew it past
// keptBatchBytes, handing its memory back (see releaseOutgrown), and
// reports whether it did: the next stage (a second pass, the next file) then starts without
// it.
func dropHuge[T any](b *Batch[T]) bool {
	n := cap(b.data)
	if n <= keptBatchBytes {
		return false
	}
	var zero T
	b.data, b.ends, b.Out = nil, nil, zero // Out may hold pieces of the lines
	releaseOutgrown(n)
	return true
}
