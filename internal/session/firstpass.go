package session

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// firstPassWorkers is how many goroutines judge lines in the first pass of
// a large input (a test seam).
var firstPassWorkers = func() int { return min(runtime.GOMAXPROCS(0), 4) }

// firstPassBatch is the size of the line batches the first pass hands out
// (a variable for tests).
var firstPassBatch = 1 << 20

// lineBatch is a run of consecutive non-blank lines, copied out of the
// reader, and their verdicts once judged.
type lineBatch struct {
	buf      []byte
	lines    []batchLine
	verdicts []lineVerdict
	judged   chan struct{} // closed when verdicts are filled
	err      error         // a read error after the batch's lines
	lastNum  int           // physical number of the last line read (blank or not)
}

type batchLine struct {
	start, end int // in buf
	off        int64
	num        int
	first      bool
}

// readParallel is read with the judging (JSON.parse's verdict and the
// envelope scan, nearly all of the first pass's work) spread over workers:
// one goroutine splits lines into batches, the workers judge whole
// batches, and the verdicts are applied here in file order, so the result
// is exactly read's.
func (l *loader) readParallel(r io.Reader, workers int) error {
	var acc verdicts
	acc.recs.size = l.size
	defer func() { l.recs = acc.finish() }()

	const inFlight = 8
	free := make(chan *lineBatch, inFlight)
	for range inFlight {
		free <- &lineBatch{buf: make([]byte, 0, firstPassBatch+firstPassBatch/4)}
	}
	work := make(chan *lineBatch, inFlight)
	order := make(chan *lineBatch, inFlight)
	quit := make(chan struct{})
	defer close(quit)

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := newArena(64 << 10) // records keep strings from here
			for b := range work {
				b.verdicts = slices.Grow(b.verdicts[:0], len(b.lines))
				for _, ln := range b.lines {
					b.verdicts = append(b.verdicts, judgeLine(b.buf[ln.start:ln.end], ln.off, ln.num, ln.first, ids))
				}
				close(b.judged)
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(work)
		splitBatches(r, free, work, order, quit)
	}()
	defer wg.Wait()

	for b := range order {
		<-b.judged
		for _, v := range b.verdicts {
			acc.apply(&l.malformed, v)
		}
		l.lines = b.lastNum
		if b.err != nil {
			return b.err
		}
		clear(b.verdicts) // drop the records' strings
		if cap(b.buf) > 4*firstPassBatch {
			b.buf = nil // a huge line made it grow: do not keep that
		}
		free <- b
	}
	return nil
}

// splitBatches reads lines into batches and sends each to the workers and,
// in file order, to the collector; a read error ends the last batch.
func splitBatches(r io.Reader, free <-chan *lineBatch, work, order chan<- *lineBatch, quit <-chan struct{}) {
	rd := jsonl.NewReader(r)
	first := true
	lastNum := 0
	var b *lineBatch
	send := func() bool {
		b.lastNum = lastNum
		select {
		case order <- b:
		case <-quit:
			return false
		}
		work <- b // the workers never stop before work is closed
		b = nil
		return true
	}
	for {
		if b == nil {
			select {
			case b = <-free:
			case <-quit:
				return
			}
			b.buf, b.lines, b.err = b.buf[:0], b.lines[:0], nil
			b.judged = make(chan struct{})
		}
		line, err := rd.Next()
		if errors.Is(err, io.EOF) {
			send()
			return
		}
		if err != nil {
			b.err = fmt.Errorf("reading line %d: %w", lastNum+1, err)
			send()
			return
		}
		lastNum = line.Num
		if line.Blank {
			continue
		}
		start := len(b.buf)
		b.buf = append(b.buf, line.Bytes...)
		b.lines = append(b.lines, batchLine{start: start, end: len(b.buf), off: line.Offset, num: line.Num, first: first})
		first = false
		if len(b.buf) >= firstPassBatch && !send() {
			return
		}
	}
}
