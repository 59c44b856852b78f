package hygiene

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// replayTestRun is a Run for t with its resolved policy and a clock frozen
// at 2026-01-01T00:00:00Z.
func replayTestRun(t Target) *Run {
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &Run{Config: Config{Target: t, Policy: ResolvePolicy(t), Now: func() time.Time { return frozen }, UUID: func() string { return "uuid" }}}
}

// replayTestMessages parses one JSON message per argument; Line is the
// 1-based position.
func replayTestMessages(t *testing.T, lines ...string) []Message {
	t.Helper()
	out := make([]Message, len(lines))
	for i, l := range lines {
		v, err := jsonl.Parse([]byte(l))
		if err != nil {
			t.Fatalf("message %d: %v", i+1, err)
		}
		out[i] = Message{V: v, Line: i + 1}
	}
	return out
}

// replayTestJSON renders messages as compact JSON, one per line.
func replayTestJSON(msgs []Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.Write(jsonl.Marshal(m.V))
		b.WriteByte('\n')
	}
	return b.String()
}

func hasRule(changes []Change, rule string) bool {
	for _, c := range changes {
		if c.Rule == rule {
			return true
		}
	}
	return false
}

// TestReplayDoesNotModifyInput: the rules edit a copy.
func TestReplayDoesNotModifyInput(t *testing.T) {
	in := replayTestMessages(t,
		`{"role":"user","content":[{"type":"text","text":"  "},{"type":"text","text":"hi"}],"provenance":{"kind":"inter_session","sourceTool":"x"}}`,
		`{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"}],"stopReason":"stop","usage":{"input":1}}`,
		`{"role":"toolResult","toolCallId":"c","content":"x","details":{"a":1}}`,
	)
	before := replayTestJSON(in)
	r := replayTestRun(Target{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"})
	if _, err := Replay(r, in); err != nil {
		t.Fatal(err)
	}
	if after := replayTestJSON(in); after != before {
		t.Errorf("input changed:\n%s\nwant\n%s", after, before)
	}
	if len(r.Changes) == 0 {
		t.Error("no changes recorded")
	}
}

// TestReplayOrder checks steps whose relative order shows in the output:
// details are stripped after pairing (so a synthetic result added by the
// final pass keeps them), usage is normalised, and the Google bootstrap is
// prepended before turn validation.
func TestReplayOrder(t *testing.T) {
	msgs := replayTestMessages(t,
		`{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop","timestamp":1}`,
		`{"role":"user","content":"run it","timestamp":2}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"exec","arguments":{}}],"stopReason":"toolUse","usage":{"input":5,"output":3},"timestamp":3}`,
		`{"role":"toolResult","toolCallId":"call_1","toolName":"exec","content":[{"type":"text","text":"ok"}],"isError":false,"details":{"exit":0},"timestamp":4}`,
	)
	r := replayTestRun(Target{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"})
	out, err := Replay(r, msgs)
	if err != nil {
		t.Fatal(err)
	}
	got := replayTestJSON(out)
	for _, want := range []string{
		`{"role":"user","content":"(session bootstrap)","timestamp":1767225600000}`,
		`"usage":{"input":5,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":8}`,
		`"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"details"`) {
		t.Errorf("details kept:\n%s", got)
	}
	if !strings.HasPrefix(got, `{"role":"user","content":"(session bootstrap)"`) {
		t.Errorf("bootstrap not first:\n%s", got)
	}
}

// TestReplayResponsesInvariant: a Responses history with an orphan result
// is refused, and the refusal is recorded.
func TestReplayResponsesInvariant(t *testing.T) {
	msgs := replayTestMessages(t,
		`{"role":"user","content":"go","timestamp":1}`,
		`{"role":"assistant","content":[{"type":"toolCall","id":"call_a","name":"x","arguments":{}},{"type":"toolCall","id":"call_a","name":"x","arguments":{}}],"stopReason":"toolUse","timestamp":2}`,
	)
	r := replayTestRun(Target{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5"})
	_, err := Replay(r, msgs)
	if err == nil || !strings.HasPrefix(err.Error(), "invalid_replay_transcript: OpenAI Responses replay contains") {
		t.Fatalf("err = %v", err)
	}
	if !hasRule(r.Changes, ruleResponsesInvariant) || !r.Changes[len(r.Changes)-1].Rejects {
		t.Errorf("refusal not recorded: %+v", r.Changes)
	}
}

// replayBenchSession is a session of n tool-calling turns (about 1.7 KB each).
func replayBenchSession(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"0196f1c2-7a3b-7c4d-9e8f-1a2b3c4d5e6f","timestamp":"2026-03-14T09:26:53.589Z","cwd":"/w"}` + "\n")
	parent := "null"
	pad := strings.Repeat("lorem ipsum ", 80)
	for i := 0; i < n; i++ {
		for j, msg := range []string{
			`{"role":"user","content":"step ` + replayItoa(i) + `","timestamp":1773480420000}`,
			`{"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":"c2lnbmF0dXJl"},{"type":"text","text":"Running."},{"type":"toolCall","id":"call_` + replayItoa(i) + `|fc_` + replayItoa(i) + `","name":"exec","arguments":{"cmd":"ls"}}],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":20,"output":5},"stopReason":"toolUse","timestamp":1773480425000}`,
			`{"role":"toolResult","toolCallId":"call_` + replayItoa(i) + `|fc_` + replayItoa(i) + `","toolName":"exec","content":[{"type":"text","text":"` + pad + `"}],"details":{"exit":0},"isError":false,"timestamp":1773480426000}`,
		} {
			id := "e" + replayItoa(i*3+j)
			b.WriteString(`{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-03-14T09:27:00.000Z","message":` + msg + "}\n")
			parent = `"` + id + `"`
		}
	}
	return []byte(b.String())
}

func replayItoa(n int) string { return jsonl.MarshalString(jsonl.IntValue(int64(n))) }

// BenchmarkReplayContext measures the replay rules alone (the context is
// loaded once) for a Responses target and an Anthropic one.
func BenchmarkReplayContext(b *testing.B) {
	data := replayBenchSession(2000)
	ctx, err := session.ReadContext(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	for _, tgt := range []Target{
		{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5"},
		{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-opus-4-6"},
		{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "mistral-large-latest"},
	} {
		b.Run(tgt.Provider, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReplayContext(replayTestRun(tgt), ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzReplaySession replays arbitrary session files (seeded with the
// conformance cases) for a target chosen by the input: no panic, and the
// only error is OpenClaw's Responses invariant.
func FuzzReplaySession(f *testing.F) {
	cases := sessiontest.ConformanceCases(f)
	for i, c := range cases {
		if data, err := os.ReadFile(c); err == nil && len(data) < 64<<10 {
			f.Add(data, uint8(i))
		}
	}
	targets := []Target{
		{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-opus-4-6"},
		{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5"},
		{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"},
		{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "mistral-large-latest"},
		{Provider: "github-copilot", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"},
		{Provider: "acme", ModelAPI: "acme", ModelID: "acme"},
	}
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		ctx, err := session.ReadContext(bytes.NewReader(data))
		if err != nil {
			return
		}
		r := replayTestRun(targets[int(pick)%len(targets)])
		msgs, err := ReplayContext(r, ctx)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid_replay_transcript: ") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for _, m := range msgs {
			if !m.V.IsObject() {
				t.Fatalf("replayed a non-object message %s", jsonl.Marshal(m.V))
			}
		}
	})
}
