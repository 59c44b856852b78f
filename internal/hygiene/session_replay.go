package hygiene

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The one way a session file is replayed, for `replay` (one target, its
// messages printed) and `check --provider` (several targets, only their
// changes kept): segment by segment over a context stream (stream.go),
// with memory bounded by a segment per target, and whole wherever the
// segmented replay cannot vouch for its result.

// segmentRetries is how many times ReplaySession tries a target's
// segmented replay again, each time avoiding one more cut that met a
// hazard, before it replays the session whole for that target.
const segmentRetries = 3

// sessionBatch is how many targets one read of the session serves when
// the output is not a ChangeSink: each batch's change logs are handed over
// before the next batch is read, which bounds how many logs there are at
// once. A ChangeSink takes the changes a segment at a time, so that the runs
// keep no log and one read serves every run.
const sessionBatch = 3

// SessionOutput receives what ReplaySession makes of each of its configs
// (run k replays configs[k]).
type SessionOutput interface {
	// Begin is called before each attempt at run k: a segmented one, or
	// (whole) the whole-list replay, which loads the whole branch into
	// memory. Whatever Segment received for run k before is void.
	Begin(k int, whole bool) error
	// Segment receives run k's replayed messages of a segmented attempt, in
	// order, a segment at a time. The slice's room is reused once Segment
	// returns, and may be another run's too (Segment only reads it); the
	// message values are not reused.
	Segment(k int, msgs []Message) error
	// Done reports how run k ended; it is called once per run.
	Done(k int, res Replayed) error
}

// ChangeSink is a SessionOutput that takes each run's changes as they are
// made, a segment at a time, so that no run keeps a change log (a log holds
// a change per rewritten tool call, say, of the whole session): one read of
// the session then serves every run.
type ChangeSink interface {
	SessionOutput
	// Changes receives run k's changes of one segment of a segmented
	// attempt, in the order the rules recorded them, and each one's step
	// key: the run's whole change log (ReplayContext's) is the stable sort
	// of every change Changes received for the run since its last Begin by
	// that key. The Replayed.Run of a segmented attempt's Done then has no
	// Changes; a whole-list replay's has them all, and Changes is not
	// called for it. The slices' room is reused once Changes returns.
	Changes(k int, changes []Change, steps []int) error
}

// Replayed is how one run of ReplaySession ended.
type Replayed struct {
	// Run holds the replay's changes (or change counts) and the policy.
	Run *Run
	// ContextLen is how many context messages the branch has.
	ContextLen int
	// Whole reports a whole-list replay: Messages are then the replayed
	// messages and Refusal is OpenClaw's refusal of the history (Messages
	// nil). Otherwise the replayed messages are what Segment received
	// since the run's last Begin, and there is no refusal (a history
	// OpenClaw refuses is always replayed whole).
	Whole    bool
	Messages []Message
	Refusal  error
}

// WholeLoadError is ReplaySession's error when the session, which the
// segmented replay could not vouch for, cannot be loaded whole: Err is
// session.ReadContext's.
type WholeLoadError struct{ Err error }

func (e *WholeLoadError) Error() string { return e.Err.Error() }

func (e *WholeLoadError) Unwrap() error { return e.Err }

// ReplaySession replays the session src holds for every config, each as
// ReplayContext would, and hands each run's outcome to out. stream is src's
// context stream, which the caller opened (its Facts complete the targets)
// and ReplaySession closes.
//
// The runs go segment by segment over one read of the session when out is
// a ChangeSink, otherwise a batch of sessionBatch runs per read; the runs
// of a read share the sanitize steps their policies agree on
// (shared_steps.go). A run whose segmented replay met a
// hazard at one cut goes again, on a fresh stream of src, without that cut
// (up to segmentRetries times); a run with any other hazard, and every run
// not done when a stream fails (a line that changed, or one OpenClaw's
// loader throws on) or cannot be opened again, is replayed whole at the
// end, from one load of the session (a *WholeLoadError when it fails).
//
// Configs that replay alike (the same policy, and the same answers to
// whatever else of the target the rules ask: replayKey) are replayed once:
// out gets the same messages and changes for each of them, each run's
// Replayed.Run with its own Config. The configs are taken to share one
// clock and UUID source.
//
// The error is also ctx's, once it is done (the replay stops between two
// chunks of the stream, or before the whole-list replay), and the first of
// out's.
func ReplaySession(ctx context.Context, src io.ReaderAt, stream *session.ContextStream, configs []Config, out SessionOutput) error {
	sink, _ := out.(ChangeSink)
	if leaders, runs := sameReplays(configs, stream.Facts.ModelSnapshot); len(leaders) < len(configs) {
		shared := &sharedOutput{out: out, sink: sink, runs: runs, configs: configs}
		out = shared
		if sink != nil {
			sink = shared
		}
		configs = leaders
	}
	p := &sessionReplay{ctx: ctx, src: src, stream: stream, configs: configs, out: out, batch: sessionBatch,
		avoid: make([]map[int]bool, len(configs)), done: make([]bool, len(configs))}
	if sink != nil {
		p.changes, p.batch = sink.Changes, len(configs)
	}
	defer func() {
		if p.stream != nil {
			p.stream.Close()
		}
	}()
	if err := p.segmented(); err != nil {
		return err
	}
	return p.whole()
}

// sessionReplay is the state of one ReplaySession.
type sessionReplay struct {
	ctx     context.Context
	src     io.ReaderAt
	stream  *session.ContextStream // the stream the next batch reads; nil once used
	configs []Config
	out     SessionOutput
	changes changeSink     // the output's ChangeSink, or nil
	batch   int            // how many runs one read serves
	avoid   []map[int]bool // by run: the cuts that met a hazard
	done    []bool         // by run: its segmented replay was exact
}

// segmented runs the segmented attempts: every run first, then the runs
// that met a hazard at a cut, again, until none is left to try.
func (p *sessionReplay) segmented() error {
	pending := make([]int, len(p.configs))
	for k := range pending {
		pending[k] = k
	}
	for attempt := 0; len(pending) > 0; attempt++ {
		var again []int
		for start := 0; start < len(pending); start += p.batch {
			if p.stream == nil {
				s, err := session.OpenContext(p.src)
				if err != nil {
					return nil // the whole-list load reports it
				}
				p.stream = s
			}
			retry, readFailed, err := p.attempt(pending[start:min(start+p.batch, len(pending))], attempt)
			if err != nil || readFailed {
				return err
			}
			again = append(again, retry...)
		}
		pending = again
	}
	return nil
}

// attempt replays the runs of batch over p.stream, which it uses up, and
// returns the runs to try again without a cut. readFailed reports a stream
// that failed: the runs left go whole.
func (p *sessionReplay) attempt(batch []int, attempt int) (retry []int, readFailed bool, err error) {
	runs := make([]*Run, len(batch))
	avoid := map[int]bool{} // a read serves every run of the batch: no cut any of them avoids
	for i, k := range batch {
		if err := p.out.Begin(k, false); err != nil {
			return nil, false, err
		}
		runs[i] = &Run{Config: p.configs[k]}
		for cut := range p.avoid[k] {
			avoid[cut] = true
		}
	}
	s := p.stream
	contextLen := 0
	var readErr error
	next := func() ([]session.ContextMessage, error) {
		if err := p.ctx.Err(); err != nil {
			return nil, err
		}
		msgs, err := s.Next()
		if err != nil && !errors.Is(err, io.EOF) {
			readErr = err
		}
		contextLen += len(msgs)
		return msgs, err
	}
	emit := segmentEmitter(p.out, s, runs, batch)
	var changes changeSink
	if p.changes != nil {
		changes = func(i int, cs []Change, steps []int) error { return p.changes(batch[i], cs, steps) }
	}
	errs, err := replayStreamAll(runs, s.Facts, avoid, next, emit, changes)
	s.Close()
	p.stream = nil
	switch {
	case err == nil && !slices.ContainsFunc(errs, func(e error) bool { return e != nil }):
	case p.ctx.Err() != nil:
		return nil, false, p.ctx.Err()
	case readErr != nil:
		return nil, true, nil
	case err != nil:
		return nil, false, err
	}
	for i, k := range batch {
		var h *segmentHazard
		switch {
		case errs[i] == nil:
			p.done[k] = true
			if err := p.out.Done(k, Replayed{Run: runs[i], ContextLen: contextLen}); err != nil {
				return nil, false, err
			}
		case errors.As(errs[i], &h) && h.Cut >= 0 && attempt < segmentRetries:
			if p.avoid[k] == nil {
				p.avoid[k] = map[int]bool{}
			}
			p.avoid[k][h.Cut] = true
			retry = append(retry, k)
		}
	}
	return retry, false, nil
}

// whole replays every run the segmented replay did not vouch for over one
// load of the whole branch: each on a copy of its messages, but the last,
// which consumes them.
func (p *sessionReplay) whole() error {
	var runs []int
	for k, done := range p.done {
		if !done {
			runs = append(runs, k)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	for _, k := range runs {
		if err := p.out.Begin(k, true); err != nil {
			return err
		}
	}
	sctx, err := session.ReadContext(p.src)
	if err != nil {
		return &WholeLoadError{Err: err}
	}
	if err := p.ctx.Err(); err != nil {
		return err
	}
	contextLen := len(sctx.Messages)
	for i, k := range runs {
		r := &Run{Config: p.configs[k]}
		var msgs []Message
		var refusal error
		if i == len(runs)-1 {
			msgs, refusal = ReplayContext(r, sctx)
		} else {
			msgs, refusal = replayCopy(r, sctx)
		}
		if err := p.out.Done(k, Replayed{Run: r, ContextLen: contextLen, Whole: true, Messages: msgs, Refusal: refusal}); err != nil {
			return err
		}
	}
	return nil
}

// sharedOutput hands what ReplaySession makes of each leader of a group of
// configs that replay alike (sameReplays) to out for every run of the
// group.
type sharedOutput struct {
	out     SessionOutput
	sink    ChangeSink // out, when it is one
	runs    [][]int    // by leader: the caller's runs of its group, itself first
	configs []Config   // the caller's
}

func (s *sharedOutput) Begin(k int, whole bool) error {
	for _, j := range s.runs[k] {
		if err := s.out.Begin(j, whole); err != nil {
			return err
		}
	}
	return nil
}

func (s *sharedOutput) Segment(k int, msgs []Message) error {
	for _, j := range s.runs[k] {
		if err := s.out.Segment(j, msgs); err != nil {
			return err
		}
	}
	return nil
}

func (s *sharedOutput) Changes(k int, changes []Change, steps []int) error {
	for _, j := range s.runs[k] {
		if err := s.sink.Changes(j, changes, steps); err != nil {
			return err
		}
	}
	return nil
}

// Done gives each run of the group a copy of the leader's Run with the
// run's own Config (the changes themselves are shared).
func (s *sharedOutput) Done(k int, res Replayed) error {
	for i, j := range s.runs[k] {
		own := res
		if i > 0 {
			run := *res.Run
			run.Config = s.configs[j]
			own.Run = &run
		}
		if err := s.out.Done(j, own); err != nil {
			return err
		}
	}
	return nil
}
