package hygiene

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// syntheticJSON is the synthetic result OpenClaw inserts for a call, at the
// frozen clock of toolTestRun.
func syntheticJSON(id, name, text string) string {
	return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":[{"type":"text","text":"` + text + `"}],` +
		`"details":{"openclawSyntheticMissingToolResult":true,"reason":"missing_tool_result"},"isError":true,"timestamp":1767225600000}`
}

func TestRepairToolResultPairing(t *testing.T) {
	const (
		call1     = `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"toolUse"}`
		call12    = `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"exec","arguments":{}}],"stopReason":"toolUse"}`
		result1   = `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"one"}]}`
		result1b  = `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"again"}]}`
		result2   = `{"role":"toolResult","toolCallId":"c2","toolName":"exec","content":[{"type":"text","text":"two"}]}`
		user      = `{"role":"user","content":"next"}`
		reply     = `{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop"}`
		synthetic = `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"` + defaultMissingToolResultText + `"}],"isError":true}`
	)
	tests := []struct {
		name  string
		api   string
		lines []string
		want  []string
		rules []string // rules recorded, in order
	}{
		{
			name:  "paired turn unchanged",
			lines: []string{user, call1, result1, reply},
			want:  []string{user, call1, result1, reply},
		},
		{
			name:  "missing result gets the default synthetic text",
			lines: []string{call12, result2, user},
			want:  []string{call12, syntheticJSON("c1", "read", defaultMissingToolResultText), result2, user},
			rules: []string{"tool-result-pairing/synthetic"},
		},
		{
			name:  "Responses family gets aborted",
			api:   "openai-responses",
			lines: []string{call1},
			want:  []string{call1, syntheticJSON("c1", "read", "aborted")},
			rules: []string{"tool-result-pairing/synthetic"},
		},
		{
			name:  "call without a string name gives unknown",
			lines: []string{`{"role":"assistant","content":[{"type":"toolUse","id":"c9","name":7,"input":{}}]}`},
			want:  []string{`{"role":"assistant","content":[{"type":"toolUse","id":"c9","name":7,"input":{}}]}`, syntheticJSON("c9", "unknown", defaultMissingToolResultText)},
			rules: []string{"tool-result-pairing/synthetic"},
		},
		{
			name:  "results are emitted in call order before the other messages",
			lines: []string{call12, result2, user, result1},
			want:  []string{call12, result1, result2, user},
			rules: []string{"tool-result-pairing/displaced"},
		},
		{
			name:  "second result for a call is dropped",
			lines: []string{call1, result1, result1b},
			want:  []string{call1, result1},
			rules: []string{"tool-result-pairing/duplicate"},
		},
		{
			name:  "a real result replaces an earlier synthetic one",
			lines: []string{call1, synthetic, result1b},
			want:  []string{call1, result1b},
			rules: []string{"tool-result-pairing/duplicate"},
		},
		{
			name:  "result in a later turn moves back to its call",
			lines: []string{call12, result2, user, `{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"read","arguments":{}}]}`, result1, `{"role":"toolResult","toolCallId":"c3","toolName":"read","content":[]}`},
			want:  []string{call12, result1, result2, user, `{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"read","arguments":{}}]}`, `{"role":"toolResult","toolCallId":"c3","toolName":"read","content":[]}`},
			rules: []string{"tool-result-pairing/displaced"},
		},
		{
			name:  "orphans and results before the first call are dropped",
			lines: []string{result2, user, call1, result1, `{"role":"toolResult","toolCallId":"nope","content":[]}`},
			want:  []string{user, call1, result1},
			rules: []string{"tool-result-pairing/orphan", "tool-result-pairing/orphan"},
		},
		{
			name:  "failed turns are dropped with their results, later messages kept",
			lines: []string{`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"error"}`, result1, user},
			want:  []string{user},
			rules: []string{"tool-result-pairing/failed-turn", "tool-result-pairing/failed-turn"},
		},
		{
			name:  "result without an id answers the only call as an error",
			lines: []string{call1, `{"role":"toolResult","toolName":"","content":[]}`},
			want:  []string{call1, `{"role":"toolResult","toolName":"read","content":[],"toolCallId":"c1","isError":true}`},
			rules: []string{"tool-result-pairing/legacy-id", "tool-result-pairing/tool-name"},
		},
		{
			name:  "result without an id and another tool name stays unmatched",
			lines: []string{call1, `{"role":"toolResult","toolName":"exec","content":[]}`},
			want:  []string{call1, syntheticJSON("c1", "read", defaultMissingToolResultText)},
			rules: []string{"tool-result-pairing/orphan", "tool-result-pairing/synthetic"},
		},
		{
			name:  "tool names are trimmed",
			lines: []string{call1, `{"role":"toolResult","toolCallId":" c1 ","toolName":" read ","content":[]}`},
			want:  []string{call1, `{"role":"toolResult","toolCallId":" c1 ","toolName":"read","content":[]}`},
			rules: []string{"tool-result-pairing/tool-name"},
		},
		{
			name:  "repeated ids are claimed first in, first out",
			lines: []string{`{"role":"assistant","content":[{"type":"toolCall","id":"r","name":"a","arguments":{}},{"type":"toolCall","id":"r","name":"b","arguments":{}}]}`, `{"role":"toolResult","toolCallId":"r","content":[]}`},
			want: []string{`{"role":"assistant","content":[{"type":"toolCall","id":"r","name":"a","arguments":{}},{"type":"toolCall","id":"r","name":"b","arguments":{}}]}`,
				`{"role":"toolResult","toolCallId":"r","content":[],"toolName":"a"}`, syntheticJSON("r", "b", defaultMissingToolResultText)},
			rules: []string{"tool-result-pairing/tool-name", "tool-result-pairing/synthetic"},
		},
		{
			name:  "a call id with spaces matches no trimmed result id (case 65)",
			lines: []string{`{"role":"assistant","content":[{"type":"toolCall","id":" s ","name":"a","arguments":{}}]}`, `{"role":"toolResult","toolCallId":" s ","toolName":"a","content":[]}`},
			want:  []string{`{"role":"assistant","content":[{"type":"toolCall","id":" s ","name":"a","arguments":{}}]}`, syntheticJSON(" s ", "a", defaultMissingToolResultText)},
			rules: []string{"tool-result-pairing/orphan", "tool-result-pairing/synthetic"},
		},
		{
			name:  "non-object messages are dropped",
			lines: []string{user, `null`, call1, `7`, result1},
			want:  []string{user, call1, result1},
			rules: []string{"tool-result-pairing/non-object", "tool-result-pairing/non-object"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := tc.api
			if api == "" {
				api = "anthropic-messages"
			}
			r := toolTestRun(Target{Provider: "p", ModelAPI: api}, Policy{RepairToolUseResultPairing: true})
			got := repairToolResultPairing(r, replayTestMessages(t, tc.lines...), pairingOptionsFor(api))
			if want := strings.Join(tc.want, "\n") + "\n"; replayTestJSON(got) != want {
				t.Errorf("messages:\n got:\n%s\nwant:\n%s", replayTestJSON(got), want)
			}
			var rules []string
			for _, c := range r.Changes {
				rules = append(rules, c.Rule)
			}
			if strings.Join(rules, " ") != strings.Join(tc.rules, " ") {
				t.Errorf("rules recorded %q, want %q", rules, tc.rules)
			}
		})
	}
}

