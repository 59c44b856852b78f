package hygiene

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

func TestValidateGeminiTurns(t *testing.T) {
	gemini := Policy{ValidateGeminiTurns: true}
	user := `{"role":"user","content":"q"}`
	cases := []ruleCase{
		{
			name: "policy off: unchanged",
			in:   []string{`{"role":"assistant","content":[]}`, `{"role":"assistant","content":[]}`},
		},
		{
			name:   "consecutive assistants merge; truthy usage, stopReason and errorMessage come from the later one",
			policy: gemini,
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"a"}],"api":"x","usage":{"input":1},"stopReason":"stop","timestamp":1}`,
				`{"role":"assistant","content":[{"type":"text","text":"b"}],"api":"y","usage":{"input":2},"stopReason":"toolUse","errorMessage":"boom","timestamp":2}`,
				`{"role":"assistant","content":"not an array","usage":null,"stopReason":""}`,
				user,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"api":"x","usage":{"input":2},"stopReason":"toolUse","timestamp":1,"errorMessage":"boom"}`,
				user,
			},
			changes: []string{"turns/merge-assistant@3", "turns/merge-assistant@4"},
		},
		{
			name:   "content missing on the first one is added after its fields",
			policy: gemini,
			in: []string{
				`{"role":"assistant","api":"x"}`,
				`{"role":"assistant","content":[{"type":"text","text":"b"}]}`,
			},
			want:    []string{`{"role":"assistant","api":"x","content":[{"type":"text","text":"b"}]}`},
			changes: []string{"turns/merge-assistant@2"},
		},
		{
			name:   "a message without a role does not end the run and takes the merge",
			policy: gemini,
			in: []string{
				`{"role":"assistant","content":[{"type":"text","text":"a"}]}`,
				`{"note":"x","content":[{"type":"text","text":"n"}]}`,
				`{"role":"assistant","content":[{"type":"text","text":"b"}]}`,
			},
			want: []string{
				`{"role":"assistant","content":[{"type":"text","text":"a"}]}`,
				`{"note":"x","content":[{"type":"text","text":"n"},{"type":"text","text":"b"}]}`,
			},
			changes: []string{"turns/merge-assistant@3"},
		},
		{
			name:   "users are not merged by the Gemini rule",
			policy: gemini,
			in:     []string{user, user},
		},
	}
	runRuleCases(t, validateGeminiTurns, cases)
}

