package hygiene

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// withLanes sets laneLimit to n until the test ends.
func withLanes(t *testing.T, n int) {
	t.Helper()
	prev := laneLimit
	laneLimit = func() int { return n }
	t.Cleanup(func() { laneLimit = prev })
}

// TestNewLanes: the runs of the matrix's distinct replays go into as many
// lanes as the limit allows, each run in one lane, the lanes about equal,
// each cut between lanes where the runs on its sides share the fewest
// prefix steps of the cuts next to it.
func TestNewLanes(t *testing.T) {
	targets := readConformanceTargets(t)
	configs := make([]Config, len(targets))
	for k, ct := range targets {
		configs[k] = conformanceRun(ct.Target).Config
	}
	leaders, _ := sameReplays(configs, nil)
	runs := make([]*Run, len(leaders))
	for k, c := range leaders {
		runs[k] = &Run{Config: c}
	}
	order, shared := prefixOrder(runs)
	for _, c := range []struct{ limit, runs, lanes int }{
		{1, len(runs), 1},
		{2, len(runs), 2},
		{3, len(runs), 3},
		{4, 2, 2},
		{2, 1, 1},
		{0, len(runs), 1},
	} {
		withLanes(t, c.limit)
		lanes := newLanes(runs[:c.runs])
		if len(lanes) != c.lanes {
			t.Errorf("limit %d, %d runs: %d lanes, want %d", c.limit, c.runs, len(lanes), c.lanes)
			continue
		}
		var all []int
		for j, l := range lanes {
			if n := len(l.runs); n < c.runs/c.lanes-1 || n > c.runs/c.lanes+2 {
				t.Errorf("limit %d, %d runs: lane %d has %d runs", c.limit, c.runs, j, n)
			}
			for k := range l.in {
				if l.in[k] != slices.Contains(l.runs, k) {
					t.Errorf("limit %d: lane %d: in[%d] = %v", c.limit, j, k, l.in[k])
				}
			}
			all = append(all, l.runs...)
		}
		if c.runs != len(runs) {
			continue
		}
		if !slices.Equal(all, order) {
			t.Errorf("limit %d: lanes %v, want the prefix order %v cut", c.limit, all, order)
		}
		at := 0
		for _, l := range lanes[:len(lanes)-1] {
			at += len(l.runs)
			for _, p := range []int{at - 1, at + 1} {
				if p > 0 && p < len(shared) && shared[p] < shared[at] {
					t.Errorf("limit %d: cut at %d (runs sharing %d steps), not at %d (%d)", c.limit, at, shared[at], p, shared[p])
				}
			}
		}
	}
}

// TestReplaySessionLanes: every lane count gives each target what
// replaying it alone, whole, gives (TestReplaySessionChangeSink's
// sessions and comparison).
func TestReplaySessionLanes(t *testing.T) {
	for _, n := range []int{1, 3} {
		withLanes(t, n)
		testReplaySessionChangeSink(t)
	}
}

// blockingOutput is a sinkOutput whose first Segment call waits until
// release is closed, after telling started.
type blockingOutput struct {
	sinkOutput
	once             sync.Once
	started, release chan struct{}
}

func (o *blockingOutput) Segment(k int, msgs []Message) error {
	o.once.Do(func() {
		close(o.started)
		<-o.release
	})
	return o.sinkOutput.Segment(k, msgs)
}

// TestReplaySessionCancelledInLanes: a context cancelled while both lanes
// replay a segment (one waiting on the output, the other on its turn at
// it or at its rules) stops the replay with the context's error once the
// segment is done, no run done, and leaves no goroutine behind.
func TestReplaySessionCancelledInLanes(t *testing.T) {
	withLanes(t, 2)
	defer func(n int) { minSegmentMessages = n }(minSegmentMessages)
	minSegmentMessages = 64
	before := runtime.NumGoroutine()
	data := sessiontest.Long("")
	s, configs := openReplay(t, data, longSessionTargets)
	out := &blockingOutput{sinkOutput: sinkOutput{recordedOutput: recordedOutput{begins: map[int]string{}, segments: map[int][]Message{}, done: map[int]Replayed{}},
		changes: map[int][]Change{}, steps: map[int][]int{}, calls: map[int]int{}},
		started: make(chan struct{}), release: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error)
	go func() { done <- ReplaySession(ctx, bytes.NewReader(data), s, configs, out) }()
	<-out.started
	waitFor(t, "both lanes at the output", func() bool {
		stacks := make([]byte, 1<<20)
		stacks = stacks[:runtime.Stack(stacks, true)]
		at := 0 // one holds the output, the other waits for its turn
		for _, g := range bytes.Split(stacks, []byte("\n\ngoroutine ")) {
			if bytes.Contains(g, []byte(".serialized.func")) {
				at++
			}
		}
		return at == 2
	})
	cancel()
	close(out.release)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want the context's", err)
	}
	if len(out.done) > 0 {
		t.Errorf("%d runs done", len(out.done))
	}
	waitFor(t, "the goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("waited 30 s for %s; goroutines:\n%s", what, strings.TrimSpace(string(buf[:runtime.Stack(buf, true)])))
		}
	}
}
