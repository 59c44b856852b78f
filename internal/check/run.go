package check

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Result is the outcome of checking one file.
type Result struct {
	Path     string
	Findings []Finding // in line order, file-level findings first
	Lines    int       // physical lines read
	Bytes    int64     // bytes read
	// Unreadable reports that the file could not be read at all (its only
	// finding is then an [Unreadable] one).
	Unreadable bool
}

// Batching. Lines are copied into batches of about batchBytes so that
// workers can parse them while the ordered pass consumes earlier batches;
// inFlight batches bound memory to inFlight × batchBytes plus the longest
// line.
const (
	batchBytes = 1 << 20
	batchLines = 8192
	inFlight   = 4
	// parallelThreshold: smaller files are checked on one goroutine, where
	// batching and hand-offs would cost more than they save.
	parallelThreshold = 8 << 20
	// keptBatchBytes: a batch buffer grown past this by a long line is
	// dropped after use rather than kept for the rest of the file.
	keptBatchBytes = 4 * batchBytes
)

// Reader checks one transcript read from r. path names it in findings;
// size is its length when known (-1 otherwise) and only chooses between the
// inline and the parallel pass. A read error after the first byte is
// reported as an [Unreadable] finding next to what was found before it.
func Reader(r io.Reader, path string, size int64, sel Selection, opts Options) Result {
	p := newPass(path, sel, opts)
	rd := jsonl.NewReader(r)
	var err error
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 || (size >= 0 && size < parallelThreshold) {
		err = runInline(rd, p, opts)
	} else {
		err = runParallel(rd, p, opts, workers)
	}
	res := Result{Path: path, Lines: p.lines, Bytes: p.bytes}
	if err != nil {
		res.Unreadable = p.lines == 0
		p.readError(err)
		res.Findings = p.findings
		if !res.Unreadable {
			res.Findings = p.finish()
		}
		sortFindings(res.Findings)
		return res
	}
	res.Findings = p.finish()
	sortFindings(res.Findings)
	return res
}

// batch is a run of consecutive lines with their facts.
type batch struct {
	buf    []byte
	lines  []jsonl.Line
	ends   []int // end of each line's bytes in buf
	facts  []facts
	calls  []callFact
	images []imageFact
	ready  chan struct{}
}

// fill reads lines until the batch is full; eof reports the end of input.
func (b *batch) fill(rd *jsonl.Reader) (eof bool, err error) {
	if cap(b.buf) > keptBatchBytes || b.buf == nil {
		b.buf = make([]byte, 0, batchBytes+batchBytes/4) // room for the line that crosses the mark
	}
	b.buf, b.lines, b.ends = b.buf[:0], b.lines[:0], b.ends[:0]
	defer b.settle()
	for len(b.buf) < batchBytes && len(b.lines) < batchLines {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		b.buf = append(b.buf, l.Bytes...)
		l.Bytes = nil
		b.lines = append(b.lines, l)
		b.ends = append(b.ends, len(b.buf))
	}
	return false, nil
}

// settle points each line at its bytes once buf stopped moving.
func (b *batch) settle() {
	start := 0
	for i, end := range b.ends {
		b.lines[i].Bytes = b.buf[start:end:end]
		start = end
	}
}

// extractAll computes the facts of every line of the batch.
func (b *batch) extractAll(x *extractor) {
	b.calls, b.images = b.calls[:0], b.images[:0]
	if cap(b.facts) < len(b.lines) {
		b.facts = make([]facts, len(b.lines))
	}
	b.facts = b.facts[:len(b.lines)]
	for i, l := range b.lines {
		x.extract(l, &b.facts[i], b)
	}
}

// consume runs the ordered pass over the batch.
func (b *batch) consume(p *pass) {
	for i := range b.lines {
		p.line(b.lines[i], &b.facts[i], b)
	}
}

func runInline(rd *jsonl.Reader, p *pass, opts Options) error {
	x := newExtractor(p.sel, opts)
	var b batch
	for {
		eof, err := b.fill(rd)
		b.extractAll(x)
		b.consume(p)
		if err != nil || eof {
			return err
		}
	}
}

// runParallel reads on one goroutine, extracts facts on workers and runs
// the ordered pass on the caller's goroutine, in input order.
func runParallel(rd *jsonl.Reader, p *pass, opts Options, workers int) error {
	free := make(chan *batch, inFlight)
	for range inFlight {
		free <- &batch{}
	}
	work := make(chan *batch, inFlight)
	ordered := make(chan *batch, inFlight)
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		for {
			b := <-free
			eof, err := b.fill(rd)
			b.ready = make(chan struct{})
			work <- b
			ordered <- b
			if err != nil || eof {
				readErr = err
				return
			}
		}
	}()
	for range workers {
		go func() {
			x := newExtractor(p.sel, opts)
			for b := range work {
				b.extractAll(x)
				close(b.ready)
			}
		}()
	}
	for b := range ordered {
		<-b.ready
		b.consume(p)
		free <- b
	}
	return readErr // closing ordered happened after readErr was set
}

func newExtractor(sel Selection, opts Options) *extractor {
	maxDim := opts.ImageMaxDimensionPx
	if maxDim <= 0 {
		maxDim = 1200
	}
	return &extractor{maxDim: maxDim, sizes: sel.Enabled(OversizedImage)}
}

// readError notes a failed read.
func (p *pass) readError(err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is the finding's
	}
	msg := fmt.Sprintf("cannot read the file: %v", err)
	if p.lines > 0 {
		msg = fmt.Sprintf("reading stopped after line %d: %v", p.lines, err)
	}
	p.addFileFinding(Unreadable, p.lines, msg)
}

// Unopened is the result for a file that could not be opened: its only
// finding is an [Unreadable] one naming the cause.
func Unopened(path string, err error, sel Selection) Result {
	p := &pass{path: path, sel: sel}
	p.readError(err)
	return Result{Path: path, Findings: p.findings, Unreadable: true}
}