func TestValidateAnthropicTurns(t *testing.T) {
	anth := Policy{ValidateAnthropicTurns: true}
	appendOnly := Policy{ValidateAnthropicTurns: true, AppendOnlyRuntimeContext: true}
	user := `{"role":"user","content":"q"}`
	call := func(id, name string) string {
		return `{"type":"toolCall","id":"` + id + `","name":"` + name + `","arguments":{}}`
	}
	result := func(id, name string) string {
		return `{"role":"toolResult","toolCallId":"` + id + `","toolName":"` + name + `","content":[{"type":"text","text":"ok"}]}`
	}
	thinking := `{"type":"thinking","thinking":"t","thinkingSignature":"` + sigA + `"}`
	cases := []ruleCase{
		{
			name: "policy off: unchanged",
			in:   []string{user, user},
		},
		{
			name:   "consecutive users merge: later fields, string content as a text block, later timestamp",
			policy: anth,
			in: []string{
				`{"role":"user","content":"first","timestamp":1,"a":1}`,
				`{"role":"user","content":[{"type":"text","text":"second"}],"timestamp":2,"b":2}`,
				`{"role":"user","content":"third","b":3}`,
				`{"role":"user","content":{"odd":true},"timestamp":null}`,
			},
			want: []string{
				`{"role":"user","content":[{"type":"text","text":"first"},{"type":"text","text":"second"},{"type":"text","text":"third"}],"timestamp":2}`,
			},
			changes: []string{"turns/merge-user@1", "turns/merge-user@2", "turns/merge-user@3"},
		},
		{
			name:    "a merged user without any timestamp has none",
			policy:  anth,
			in:      []string{`{"role":"user","content":"a"}`, `{"role":"user","content":"b","timestamp":null}`},
			want:    []string{`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`},
			changes: []string{"turns/merge-user@1"},
		},
		{
			name:   "append-only runtime context on anthropic-messages keeps users apart",
			api:    "anthropic-messages",
			policy: appendOnly,
			in:     []string{user, user},
		},
		{
			name:    "Bedrock Converse merges users even with append-only runtime context",
			api:     "bedrock-converse-stream",
			policy:  appendOnly,
			in:      []string{user, user},
			want:    []string{`{"role":"user","content":[{"type":"text","text":"q"},{"type":"text","text":"q"}]}`},
			changes: []string{"turns/merge-user@1"},
		},
		{
			name:   "unanswered calls are removed from a turn without thinking",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"x"},` + call("c1", "read") + `,` + call("c2", "exec") + `,` + call("c3", "ls") + `]}`,
				`{"role":"toolResult","toolUseId":" c1 ","content":[]}`,
				`{"role":"user","content":[{"type":"toolResult","call_id":"c3"}]}`,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"x"},` + call("c1", "read") + `,` + call("c3", "ls") + `]}`,
				`{"role":"toolResult","toolUseId":" c1 ","content":[]}`,
				`{"role":"user","content":[{"type":"toolResult","call_id":"c3"}]}`,
			},
			changes: []string{"turns/dangling-tool-calls@2"},
		},
		{
			name:   "results after the next assistant do not count; an emptied turn gets the placeholder",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[` + call("c1", "read") + `]}`,
				result("c9", "other"),
				`{"role":"assistant","content":"next"}`,
				result("c1", "read"),
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]}`,
				result("c9", "other"),
				`{"role":"assistant","content":"next"}`,
				result("c1", "read"),
			},
			changes: []string{"turns/dangling-tool-calls@2"},
		},
		{
			name:   "an aborted or failed turn left without calls gets empty content",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[` + call("c1", "read") + `],"stopReason":"aborted"}`,
				user,
				`{"role":"assistant","content":[` + thinking + `,` + call("c2", "read") + `],"stopReason":"error"}`,
				user,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[],"stopReason":"aborted"}`,
				user,
				`{"role":"assistant","content":[],"stopReason":"error"}`,
				user,
			},
			changes: []string{"turns/dangling-tool-calls@2", "turns/dangling-tool-calls@4"},
		},
		{
			name:   "null-like blocks go with the dangling calls",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[null,0,"s",` + call("c1", "read") + `]}`,
				result("c1", "read"),
			},
			want: []string{
				user,
				`{"role":"assistant","content":["s",` + call("c1", "read") + `]}`,
				result("c1", "read"),
			},
			changes: []string{"turns/dangling-tool-calls@2"},
		},
		{
			name:   "a thinking turn whose calls are all answered by name stays whole",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[` + thinking + `,` + call("c1", "read") + `,` + call("c2", " exec ") + `]}`,
				result("c1", "read"),
				`{"role":"tool","tool_call_id":"c2","name":"exec","content":"ok"}`,
				`{"role":"toolResult","toolCallId":"c1","content":[]}`,
			},
		},
		{
			name:   "a thinking turn with a call answered under another tool name is replaced",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[` + thinking + `,` + call("c1", "read") + `]}`,
				result("c1", "exec"),
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]}`,
				result("c1", "exec"),
			},
			changes: []string{"turns/dangling-tool-calls@2"},
		},
		{
			name:   "a thinking turn keeps nothing when a call is only answered inside user content",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[` + thinking + `,` + call("c1", "read") + `]}`,
				`{"role":"user","content":[{"type":"toolResult","toolUseId":"c1"}]}`,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]}`,
				`{"role":"user","content":[{"type":"toolResult","toolUseId":"c1"}]}`,
			},
			changes: []string{"turns/dangling-tool-calls@2"},
		},
		{
			name:   "a thinking turn with a blank-id call is replaced",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[` + thinking + `,` + call(" ", "read") + `]}`,
				result(" ", "read"),
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"text","text":"[tool calls omitted]"}]}`,
				result(" ", "read"),
			},
			changes: []string{"turns/dangling-tool-calls@2"},
		},
		{
			name:   "assistants merge before dangling calls are judged",
			policy: anth,
			in: []string{
				user,
				`{"role":"assistant","content":[` + call("c1", "read") + `]}`,
				`{"role":"assistant","content":[{"type":"text","text":"more"}]}`,
				result("c1", "read"),
			},
			want: []string{
				user,
				`{"role":"assistant","content":[` + call("c1", "read") + `,{"type":"text","text":"more"}]}`,
				result("c1", "read"),
			},
			changes: []string{"turns/merge-assistant@3"},
		},
	}
	runRuleCases(t, validateAnthropicTurns, cases)
}

