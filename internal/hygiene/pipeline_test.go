package hygiene

import (
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// replayTestRun is a Run for t with its resolved policy and a clock frozen
// at 2026-01-01T00:00:00Z.
func replayTestRun(t Target) *Run {
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &Run{Target: t, Policy: ResolvePolicy(t), Now: func() time.Time { return frozen }, UUID: func() string { return "uuid" }}
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
