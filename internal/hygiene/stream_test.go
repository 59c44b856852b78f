package hygiene

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestReplayStreamMatchesWhole replays sessions segment by segment, with
// segments as small as one message, and checks that every segmented replay
// either equals the whole-list replay (messages, lines and changes) or
// reports a segmentHazard. The sessions are the conformance cases and long
// sessions stitched from all of them (every damage shape the corpus has,
// between ordinary turns), for every conformance target.
func TestReplayStreamMatchesWhole(t *testing.T) {
	sessions := map[string][]byte{}
	cases := sessiontest.ConformanceCases(t)
	for _, c := range cases {
		if isImageCase(filepath.Base(c)) {
			continue // per-message rules, and slow to replay many times
		}
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		sessions[filepath.Base(c)] = data
	}
	var small []string // images take long to resize: stitched sessions go without
	for _, c := range cases {
		if !isImageCase(filepath.Base(c)) {
			small = append(small, c)
		}
	}
	for seed := range uint64(24) {
		sessions[fmt.Sprintf("stitched-%d", seed)] = stitchSession(t, small, seed)
	}
	defer func(n int) { minSegmentMessages = n }(minSegmentMessages)
	var segmented, hazards int
	for _, ct := range readConformanceTargets(t) {
		for name, data := range sessions {
			for _, minSeg := range []int{1, 40} {
				minSegmentMessages = minSeg
				n, err := compareStreamWithWhole(data, ct.Target)
				var h *segmentHazard
				switch {
				case errors.As(err, &h):
					hazards++
					if strings.HasPrefix(name, "stitched") {
						t.Logf("%s [%s] segments of %d: %v", name, ct.Name, minSeg, h)
					}
				case err != nil:
					t.Errorf("%s [%s] segments of %d: %v", name, ct.Name, minSeg, err)
				case n > 1:
					segmented++
				}
			}
		}
	}
	t.Logf("%d segmented replays equal to the whole-list replay, %d hazards found", segmented, hazards)
	if segmented < 150 {
		t.Errorf("only %d replays were segmented: the test does not exercise the cuts", segmented)
	}
}