func TestRepairToolResultPairingKeepsProvenance(t *testing.T) {
	msgs := replayTestMessages(t,
		`{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"x","arguments":{}},{"type":"toolCall","id":"b","name":"x","arguments":{}}]}`,
		`{"role":"user","content":"u"}`,
		`{"role":"toolResult","toolCallId":"b","toolName":" x","content":[]}`,
	)
	for i := range msgs {
		msgs[i].EntryID = string(rune('A' + i))
	}
	before := replayTestJSON(msgs)
	r := toolTestRun(Target{ModelAPI: "openai-completions"}, Policy{RepairToolUseResultPairing: true})
	got := repairToolResultPairing(r, msgs, pairingOptions{})
	type prov struct {
		line int
		id   string
	}
	want := []prov{{1, "A"}, {0, ""}, {3, "C"}, {2, "B"}}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d:\n%s", len(got), len(want), replayTestJSON(got))
	}
	for i, w := range want {
		if got[i].Line != w.line || got[i].EntryID != w.id {
			t.Errorf("message %d: Line %d EntryID %q, want %d %q", i, got[i].Line, got[i].EntryID, w.line, w.id)
		}
	}
	if replayTestJSON(msgs) != before {
		t.Errorf("input modified:\n%s", replayTestJSON(msgs))
	}
}

