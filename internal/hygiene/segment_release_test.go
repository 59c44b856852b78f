package hygiene

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// writingOutput is a ReleasingOutput that writes each segment's messages
// (their JSON, line and entry id) as it gets them and releases them at
// once, or, with early set, releases them before writing them: the misuse
// the poisoned blocks must show.
type writingOutput struct {
	early    bool
	text     []byte // the current attempt's messages, written
	releases int
	done     bool
	refusal  error
}

func (o *writingOutput) Begin(_ int, whole bool) error { o.text = o.text[:0]; return nil }

func (o *writingOutput) Segment(int, []Message) error {
	return fmt.Errorf("Segment called on an output that releases")
}

func (o *writingOutput) SegmentRelease(_ int, msgs []Message, release func()) error {
	if o.early {
		release()
	}
	o.text = appendWritten(o.text, msgs)
	if !o.early {
		release()
	}
	o.releases++
	return nil
}

func (o *writingOutput) Done(_ int, res Replayed) error {
	o.done, o.refusal = true, res.Refusal
	if res.Whole {
		o.text = appendWritten(o.text[:0], res.Messages)
	}
	return nil
}

// appendWritten appends each message's line, entry id and JSON.
func appendWritten(b []byte, msgs []Message) []byte {
	for i := range msgs {
		b = strconv.AppendInt(b, int64(msgs[i].Line), 10)
		b = append(b, ' ')
		b = append(b, msgs[i].EntryID...)
		b = append(b, ' ')
		b = jsonl.AppendJSON(b, &msgs[i].V)
		b = append(b, '\n')
	}
	return b
}

// releaseSessions are the conformance cases but those of images, sessions
// stitched from them and damaged sessions generated from the examples and
// the cases.
func releaseSessions(t *testing.T) map[string][]byte {
	sessions := map[string][]byte{}
	small := casesWithoutImages(t)
	for _, c := range small {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		sessions[filepath.Base(c)] = data
	}
	for seed := range uint64(6) {
		sessions[fmt.Sprintf("stitched-%d", seed)] = stitchSession(t, small, seed)
	}
	for i, s := range sessiontest.DamagedSeeds(t) {
		if i%4 == 0 {
			sessions[fmt.Sprintf("damaged-%d", i)] = sessiontest.Damaged(s.Base, s.Program)
		}
	}
	return sessions
}

// releasedReplay replays data for target through ReplaySession with a
// writingOutput (early: releasing before writing), segments of minSeg
// messages, and returns the output.
func releasedReplay(t *testing.T, data []byte, target Target, minSeg int, early bool) *writingOutput {
	t.Helper()
	defer func(n int) { minSegmentMessages = n }(minSegmentMessages)
	minSegmentMessages = minSeg
	out := &writingOutput{early: early}
	s, err := session.OpenContext(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	err = ReplaySession(context.Background(), bytes.NewReader(data), s, []Config{replayTestRun(target).Config}, out)
	if err != nil || !out.done {
		t.Fatalf("[%s]: ReplaySession: %v (done %v)", target.Provider, err, out.done)
	}
	return out
}

// wholeReplayText is the whole-list replay's messages, written as
// writingOutput writes them, and its refusal.
func wholeReplayText(whole *session.Context, target Target) ([]byte, error) {
	want, refusal := ReplayContext(replayTestRun(target), cloneContext(whole))
	return appendWritten(nil, want), refusal
}

// TestReleasedSegmentsMatchWhole: with an output that releases each
// segment once it has written it, the stream reuses the memory of the
// released messages; with released blocks poisoned instead, and a chunk
// of the stream per line, every session replays, segment by segment, to
// what the whole-list replay gives, for the four long-session targets: no
// value of a released segment is read afterwards. An output that
// releases before writing must read poison (the check can fail).
func TestReleasedSegmentsMatchWhole(t *testing.T) {
	defer jsonl.PoisonReleasedBlocks(true)()
	defer session.SetStreamChunkBytes(1)()
	sessions := releaseSessions(t)
	compared, released, misuseSeen := 0, 0, false
	for name, data := range sessions {
		whole, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			continue // the loader's errors are not the replay's
		}
		for _, target := range longSessionTargets {
			wantText, refusal := wholeReplayText(whole, target)
			for _, minSeg := range []int{1, 3} {
				for _, early := range []bool{false, true} {
					out := releasedReplay(t, data, target, minSeg, early)
					if (out.refusal != nil) != (refusal != nil) {
						t.Fatalf("%s [%s]: refusal %v, want %v", name, target.Provider, out.refusal, refusal)
					}
					same := bytes.Equal(out.text, wantText)
					if early {
						misuseSeen = misuseSeen || !same
						continue
					}
					if !same {
						t.Errorf("%s [%s] segments of %d: the released replay differs from the whole-list replay:\n got %.600s\nwant %.600s", name, target.Provider, minSeg, out.text, wantText)
					}
					compared++
					released += out.releases
				}
			}
		}
	}
	t.Logf("%d replays compared, %d segments released", compared, released)
	if compared < 400 || released < 1000 {
		t.Errorf("%d replays compared, %d segments released: too few to vouch for the release", compared, released)
	}
	if !misuseSeen {
		t.Error("releasing segments before writing them read no poison: the check cannot fail")
	}
}

// FuzzReleasedSegments is TestReleasedSegmentsMatchWhole's check on
// generated damaged sessions (sessiontest.Damaged), with segments of one to
// eight messages and a chunk of the stream per line. Each input names its
// base by index (sessiontest.DamagedSeed says why).
func FuzzReleasedSegments(f *testing.F) {
	seeds := sessiontest.DamagedSeeds(f)
	for i, s := range seeds {
		f.Add(uint16(i), s.Program, uint8(len(s.Program)), uint8(0))
	}
	f.Fuzz(func(t *testing.T, base uint16, program []byte, pick, seg uint8) {
		defer jsonl.PoisonReleasedBlocks(true)()
		defer session.SetStreamChunkBytes(1)()
		data := sessiontest.Damaged(seeds[int(base)%len(seeds)].Base, program)
		whole, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			return // the loader's errors are not the replay's
		}
		target := longSessionTargets[int(pick)%len(longSessionTargets)]
		wantText, refusal := wholeReplayText(whole, target)
		out := releasedReplay(t, data, target, 1+int(seg%8), false)
		if (out.refusal != nil) != (refusal != nil) {
			t.Fatalf("refusal %v, want %v", out.refusal, refusal)
		}
		if !bytes.Equal(out.text, wantText) {
			t.Fatalf("the released replay differs from the whole-list replay:\n got %.600s\nwant %.600s", out.text, wantText)
		}
	})
}
