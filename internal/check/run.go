package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
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
	// NotTranscript reports a file that is not a session transcript
	// ([NonTranscript]): it was not read, and is not replayed.
	NotTranscript bool
	// Omitted counts, per check id, the findings left out by
	// [Options.Limit] (nil when none were).
	Omitted map[ID]int
	// spilled yields the findings moved to a temp file by
	// [Options.SpillAbove], merged with those held at the end (nil when
	// none moved).
	spilled iter.Seq[Finding]
}

// Prepend puts fs before the result's findings (spilled ones included).
func (r *Result) Prepend(fs []Finding) {
	if r.spilled == nil {
		r.Findings = append(fs, r.Findings...)
		return
	}
	spilled := r.spilled
	r.spilled = func(yield func(Finding) bool) {
		for _, f := range fs {
			if !yield(f) {
				return
			}
		}
		for f := range spilled {
			if !yield(f) {
				return
			}
		}
	}
}

// All yields the result's findings in order: with [Options.SpillAbove]
// and a file that passed it, the spilled ones (read back once: All can be
// ranged over only once then) and then Findings, what callers appended;
// otherwise Findings.
func (r *Result) All() iter.Seq[Finding] {
	return func(yield func(Finding) bool) {
		if r.spilled != nil {
			for f := range r.spilled {
				if !yield(f) {
					return
				}
			}
		}
		for _, f := range r.Findings {
			if !yield(f) {
				return
			}
		}
	}
}

// parallelThreshold: smaller files are checked on one goroutine, where
// batching hand-offs would cost more than they save.
const parallelThreshold = 8 << 20

// Run runs the selected checks over one transcript read from r; once ctx
// is done it stops at the next read (the caller discards the result). path names it in findings;
// size is its length when known (-1 otherwise) and only chooses between the
// inline and the parallel pass. A read error after the first byte is
// reported as an [Unreadable] finding next to what was found before it.
//
// Each line is parsed once, by the repair classifier's scanner, on a
// worker; the ordered pass then applies the classifier's state, the
// navigation tree and the tool-call pairing (see the package doc).
func Run(ctx context.Context, r io.Reader, path string, size int64, sel Selection, opts Options) Result {
	r = jsonl.WithContext(ctx, r) // a cancelled run stops at its next read
	p := newPass(path, size, sel, opts)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if size >= 0 && size < parallelThreshold {
		workers = 1
	}
	maxDim := maxDimension(opts)
	err := jsonl.RunBatches(r, jsonl.Pipeline[lineFacts]{
		Workers:   workers,
		SizeHint:  size,
		BatchSize: jsonl.ScanBatchSize,
		Context:   ctx,
		NewWorker: func() func(*jsonl.Batch[lineFacts]) {
			x := &extractor{maxDim: maxDim, sizes: sel.Enabled(OversizedImage), rows: opts.Rows}
			return x.batch
		},
		Consume: func(b *jsonl.Batch[lineFacts]) error {
			p.batch(&b.Out)
			return nil
		},
	})
	res := Result{Path: path, Lines: p.lines, Bytes: p.bytes}
	if ctx.Err() != nil {
		if p.spill != nil {
			p.spill.close()
		}
		return res // interrupted: the caller discards it
	}
	if err != nil {
		res.Unreadable = p.lines == 0
		p.readError(err)
		res.Findings = p.findings
		if !res.Unreadable {
			res.Findings = p.finish()
		}
	} else {
		res.Findings = p.finish()
	}
	res.Omitted = p.omitted
	if p.spill != nil {
		res.spilled = p.spilledResult(res.Findings)
		res.Findings = nil
		return res
	}
	sortFindings(res.Findings)
	return res
}

// spilledResult is the sequence of a pass that spilled, fs being the
// findings still held: the found list's rest, then (from fixableStart on,
// when the end of the file was reached) the fixable list's and the end of
// the file's.
func (p *pass) spilledResult(fs []Finding) iter.Seq[Finding] {
	split := len(fs)
	if p.finishing {
		split = p.fixableStart
	}
	tail, rest := fs[:split], fs[split:]
	sortFindings(tail)
	sortFindings(rest)
	p.spill.flush()
	return p.spill.all(p.path, tail, rest)
}

// maxDimension is the image side limit in effect.
func maxDimension(opts Options) int {
	if opts.ImageMaxDimensionPx <= 0 {
		return 1200
	}
	return opts.ImageMaxDimensionPx
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
