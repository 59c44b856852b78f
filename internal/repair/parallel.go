package repair

import (
	"bytes"
	"errors"
	"io"
	"runtime"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// The first pass over a large file spreads the per-line work (scanning,
// the occasional full parse) over the CPUs. Lines are cut into batches of
// whole lines; workers judge the batches in any order; the classifier's
// state (header, result ids, pending calls) is applied in line order by
// one goroutine. The plan is identical to the sequential one.

// batchSize is the input read per batch: large enough that the hand-offs
// cost nothing, small enough that the batches in flight stay a few MiB.
const batchSize = 1 << 20

// batchesInFlight bounds the batches read ahead of the in-order consumer,
// per worker, which bounds memory.
const batchesInFlight = 3

// batch is a run of whole lines and the facts the workers found in them.
type batch struct {
	data   []byte
	num    int   // number of the line before the first one
	offset int64 // input offset of data[0]
	final  bool  // the last batch: its last line may lack a newline
	err    error // a read error after data
	facts  []lineFacts
	done   chan struct{}
}

// analyzeParallel is [Analyze] with workers goroutines judging lines.
func analyzeParallel(r io.Reader, workers int, onVerdict func(Verdict)) (Plan, error) {
	work := make(chan *batch, workers*batchesInFlight)
	order := make(chan *batch, workers*batchesInFlight)
	free := make(chan *batch, workers*batchesInFlight+2)
	for range workers {
		go func() {
			var j lineJudge
			for b := range work {
				b.judgeLines(&j)
				close(b.done)
			}
		}()
	}
	stop := make(chan struct{})
	defer close(stop)
	go readBatches(r, work, order, free, stop)
	c := NewClassifier()
	for b := range order {
		<-b.done
		for i := range b.facts {
			v := c.apply(&b.facts[i])
			if onVerdict != nil && (v.Action != Keep || v.Reserialize) {
				onVerdict(v)
			}
		}
		if b.err != nil {
			return Plan{}, b.err
		}
		recycle(b, free)
	}
	return c.Finish(), nil
}

// readBatches cuts r into batches of whole lines, hands each to the
// workers and, in order, to the consumer. It closes both channels at the
// end of the input or after a read error (carried by the last batch).
func readBatches(r io.Reader, work, order chan<- *batch, free chan *batch, stop <-chan struct{}) {
	defer close(work)
	defer close(order)
	var carry []byte
	num, offset := 0, int64(0)
	for {
		b := takeBatch(free, max(batchSize, 2*len(carry)))
		buf := append(b.data, carry...)
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		data := buf[:len(buf)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		b.num, b.offset, b.final = num, offset, true
		if err != nil && !eof {
			b.data, b.err = data, err
			send(b, work, order, stop)
			return
		}
		cut := len(data)
		if !eof {
			cut = bytes.LastIndexByte(data, '\n') + 1
			if cut == 0 { // a line longer than the buffer: read on with a bigger one
				carry = data
				continue
			}
		}
		b.data, b.final = data[:cut], eof
		carry = append(carry[:0:0], data[cut:]...)
		num += bytes.Count(b.data, []byte{'\n'})
		offset += int64(cut)
		if !send(b, work, order, stop) || eof {
			return
		}
	}
}

func send(b *batch, work, order chan<- *batch, stop <-chan struct{}) bool {
	b.done = make(chan struct{})
	select {
	case order <- b:
	case <-stop:
		return false
	}
	work <- b
	return true
}

// takeBatch reuses a consumed batch (its buffer and facts) when its buffer
// is big enough.
func takeBatch(free chan *batch, size int) *batch {
	select {
	case b := <-free:
		if cap(b.data) >= size {
			return b
		}
	default:
	}
	return &batch{data: make([]byte, 0, size)}
}

// recycle resets a consumed batch for reuse, unless it grew for a huge
// line (its buffer is then left to the garbage collector).
func recycle(b *batch, free chan *batch) {
	if cap(b.data) > 4*batchSize {
		return
	}
	clear(b.facts) // drop references to rewritten values and calls
	*b = batch{data: b.data[:0], facts: b.facts[:0]}
	select {
	case free <- b:
	default:
	}
}

// judgeLines splits the batch into lines exactly as jsonl.Reader does and
// judges each.
func (b *batch) judgeLines(j *lineJudge) {
	data, num, off := b.data, b.num, b.offset
	for len(data) > 0 {
		l := jsonl.Line{Num: num + 1, Offset: off}
		end := bytes.IndexByte(data, '\n')
		next := end + 1
		if end < 0 {
			end, next = len(data), len(data)
		} else {
			l.Newline = true
		}
		line := data[:end]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			l.CR, line = true, line[:n-1]
		}
		l.Bytes, l.Blank = line, jsonl.IsBlank(line)
		b.facts = append(b.facts, lineFacts{})
		j.judge(l, &b.facts[len(b.facts)-1]) // facts never alias the line: exact-path values are parsed copies
		data, num, off = data[next:], num+1, off+int64(next)
	}
}

// workersFor is how many goroutines judge lines.
func workersFor() int { return runtime.GOMAXPROCS(0) }
