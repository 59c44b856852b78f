package hygiene

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// FuzzSegmentedReplay replays generated damaged sessions
// (sessiontest.Damaged) through ReplaySession, the protocol replay and
// check --provider use, with segments as short as the input asks (one to
// eight messages, so that every cut is tried), and compares each outcome
// with the whole-list replay (ReplayContext): the same messages, lines and
// changes, the same context length, and a refusal exactly when the
// whole-list replay refuses. Seeds: the examples and the conformance cases,
// whose base each input names by index (sessiontest.DamagedSeed says why).
func FuzzSegmentedReplay(f *testing.F) {
	seeds := sessiontest.DamagedSeeds(f)
	for i, s := range seeds {
		f.Add(uint16(i), s.Program, uint8(len(s.Program)), uint8(0))
	}
	f.Fuzz(func(t *testing.T, base uint16, program []byte, pick, seg uint8) {
		data := sessiontest.Damaged(seeds[int(base)%len(seeds)].Base, program)
		whole, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			return // the loader's errors are not the replay's
		}
		defer func(n int) { minSegmentMessages = n }(minSegmentMessages)
		minSegmentMessages = 1 + int(seg%8)
		target := longSessionTargets[int(pick)%len(longSessionTargets)]
		out := replaySessionOf(t, context.Background(), data, []Target{target})
		if out.err != nil {
			t.Fatalf("ReplaySession: %v", out.err)
		}
		res, ok := out.done[0]
		if !ok {
			t.Fatal("no outcome")
		}
		wantRun := replayTestRun(target)
		want, wantErr := ReplayContext(wantRun, whole)
		if (res.Refusal != nil) != (wantErr != nil) || res.Refusal != nil && res.Refusal.Error() != wantErr.Error() {
			t.Fatalf("refusal %v, whole-list replay's %v", res.Refusal, wantErr)
		}
		if wantErr != nil {
			return
		}
		msgs := res.Messages
		if !res.Whole {
			msgs = out.segments[0]
		}
		if d := diffMessages(msgs, want); d != "" {
			t.Fatalf("%s (attempts %q)", d, out.begins[0])
		}
		if (len(res.Run.Changes) > 0 || len(wantRun.Changes) > 0) && !reflect.DeepEqual(res.Run.Changes, wantRun.Changes) {
			t.Fatalf("changes differ (attempts %q):\n got %v\nwant %v", out.begins[0], res.Run.Changes, wantRun.Changes)
		}
		if res.ContextLen != len(whole.Messages) {
			t.Fatalf("%d context messages, want %d", res.ContextLen, len(whole.Messages))
		}
	})
}
