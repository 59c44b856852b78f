package cmd

import (
	"context"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
)

// progressEnv tunes the progress line: "off" never shows it (to measure
// what it costs), "now" shows it from the start rather than after
// progressDelay (tests).
const progressEnv = "OPENCLAW_DOCTOR_PROGRESS"

const (
	progressDelay = time.Second            // work shorter than this shows no progress
	progressEvery = 250 * time.Millisecond // how often the line is redrawn
)

// progressEnabled is the one decision whether a command shows progress:
// only when standard error is a terminal, never in JSON mode, never with
// --quiet, never on a dumb terminal (the line is redrawn with an escape
// sequence), never when progressEnv is "off".
func progressEnabled(a *app, json bool) bool {
	return a.ErrIsTerminal && !json && !a.ui.Quiet && a.getenv("TERM") != "dumb" && a.getenv(progressEnv) != "off"
}

// progress draws the progress line of one command on standard error,
// from counters the work updates: bytes read (through jsonl's read
// counter, one atomic add per read of a batch or a line), files and replay
// targets done. Output the command writes meanwhile to standard error, or
// to standard output on a terminal, first erases the line, which the next
// tick redraws. A nil *progress does nothing.
type progress struct {
	verb       string
	files      int
	totalBytes int64 // negative when unknown
	targets    int64
	start      time.Time

	read, filesDone, targetsDone atomic.Int64

	mu      sync.Mutex // held while the line or other output is written
	tty     io.Writer  // standard error
	shown   bool
	stop    chan struct{}
	stopped chan struct{}
	restore func()
}

// startProgress starts the progress line of verb's work over paths (each
// regular file's size counts; any other input makes the total unknown)
// with targetsPerFile replays per file (0 without a replay matrix), when
// progressEnabled allows it. It returns ctx carrying the read counter
// (unchanged without progress), and the progress to end with finish.
func startProgress(ctx context.Context, a *app, verb string, json bool, paths []string, targetsPerFile int) (context.Context, *progress) {
	if !progressEnabled(a, json) {
		return ctx, nil
	}
	p := &progress{verb: verb, files: len(paths), targets: int64(targetsPerFile * len(paths)), start: time.Now(),
		tty: a.Err, stop: make(chan struct{}), stopped: make(chan struct{})}
	for _, path := range paths {
		fi, err := os.Stat(path)
		if path == "-" || path == "" || err != nil || !fi.Mode().IsRegular() {
			p.totalBytes = -1
			break
		}
		p.totalBytes += fi.Size()
	}
	out, errOut := a.Out, a.Err
	a.Err = &progressWriter{p: p, w: errOut}
	if a.OutIsTerminal {
		a.Out = &progressWriter{p: p, w: out}
	}
	p.restore = func() { a.Out, a.Err = out, errOut }
	delay := progressDelay
	if a.getenv(progressEnv) == "now" {
		p.draw()
		delay = progressEvery
	}
	go p.run(delay)
	return jsonl.WithReadCounter(ctx, &p.read), p
}

// run draws the line every progressEvery after delay, until finish.
func (p *progress) run(delay time.Duration) {
	defer close(p.stopped)
	wait := time.NewTimer(delay)
	defer wait.Stop()
	select {
	case <-p.stop:
		return
	case <-wait.C:
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = report.ProgressLine(p.tty, report.Progress{Verb: p.verb, Files: p.files, FilesDone: int(p.filesDone.Load()),
		Bytes: p.read.Load(), TotalBytes: p.totalBytes, Targets: p.targets, TargetsDone: p.targetsDone.Load(),
		Elapsed: time.Since(p.start)})
	p.shown = true
}

// clear erases the line if it is shown; the caller holds p.mu.
func (p *progress) clear() {
	if p.shown {
		_ = report.ClearProgress(p.tty)
		p.shown = false
	}
}

// fileDone counts one more file done.
func (p *progress) fileDone() {
	if p != nil {
		p.filesDone.Add(1)
	}
}

// targetDone counts one more replay target done (check --provider all).
func (p *progress) targetDone() {
	if p != nil {
		p.targetsDone.Add(1)
	}
}

// finish stops the line, erases it and gives the command its own
// streams back.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
	p.restore()
}

// progressWriter is a stream that shares the terminal with the progress
// line: each write first erases the line.
type progressWriter struct {
	p *progress
	w io.Writer
}

func (w *progressWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	w.p.clear()
	return w.w.Write(b)
}

// withoutReadCounter is ctx with its read counter hidden: reads that
// would count the same bytes twice (check --provider's replay of a file
// the line pass read) do not move the line.
func withoutReadCounter(ctx context.Context) context.Context {
	return jsonl.WithReadCounter(ctx, nil)
}

// paths are the inputs as startProgress sizes them: a store session has
// no size of its own ("").
func (d *discovery) paths() []string {
	out := make([]string, len(d.Inputs))
	for i, in := range d.Inputs {
		if in.Store == nil {
			out[i] = in.Path
		}
	}
	return out
}