// compareStreamWithWhole replays data both ways for target and returns the
// number of segments, a *segmentHazard, or the first difference.
func compareStreamWithWhole(data []byte, target Target) (int, error) {
	ctx, err := session.ReadContext(bytes.NewReader(data))
	if err != nil {
		return 0, nil // the loader's errors are not the replay's
	}
	whole := conformanceRun(target)
	want, wantErr := ReplayContext(whole, ctx)
	s, err := session.OpenContext(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	defer func() {
		for { // drain, so the stream's goroutine ends
			if _, err := s.Next(); err != nil {
				return
			}
		}
	}()
	run := conformanceRun(target)
	var got []Message
	segments := 0
	err = replayStream(run, s.Facts, nil, s.Next, func(out []Message) error {
		segments++
		got = append(got, out...)
		return nil
	})
	if err != nil || wantErr != nil {
		if errors.As(err, new(*segmentHazard)) {
			return segments, err
		}
		return segments, fmt.Errorf("error %v, whole-list replay's %v", err, wantErr)
	}
	if d := diffMessages(got, want); d != "" {
		return segments, errors.New(d)
	}
	if (len(run.Changes) > 0 || len(whole.Changes) > 0) && !reflect.DeepEqual(run.Changes, whole.Changes) {
		return segments, fmt.Errorf("changes differ:\n got %v\nwant %v", run.Changes, whole.Changes)
	}
	return segments, nil
}

// stitchSession builds one long session from the message entries of every
// conformance case, in an order drawn from seed, chained into one branch,
// with ordinary question-and-answer turns between the cases (where a
// segmented replay can cut).
func stitchSession(t *testing.T, cases []string, seed uint64) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	order := rng.Perm(len(cases))[:6]
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"stitched","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	n, parent := 0, "null"
	add := func(e jsonl.Value) {
		n++
		id := fmt.Sprintf("s%07d", n)
		e.Set("id", jsonl.StringValue(id))
		p := jsonl.Value{}
		if parent != "null" {
			p = jsonl.StringValue(parent)
		}
		e.Set("parentId", p)
		b.WriteString(jsonl.MarshalString(e))
		b.WriteByte('\n')
		parent = id
	}
	plain := func(k int) {
		for _, line := range []string{
			`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"question %d","timestamp":1767225600000}}`,
			`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer %d"}],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"stop","timestamp":1767225600000,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5"}}`,
		} {
			v, err := jsonl.Parse([]byte(fmt.Sprintf(line, k)))
			if err != nil {
				t.Fatal(err)
			}
			add(v)
		}
	}
	for k, i := range order {
		plain(k)
		data, err := os.ReadFile(cases[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			v, err := jsonl.Parse([]byte(line))
			if err != nil || !v.IsObject() || v.Get("type").StrOr("") != "message" || !v.Get("message").IsObject() {
				continue
			}
			suffixIDs(v.Get("message"), k)
			add(v)
		}
		plain(k)
	}
	return b.Bytes()
}

// suffixIDs makes the tool ids of a stitched case its own, as the ids of
// different turns of one session are.
func suffixIDs(msg *jsonl.Value, k int) {
	suffix := func(v *jsonl.Value) {
		for _, key := range []string{"id", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id"} {
			if id, ok := v.GetStr(key); ok && id != "" {
				v.Set(key, jsonl.StringValue(fmt.Sprintf("%s_%d", id, k)))
			}
		}
	}
	suffix(msg)
	content := msg.Get("content")
	for i := range content.Len() {
		if b := content.Index(i); b.IsObject() {
			suffix(b)
		}
	}
}

// TestReplayStreamRealSession: a real session of 1,000 lines (interrupted
// turns, retries, long tool runs) is replayed segment by segment, in
// segments of 8 and of 64 messages, for every target, with no hazard and
// the whole-list replay's result.
func TestReplayStreamRealSession(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "badlogic_pi-mono__packages_coding-agent_test_fixtures_large-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { minSegmentMessages = n }(minSegmentMessages)
	for _, minSeg := range []int{8, 64} {
		minSegmentMessages = minSeg
		for _, ct := range readConformanceTargets(t) {
			n, err := compareStreamWithWhole(data, ct.Target)
			if err != nil || n < 10 {
				t.Errorf("segments of %d, %s: %d segment(s), %v", minSeg, ct.Name, n, err)
			}
		}
	}
}

// TestReplayStreamAllMatchesWhole: replaying every target at once over one
// read of the session gives each target the whole-list replay's result (or
// a hazard), as replaying it alone does.
func TestReplayStreamAllMatchesWhole(t *testing.T) {
	small := casesWithoutImages(t)
	defer func(n int) { minSegmentMessages = n }(minSegmentMessages)
	minSegmentMessages = 5
	targets := readConformanceTargets(t)
	compared, twins, parted := 0, 0, 0
	for seed := range uint64(8) {
		data := stitchSession(t, small, seed)
		ctx, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		s, err := session.OpenContext(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		runs := make([]*Run, len(targets))
		got := make([][]Message, len(targets))
		for k, ct := range targets {
			runs[k] = conformanceRun(ct.Target)
		}
		ids := make([]*toolIDResolver, len(targets)) // each run's id state after its last segment
		errs, err := replayStreamAll(runs, s.Facts, nil, s.Next, func(k int, msgs []Message) error {
			got[k] = append(got[k], msgs...)
			ids[k] = runs[k].seg.resolver
			return nil
		}, nil)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		tw, pa := idTwins(runs, ids)
		twins, parted = twins+tw, parted+pa
		for k, ct := range targets {
			if errs[k] != nil {
				continue
			}
			whole := conformanceRun(ct.Target)
			want, _ := ReplayContext(whole, cloneContext(ctx))
			if d := diffMessages(got[k], want); d != "" {
				t.Errorf("stitched-%d [%s]: %s", seed, ct.Name, d)
			}
			if (len(runs[k].Changes) > 0 || len(whole.Changes) > 0) && !reflect.DeepEqual(runs[k].Changes, whole.Changes) {
				t.Errorf("stitched-%d [%s]: changes differ", seed, ct.Name)
			}
			compared++
		}
	}
	if compared < 50 {
		t.Errorf("only %d target replays compared", compared)
	}
	// The comparison covers runs that shared step 10 to the end and runs
	// that parted from their twins (shared_ids.go).
	t.Logf("%d replays compared; %d pairs of runs shared the id rewrite to the end, %d parted", compared, twins, parted)
	if twins == 0 || parted == 0 {
		t.Errorf("%d pairs of runs shared the id rewrite to the end, %d parted: want both", twins, parted)
	}
}

// idTwins counts the pairs of runs with one step-10 key that ended
// sharing their id state (ids, by run), and those that did not.
func idTwins(runs []*Run, ids []*toolIDResolver) (twins, parted int) {
	for i, a := range runs {
		ka, ok := idKeyOf(a)
		for j := i + 1; j < len(runs); j++ {
			if kb, okb := idKeyOf(runs[j]); !ok || !okb || ka != kb || ids[i] == nil || ids[j] == nil {
				continue
			}
			if ids[i] == ids[j] {
				twins++
			} else {
				parted++
			}
		}
	}
	return twins, parted
}

// cloneContext copies ctx's messages (a whole-list replay consumes them).
func cloneContext(ctx *session.Context) *session.Context {
	c := *ctx
	c.Messages = make([]session.ContextMessage, len(ctx.Messages))
	for i, m := range ctx.Messages {
		c.Messages[i] = session.ContextMessage{V: m.V.Clone(), Line: m.Line, EntryID: m.EntryID}
	}
	return &c
}

// diffMessages describes the first difference of got from want ("" if
// none).
func diffMessages(got, want []Message) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d messages, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := &got[i], &want[i]
		if g.Line != w.Line || g.EntryID != w.EntryID || !jsonl.Equal(&g.V, &w.V) {
			return fmt.Sprintf("message %d: line %d %s, want line %d %s", i, g.Line, jsonl.MarshalString(g.V), w.Line, jsonl.MarshalString(w.V))
		}
	}
	return ""
}

// casesWithoutImages are the conformance cases but those of images (which
// take long to replay).
func casesWithoutImages(t *testing.T) []string {
	t.Helper()
	var small []string
	for _, c := range sessiontest.ConformanceCases(t) {
		if !isImageCase(filepath.Base(c)) {
			small = append(small, c)
		}
	}
	return small
}

// replayStream is replayStreamAll for one run: its hazard, or next's or
// emit's error.
func replayStream(r *Run, facts *session.Context, avoid map[int]bool, next func() ([]session.ContextMessage, error), emit func([]Message) error) error {
	errs, err := replayStreamAll([]*Run{r}, facts, avoid, next, func(_ int, msgs []Message) error { return emit(msgs) }, nil)
	if err != nil {
		return err
	}
	return errs[0]
}
