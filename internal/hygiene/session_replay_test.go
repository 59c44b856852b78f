package hygiene

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// longSessionTargets are more targets than one batch holds, with three id
// policies (native, Responses, strict9).
var longSessionTargets = []Target{
	{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"},
	{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5.5"},
	{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "mistral-large-latest"},
	{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"},
}

// TestLongSessionHazards: the long sessions of sessiontest segment, and
// meet the hazards TestReplaySession relies on: none on the clean one, one
// at the first cut (message 4096, which a rule's removal of the turn right
// after it spoils) that avoiding the cut gets past, and one no cut avoids
// (a late tool result reaching back over every cut).
func TestLongSessionHazards(t *testing.T) {
	clean, retry, late := sessiontest.Long(""), sessiontest.Long(sessiontest.CallWithoutInput), sessiontest.Long(sessiontest.LateResult)
	for _, target := range longSessionTargets {
		if got := segmentedOutcome(t, clean, target, nil); got != nil {
			t.Fatalf("clean session, %s: segmented replay failed: %v", target.Provider, got)
		}
		var h *segmentHazard
		if got := segmentedOutcome(t, late, target, nil); !errors.As(got, &h) || h.Cut >= 0 {
			t.Fatalf("late-result session, %s: segmented replay gave %v, want a hazard no cut avoids", target.Provider, got)
		}
		if got := segmentedOutcome(t, retry, target, nil); !errors.As(got, &h) || h.Cut != 4096 {
			t.Fatalf("retry session, %s: segmented replay gave %v, want a hazard at the cut before message 4096", target.Provider, got)
		}
		if got := segmentedOutcome(t, retry, target, map[int]bool{4096: true}); got != nil {
			t.Fatalf("retry session, %s: segmented replay avoiding the cut failed: %v", target.Provider, got)
		}
	}
}

// segmentedOutcome runs the segmented replay of data alone, avoiding the
// cuts before the messages of avoid, and returns its error; it fails the
// test when the session fits in one segment.
func segmentedOutcome(t *testing.T, data []byte, target Target, avoid map[int]bool) error {
	t.Helper()
	s, err := session.OpenContext(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	segments := 0
	err = replayStream(replayTestRun(target), s.Facts, avoid, s.Next, func([]Message) error {
		segments++
		return nil
	})
	if err == nil && segments < 2 {
		t.Fatalf("%d segment(s): too short to test the segmented replay", segments)
	}
	return err
}

// TestReplaySession: for every target, in batches, ReplaySession hands
// over exactly the whole-list replay (messages, changes, context length):
// segment by segment on the clean session, after a second attempt on the
// session with a cut to avoid, and whole on the one no cut helps.
func TestReplaySession(t *testing.T) {
	for _, c := range []struct {
		name, damage string
		begins       string // the Begin calls of each run: s segmented, w whole
	}{
		{"clean", "", "s"},
		{"retry", sessiontest.CallWithoutInput, "ss"},
		{"late-result", sessiontest.LateResult, "sw"},
	} {
		data := sessiontest.Long(c.damage)
		out := replaySessionOf(t, context.Background(), data, longSessionTargets)
		if out.err != nil {
			t.Fatalf("%s: %v", c.name, out.err)
		}
		whole, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for k, target := range longSessionTargets {
			res, ok := out.done[k]
			if !ok {
				t.Fatalf("%s, %s: no outcome", c.name, target.Provider)
			}
			if got := out.begins[k]; got != c.begins {
				t.Errorf("%s, %s: attempts %q, want %q", c.name, target.Provider, got, c.begins)
			}
			if res.Whole != (c.begins[len(c.begins)-1] == 'w') {
				t.Errorf("%s, %s: whole = %v", c.name, target.Provider, res.Whole)
			}
			msgs := res.Messages
			if !res.Whole {
				msgs = out.segments[k]
			}
			wantRun := replayTestRun(target)
			want, wantErr := replayCopy(wantRun, whole)
			if d := diffMessages(msgs, want); d != "" || res.Refusal != nil || wantErr != nil {
				t.Errorf("%s, %s: %s (refusal %v, whole-list replay's %v)", c.name, target.Provider, d, res.Refusal, wantErr)
			}
			if !reflect.DeepEqual(res.Run.Changes, wantRun.Changes) || len(wantRun.Changes) == 0 {
				t.Errorf("%s, %s: %d changes, whole-list replay %d", c.name, target.Provider, len(res.Run.Changes), len(wantRun.Changes))
			}
			if res.ContextLen != len(whole.Messages) {
				t.Errorf("%s, %s: %d context messages, want %d", c.name, target.Provider, res.ContextLen, len(whole.Messages))
			}
		}
	}
}

// TestReplaySessionCancelled: a cancelled context stops the replay before
// any run is done.
func TestReplaySessionCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := replaySessionOf(t, ctx, sessiontest.Long(""), longSessionTargets[:1])
	if !errors.Is(out.err, context.Canceled) || len(out.done) > 0 {
		t.Errorf("err %v, %d runs done", out.err, len(out.done))
	}
}

// recordedOutput records what ReplaySession hands over.
type recordedOutput struct {
	begins   map[int]string
	segments map[int][]Message
	done     map[int]Replayed
	err      error
}

func (o *recordedOutput) Begin(k int, whole bool) error {
	if _, ok := o.done[k]; ok {
		return fmt.Errorf("run %d begins again after it was done", k)
	}
	o.begins[k] += map[bool]string{false: "s", true: "w"}[whole]
	o.segments[k] = nil
	return nil
}

func (o *recordedOutput) Segment(k int, msgs []Message) error {
	o.segments[k] = append(o.segments[k], slices.Clone(msgs)...)
	return nil
}

func (o *recordedOutput) Done(k int, res Replayed) error {
	if _, ok := o.done[k]; ok {
		return fmt.Errorf("run %d done twice", k)
	}
	o.done[k] = res
	return nil
}

// replaySessionOf runs ReplaySession over data for targets, with the
// clock of replayTestRun.
func replaySessionOf(t *testing.T, ctx context.Context, data []byte, targets []Target) *recordedOutput {
	t.Helper()
	s, configs := openReplay(t, data, targets)
	out := &recordedOutput{begins: map[int]string{}, segments: map[int][]Message{}, done: map[int]Replayed{}}
	out.err = ReplaySession(ctx, bytes.NewReader(data), s, configs, out)
	return out
}

// openReplay opens the context stream of data and the configs of targets,
// with the clock of replayTestRun.
func openReplay(t *testing.T, data []byte, targets []Target) (*session.ContextStream, []Config) {
	t.Helper()
	s, err := session.OpenContext(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	configs := make([]Config, len(targets))
	for k, target := range targets {
		configs[k] = replayTestRun(target).Config
	}
	return s, configs
}

// sinkOutput is a recordedOutput that is a ChangeSink: it keeps each run's
// changes as the segments hand them over, with their step keys.
type sinkOutput struct {
	recordedOutput
	changes map[int][]Change
	steps   map[int][]int
	calls   map[int]int // by run: the segments that handed changes over
}

func (o *sinkOutput) Begin(k int, whole bool) error {
	o.changes[k], o.steps[k], o.calls[k] = nil, nil, 0
	return o.recordedOutput.Begin(k, whole)
}

func (o *sinkOutput) Changes(k int, changes []Change, steps []int) error {
	if len(changes) > 0 {
		o.calls[k]++
	}
	o.changes[k] = append(o.changes[k], changes...)
	o.steps[k] = append(o.steps[k], steps...)
	return nil
}

// log is run k's change log: what Changes received, stably sorted by step
// key.
func (o *sinkOutput) log(k int) []Change {
	order := make([]int, len(o.changes[k]))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return o.steps[k][a] - o.steps[k][b] })
	log := make([]Change, len(order))
	for i, j := range order {
		log[i] = o.changes[k][j]
	}
	return log
}

// TestReplaySessionChangeSink: with an output that takes the changes a
// segment at a time, ReplaySession replays every conformance target over
// one read of sessions stitched from the conformance cases and of damaged
// sessions, in segments of a few messages, and each target gets what
// replaying it alone, whole, gives: its messages, and its change log as
// the stable sort of the changes handed over by their step keys (the
// segmented runs' Done carrying none).
func TestReplaySessionChangeSink(t *testing.T) {
	testReplaySessionChangeSink(t)
}

func testReplaySessionChangeSink(t *testing.T) {
	t.Helper()
	small := casesWithoutImages(t)
	var sessions [][]byte
	for seed := range uint64(6) {
		sessions = append(sessions, stitchSession(t, small, seed))
	}
	for i, s := range sessiontest.DamagedSeeds(t) {
		if i%9 == 0 {
			sessions = append(sessions, sessiontest.Damaged(s.Base, s.Program))
		}
	}
	defer func(n int) { minSegmentMessages = n }(minSegmentMessages)
	minSegmentMessages = 3
	targets := readConformanceTargets(t)
	segmented := 0
	for i, data := range sessions {
		whole, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			continue // the loader's errors are not the replay's
		}
		stream, err := session.OpenContext(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		configs := make([]Config, len(targets))
		for k, ct := range targets {
			configs[k] = conformanceRun(ct.Target).Config
		}
		out := &sinkOutput{recordedOutput: recordedOutput{begins: map[int]string{}, segments: map[int][]Message{}, done: map[int]Replayed{}},
			changes: map[int][]Change{}, steps: map[int][]int{}, calls: map[int]int{}}
		if err := ReplaySession(context.Background(), bytes.NewReader(data), stream, configs, out); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		for k, ct := range targets {
			if out.calls[k] > 1 && !out.done[k].Whole {
				segmented++ // changes from more than one segment
			}
			res := out.done[k]
			wantRun := conformanceRun(ct.Target)
			want, wantErr := ReplayContext(wantRun, cloneContext(whole))
			msgs, changes := out.segments[k], out.log(k)
			if res.Whole {
				msgs, changes = res.Messages, res.Run.Changes
			} else if len(res.Run.Changes) > 0 {
				t.Errorf("session %d [%s]: a segmented run's Done carries %d changes", i, ct.Name, len(res.Run.Changes))
			}
			if (res.Refusal != nil) != (wantErr != nil) {
				t.Errorf("session %d [%s]: refusal %v, whole-list replay's %v", i, ct.Name, res.Refusal, wantErr)
				continue
			}
			if wantErr == nil {
				if d := diffMessages(msgs, want); d != "" {
					t.Errorf("session %d [%s]: %s", i, ct.Name, d)
				}
			}
			if (len(changes) > 0 || len(wantRun.Changes) > 0) && !reflect.DeepEqual(changes, wantRun.Changes) {
				t.Errorf("session %d [%s] (attempts %q): changes differ:\n got %v\nwant %v", i, ct.Name, out.begins[k], changes, wantRun.Changes)
			}
		}
	}
	if segmented < len(sessions) {
		t.Fatalf("%d runs over %d sessions got changes from more than one segment", segmented, len(sessions))
	}
}