func TestMergedMessagesKeepTheirLine(t *testing.T) {
	r := thinkTestRun("anthropic", "bedrock-converse-stream", Policy{ValidateAnthropicTurns: true})
	got := validateAnthropicTurns(r, thinkTestMessages(t,
		`{"role":"user","content":"a"}`,
		`{"role":"user","content":"b"}`,
		`{"role":"assistant","content":[]}`,
		`{"role":"assistant","content":[]}`,
	))
	// A merged user takes the later message's fields, so its line; a
	// merged assistant keeps the earlier one's.
	if lines := thinkTestLines(got); !slices.Equal(lines, []int{2, 3}) {
		t.Errorf("lines = %v, want [2 3]", lines)
	}
}

// FuzzThinkingRules checks properties of the thinking, signature, reasoning
// and turn rules on arbitrary message lists: no panic, the input is never
// modified, a change is recorded exactly when the output differs, and a
// second run changes nothing. Seeds are the message lists of the
// conformance cases.
func FuzzThinkingRules(f *testing.F) {
	for _, seed := range conformanceMessageLists(f) {
		f.Add(seed, uint16(0xffff), "anthropic")
		f.Add(seed, uint16(0x5555), "google")
	}
	f.Fuzz(func(t *testing.T, list []byte, bits uint16, provider string) {
		v, err := jsonl.ParseOwned(list)
		if err != nil || !v.IsArray() {
			return
		}
		var in []Message
		for k, it := range v.Items() {
			in = append(in, Message{V: it.Value, Line: k + 1})
		}
		before := thinkTestJSON(in)
		pol := fuzzPolicy(bits)
		rules := []func(*Run, []Message) []Message{
			stripThoughtSignatures, cleanupThinkingSignatures, dropReasoningFromHistory,
			dropThinkingBlocks, validateGeminiTurns, validateAnthropicTurns,
		}
		for k, rule := range rules {
			r := thinkTestRun(provider, "anthropic-messages", pol)
			out := rule(r, in)
			if !slices.Equal(before, thinkTestJSON(in)) {
				t.Fatalf("rule %d modified its input", k)
			}
			if changed := !slices.Equal(before, thinkTestJSON(out)); changed != (len(r.Changes) > 0) {
				t.Fatalf("rule %d: output changed = %v, %d changes recorded", k, changed, len(r.Changes))
			}
			again := rule(thinkTestRun(provider, "anthropic-messages", pol), out)
			if !slices.Equal(thinkTestJSON(out), thinkTestJSON(again)) {
				t.Fatalf("rule %d is not idempotent:\n%v\n%v", k, thinkTestJSON(out), thinkTestJSON(again))
			}
		}
	})
}

// fuzzPolicy turns bits into the policy fields the rules read.
func fuzzPolicy(bits uint16) Policy {
	on := func(n uint) bool { return bits&(1<<n) != 0 }
	p := Policy{
		PreserveSignatures:       on(0),
		DropThinkingBlocks:       on(1),
		DropReasoningFromHistory: on(2),
		ValidateGeminiTurns:      on(3),
		ValidateAnthropicTurns:   on(4),
		AppendOnlyRuntimeContext: on(5),
	}
	if on(6) {
		p.SanitizeThoughtSignatures = &ThoughtSignaturePolicy{AllowBase64Only: on(7), IncludeCamelCase: on(8)}
	}
	return p
}

// conformanceMessageLists returns, for each conformance case, the JSON
// array of the messages of its message entries (in file order).
func conformanceMessageLists(tb testing.TB) [][]byte {
	files := sessiontest.ConformanceCases(tb)
	var lists [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		list := jsonl.ArrayValue()
		for _, line := range bytes.Split(data, []byte("\n")) {
			if entry, err := jsonl.ParseOwned(line); err == nil && entry.Get("message").IsObject() {
				list.Append(*entry.Get("message"))
			}
		}
		lists = append(lists, jsonl.Marshal(list))
	}
	return lists
}

// BenchmarkMergeConsecutiveUsers measures a long run of user messages (each
// merge appends to the run's content instead of copying it).
func BenchmarkMergeConsecutiveUsers(b *testing.B) {
	msgs := make([]Message, 20000)
	for k := range msgs {
		v, _ := jsonl.ParseOwned([]byte(`{"role":"user","content":[{"type":"text","text":"more"}],"timestamp":1}`))
		msgs[k] = Message{V: v, Line: k + 1}
	}
	pol := Policy{ValidateAnthropicTurns: true}
	b.ReportAllocs()
	for b.Loop() {
		r := thinkTestRun("anthropic", "bedrock-converse-stream", pol)
		if got := validateAnthropicTurns(r, msgs); len(got) != 1 || got[0].V.Get("content").Len() != len(msgs) {
			b.Fatalf("got %d messages", len(got))
		}
	}
}