func TestRepairToolResultPairingGate(t *testing.T) {
	in := replayTestMessages(t, `{"role":"toolResult","toolCallId":"x","content":[]}`)
	r := toolTestRun(Target{ModelAPI: "openai-completions"}, Policy{})
	if got := repairToolResultPairing(r, in, pairingOptions{}); len(got) != 1 || len(r.Changes) != 0 {
		t.Errorf("pairing ran with repairToolUseResultPairing off: %s", replayTestJSON(got))
	}
}

func TestIsSyntheticMissingToolResult(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{`{"isError":true,"details":{"openclawSyntheticMissingToolResult":true}}`, true},
		{`{"isError":1,"content":[{"type":"text","text":"` + defaultMissingToolResultText + `"}]}`, true},
		{`{"isError":true,"content":[{"type":"text","text":"aborted"}]}`, false},
		{`{"isError":false,"details":{"openclawSyntheticMissingToolResult":true}}`, false},
		{`{"isError":true,"details":{"openclawSyntheticMissingToolResult":"yes"}}`, false},
	}
	for _, tc := range tests {
		m := replayTestMessages(t, tc.msg)[0]
		if got := isSyntheticMissingToolResult(&m.V); got != tc.want {
			t.Errorf("isSyntheticMissingToolResult(%s) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}

// BenchmarkToolCallRules runs the tool-call rules of a completions target
// (input validation, pairing, strict9 ids) over 10,000 tool turns, every
// fourth one missing a result and every tenth one answered after a user
// message.
func BenchmarkToolCallRules(b *testing.B) {
	var lines []string
	for k := 0; k < 10000; k++ {
		id := fmt.Sprintf("call_%06d", k)
		lines = append(lines, `{"role":"assistant","content":[{"type":"text","text":"step"},{"type":"toolCall","id":"`+id+`a","name":"read","arguments":{"path":"a"}},{"type":"toolCall","id":"`+id+`b","name":"exec","arguments":{"command":"ls"}}],"stopReason":"toolUse"}`)
		if k%10 == 0 {
			lines = append(lines, `{"role":"user","content":"queued"}`)
		}
		lines = append(lines, `{"role":"toolResult","toolCallId":"`+id+`a","toolName":"read","content":[{"type":"text","text":"ok"}]}`)
		if k%4 != 0 {
			lines = append(lines, `{"role":"toolResult","toolCallId":"`+id+`b","toolName":"exec","content":[{"type":"text","text":"ok"}]}`)
		}
	}
	msgs := make([]Message, len(lines))
	for k, l := range lines {
		v, err := jsonl.ParseOwned([]byte(l))
		if err != nil {
			b.Fatal(err)
		}
		msgs[k] = Message{V: v, Line: k + 1}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := toolTestRun(Target{Provider: "mistral", ModelAPI: "openai-completions"}, strictPolicy("strict9"))
		out := sanitizeToolCallInputs(r, msgs)
		out = repairToolResultPairing(r, out, pairingOptions{})
		rewriteToolCallIDs(r, out)
	}
}

// pairingOptionsFor returns the pairing options OpenClaw uses for api.
func pairingOptionsFor(api string) pairingOptions {
	if isResponsesAPI(api) {
		return pairingOptions{SyntheticText: responsesMissingToolResultText}
	}
	return pairingOptions{}
}
