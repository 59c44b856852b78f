package hygiene

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestStepsLeaveTheirInput: from prefixSteps[sharedFrom] on, the rules
// never edit a value of the messages they are given (they copy what they
// change), so the runs of a segmented replay may share the messages that
// reach those steps (shared_steps.go). Every conformance case and a few
// stitched sessions, for every target: the messages that reach the steps
// print the same after the rest of the replay as before it. And the stages
// of steps 10–18 never write into the list they are given (their runs
// share lists: listToWrite).
func TestStepsLeaveTheirInput(t *testing.T) {
	cases := sessiontest.ShortSample(sessiontest.ConformanceCases(t), 4, nil)
	var sessions [][]byte
	var names []string
	for _, c := range cases {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		sessions, names = append(sessions, data), append(names, strings.TrimSuffix(filepath.Base(c), ".jsonl"))
	}
	small := casesWithoutImages(t)
	for seed := range uint64(4) {
		sessions, names = append(sessions, stitchSession(t, small, seed)), append(names, "stitched")
	}
	targets := readConformanceTargets(t)
	checked := 0
	for i, data := range sessions {
		for _, ct := range targets {
			ctx, err := session.ReadContext(bytes.NewReader(data))
			if err != nil {
				continue
			}
			r := conformanceRun(ct.Target)
			ApplyModelSnapshot(r, ctx.ModelSnapshot, ctx.ModelSwitchTimestamp, ctx.HasModelSwitchTimestamp)
			given := runSteps(r, contextMessages(ctx), prefixSteps[:sharedFrom])
			before := printMessages(given)
			msgs := runSteps(r, slices.Clone(given), prefixSteps[sharedFrom:])
			if err := replayLeavingLists(t, r, msgs, names[i]+" ["+ct.Name+"]"); err != nil && len(r.Changes) == 0 {
				t.Fatalf("%s [%s]: %v without a change", names[i], ct.Name, err)
			}
			if after := printMessages(given); after != before {
				t.Errorf("%s [%s]: the steps from step %d on edited their input:\n%s\nwas\n%s", names[i], ct.Name, firstShared(), after, before)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d replays checked", checked)
	}
}

// replayLeavingLists runs steps 10–18 over msgs, 11–18 stage by stage as
// replayTail does, and fails t when one writes into the list it is given.
func replayLeavingLists(t *testing.T, r *Run, msgs []Message, name string) error {
	r.at(10)
	given := slices.Clone(msgs)
	out := rewriteToolCallIDs(r, msgs)
	if !slices.Equal(given, msgs) {
		t.Errorf("%s: step 10 wrote into the list it was given", name)
	}
	msgs = out
	for i := range tailStages {
		st := &tailStages[i]
		if !st.applies(r) {
			continue
		}
		given := slices.Clone(msgs)
		out, err := st.run(r, msgs)
		if !slices.Equal(given, msgs) {
			t.Errorf("%s: stage %d of steps 11–18 wrote into the list it was given", name, i)
		}
		if err != nil {
			return err
		}
		msgs = out
	}
	return nil
}

// printMessages is msgs' values as JSON, one a line, members in order.
func printMessages(msgs []Message) string {
	var b strings.Builder
	for i := range msgs {
		b.WriteString(jsonl.MarshalString(msgs[i].V))
		b.WriteByte('\n')
	}
	return b.String()
}

// firstShared is the number of the first step that leaves its input alone.
func firstShared() int {
	if sharedFrom < len(prefixSteps) {
		return prefixSteps[sharedFrom].n
	}
	return rewriteSteps[0].n
}
