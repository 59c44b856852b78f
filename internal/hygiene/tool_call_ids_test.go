package hygiene

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// toolTestRun returns a Run for target and policy with a frozen clock
// (2026-01-01T00:00:00Z, as the conformance files were made).
func toolTestRun(t Target, p Policy) *Run {
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &Run{Config: Config{Target: t, Policy: p, Now: func() time.Time { return frozen }, UUID: func() string { return "uuid" }}}
}

// callAndResultIDs lists the ids of every tool call and the toolCallId of
// every result, in message order.
func callAndResultIDs(msgs []Message) []string {
	var ids []string
	for _, m := range msgs {
		switch session.Role(&m.V) {
		case session.RoleAssistant:
			for _, c := range session.ToolCalls(&m.V) {
				ids = append(ids, c.ID)
			}
		case session.RoleToolResult:
			ids = append(ids, "result:"+m.V.Get("toolCallId").StrOr("?"))
		}
	}
	return ids
}

// turnWithCalls builds an assistant message calling each id, followed by
// one result per id.
func turnWithCalls(ids ...string) []string {
	var blocks []string
	for _, id := range ids {
		blocks = append(blocks, `{"type":"toolCall","id":`+jsonl.MarshalString(jsonl.StringValue(id))+`,"name":"read","arguments":{}}`)
	}
	out := []string{`{"role":"assistant","content":[` + strings.Join(blocks, ",") + `],"stopReason":"toolUse"}`}
	for _, id := range ids {
		out = append(out, `{"role":"toolResult","toolCallId":`+jsonl.MarshalString(jsonl.StringValue(id))+`,"toolName":"read","content":[]}`)
	}
	return out
}

func strictPolicy(mode string) Policy {
	return Policy{SanitizeToolCallIDs: true, ToolCallIDMode: mode, RepairToolUseResultPairing: true}
}

const longProxyID = "a-very-long-tool-call-identifier-from-a-proxy-0123456789abcdef"

func TestRewriteToolCallIDsWorkedExamples(t *testing.T) {
	completions := Target{Provider: "mistral", ModelAPI: "openai-completions"}
	reused := append(append(turnWithCalls("call_0"), turnWithCalls("call_0")...), turnWithCalls("call_0")...)
	tests := []struct {
		name  string
		mode  string
		lines []string
		want  []string // call ids then result ids, per turn
	}{
		{
			name:  "strict9 collisions (case 40)",
			mode:  "strict9",
			lines: turnWithCalls("call_abc|item:123", "call_abc|item:456", "x", "call-1", "call_1", longProxyID),
			want: []string{"callabcit", "15b81aaaa", "2d711642b", "78d66c1f7", "964d41b6c", "averylong",
				"result:callabcit", "result:15b81aaaa", "result:2d711642b", "result:78d66c1f7", "result:964d41b6c", "result:averylong"},
		},
		{
			name:  "strict9 does not keep Kimi ids (case 41)",
			mode:  "strict9",
			lines: turnWithCalls("functions.list_dir:0", "functions.exec:1"),
			want:  []string{"functions", "03a34a603", "result:functions", "result:03a34a603"},
		},
		{
			name:  "strict collisions",
			mode:  "strict",
			lines: turnWithCalls("call-1", "call_1", longProxyID),
			want: []string{"call1", "call174196fe7", "averylongtoolcallidentifierfromaproxy012",
				"result:call1", "result:call174196fe7", "result:averylongtoolcallidentifierfromaproxy012"},
		},
		{
			name:  "strict keeps Kimi ids",
			mode:  "strict",
			lines: turnWithCalls("functions.list_dir:0", "functions.exec:1"),
			want:  []string{"functions.list_dir:0", "functions.exec:1", "result:functions.list_dir:0", "result:functions.exec:1"},
		},
		{
			name:  "strict id reused across turns (case 73)",
			mode:  "strict",
			lines: reused,
			want:  []string{"call0", "result:call0", "call02", "result:call02", "call03", "result:call03"},
		},
		{
			name:  "strict9 id reused across turns (case 73)",
			mode:  "strict9",
			lines: reused,
			want:  []string{"63760f759", "result:63760f759", "13f36bc82", "result:13f36bc82", "5c99cc93d", "result:5c99cc93d"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolTestRun(completions, strictPolicy(tc.mode))
			got := callAndResultIDs(rewriteToolCallIDs(r, replayTestMessages(t, tc.lines...)))
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("ids:\n got %q\nwant %q", got, tc.want)
			}
			if unchanged := strings.Join(callAndResultIDs(replayTestMessages(t, tc.lines...)), " ") == strings.Join(got, " "); unchanged != (len(r.Changes) == 0) {
				t.Errorf("ids unchanged: %v, but %d change(s) recorded", unchanged, len(r.Changes))
			}
			for _, c := range r.Changes {
				if c.Rule != "tool-call-ids/"+tc.mode || !strings.Contains(c.Detail, " → ") {
					t.Errorf("change %+v: want rule tool-call-ids/%s with an old → new detail", c, tc.mode)
				}
			}
		})
	}
}

func TestRewriteToolCallIDsGate(t *testing.T) {
	lines := turnWithCalls("call-1")
	tests := []struct {
		name   string
		target Target
		policy Policy
	}{
		{"ids not sanitized", Target{ModelAPI: "openai-completions"}, Policy{ToolCallIDMode: "strict"}},
		{"no mode", Target{ModelAPI: "openai-completions"}, Policy{SanitizeToolCallIDs: true}},
		{"responses api", Target{ModelAPI: "openai-responses"}, strictPolicy("strict")},
		{"codex responses api", Target{ModelAPI: "openai-chatgpt-responses"}, strictPolicy("strict")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := replayTestMessages(t, lines...)
			r := toolTestRun(tc.target, tc.policy)
			if got, want := replayTestJSON(rewriteToolCallIDs(r, in)), replayTestJSON(in); got != want {
				t.Errorf("changed:\n%s", got)
			}
			if len(r.Changes) != 0 {
				t.Errorf("changes recorded: %+v", r.Changes)
			}
		})
	}
}

func TestRewriteToolCallIDsResolver(t *testing.T) {
	completions := Target{Provider: "p", ModelAPI: "openai-completions"}
	anthropic := Target{Provider: "anthropic", ModelAPI: "anthropic-messages"}
	anthropicPolicy := strictPolicy("strict")
	anthropicPolicy.PreserveNativeAnthropicToolUseIDs = true
	anthropicPolicy.PreserveSignatures = true
	anthropicPolicy.ValidateAnthropicTurns = true
	openAIStyle := strictPolicy("strict")
	openAIStyle.DuplicateToolCallIDStyle = "openai"
	tests := []struct {
		name   string
		target Target
		policy Policy
		lines  []string
		want   string
	}{
		{
			name:   "result aliases follow; toolCallId added",
			target: completions, policy: strictPolicy("strict"),
			lines: []string{
				`{"role":"assistant","content":[{"type":"toolCall","id":"call-9","name":"a","arguments":{}}]}`,
				`{"role":"toolResult","toolUseId":"call-9","call_id":"call-9","content":[]}`,
			},
			want: `{"role":"assistant","content":[{"type":"toolCall","id":"call9","name":"a","arguments":{}}]}
{"role":"toolResult","toolUseId":"call9","call_id":"call9","content":[],"toolCallId":"call9"}
`,
		},
		{
			name:   "orphan results are numbered",
			target: completions, policy: strictPolicy("strict"),
			lines: []string{
				`{"role":"toolResult","toolCallId":"ghost","content":[]}`,
				`{"role":"toolResult","toolCallId":"ghost","content":[]}`,
			},
			want: `{"role":"toolResult","toolCallId":"ghosttoolresult1","content":[]}
{"role":"toolResult","toolCallId":"ghosttoolresult2","content":[]}
`,
		},
		{
			name:   "native toolu ids kept, snake-case blocks untouched",
			target: anthropic, policy: anthropicPolicy,
			lines: []string{
				`{"role":"assistant","content":[{"type":"toolUse","id":"toolu_01AB","name":"a","input":{}},{"type":"tool_use","id":"x-y","name":"b","input":{}}]}`,
				`{"role":"toolResult","toolCallId":"toolu_01AB","content":[]}`,
			},
			want: `{"role":"assistant","content":[{"type":"toolUse","id":"toolu_01AB","name":"a","input":{}},{"type":"tool_use","id":"x-y","name":"b","input":{}}]}
{"role":"toolResult","toolCallId":"toolu_01AB","content":[]}
`,
		},
		{
			name:   "signed thinking turn keeps its ids and reserves them",
			target: anthropic, policy: anthropicPolicy,
			lines: []string{
				`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"toolCall","id":"call_7","name":"a","arguments":{}}]}`,
				`{"role":"toolResult","toolCallId":"call_7","content":[]}`,
				`{"role":"assistant","content":[{"type":"toolCall","id":"call-7","name":"a","arguments":{}}]}`,
				`{"role":"toolResult","toolCallId":"call-7","content":[]}`,
			},
			want: `{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"toolCall","id":"call_7","name":"a","arguments":{}}]}
{"role":"toolResult","toolCallId":"call_7","content":[]}
{"role":"assistant","content":[{"type":"toolCall","id":"call7","name":"a","arguments":{}}]}
{"role":"toolResult","toolCallId":"call7","content":[]}
`,
		},
		{
			name:   "openai duplicate style",
			target: completions, policy: openAIStyle,
			lines: []string{
				`{"role":"assistant","content":[{"type":"toolCall","id":"call_a","name":"a","arguments":{}},{"type":"toolCall","id":"call_a","name":"a","arguments":{}}]}`,
			},
			want: `{"role":"assistant","content":[{"type":"toolCall","id":"call_a","name":"a","arguments":{}},{"type":"toolCall","id":"call_` + sha256Hex("call_a:2:0")[:24] + `","name":"a","arguments":{}}]}
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolTestRun(tc.target, tc.policy)
			got := replayTestJSON(rewriteToolCallIDs(r, replayTestMessages(t, tc.lines...)))
			if got != tc.want {
				t.Errorf("messages:\n got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestMakeUniqueToolID(t *testing.T) {
	tests := []struct {
		id, mode string
		used     []string
		want     string
	}{
		{"", "strict9", nil, "defaultid"},
		{"!!!", "strict9", nil, "44d8b78be"},
		{"!!!", "strict", nil, "sanitizedtoolid"},
		{"call_1", "strict", []string{"call1", "call174196fe7"}, "call174196fe7x2"},
		{"call_1", "strict", []string{"call1", "call174196fe7", "call174196fe7x2"}, "call174196fe7x3"},
		{longProxyID, "strict", []string{"averylongtoolcallidentifierfromaproxy012"}, "averylongtoolcallidentifierfromaproxy012"[:32] + sha256Hex(longProxyID)[:8]},
		{longProxyID, "strict", []string{"averylongtoolcallidentifierfromaproxy012", "averylongtoolcallidentifierfromaproxy012"[:32] + sha256Hex(longProxyID)[:8]},
			"averylongtoolcallidentifierfromaproxy012"[:32] + sha256Hex(longProxyID)[:6] + "x2"},
		{"abcdefghijk", "strict9", []string{"abcdefghi"}, sha256Hex("abcdefghijk:0")[:9]},
		{"abcdefghijk", "strict9", []string{"abcdefghi", sha256Hex("abcdefghijk:0")[:9]}, sha256Hex("abcdefghijk:1")[:9]},
	}
	for _, tc := range tests {
		used := map[string]bool{}
		for _, u := range tc.used {
			used[u] = true
		}
		if got := makeUniqueToolID(tc.id, func(id string) bool { return used[id] }, tc.mode); got != tc.want {
			t.Errorf("makeUniqueToolID(%q, %v, %s) = %q, want %q", tc.id, tc.used, tc.mode, got, tc.want)
		}
	}
}

func TestSHA256HexOfLoneSurrogate(t *testing.T) {
	// Node hashes a lone surrogate as U+FFFD (EF BF BD).
	lone := "a\xed\xa0\x80b"
	if got, want := sha256Hex(lone), sha256Hex("a\uFFFDb"); got != want {
		t.Errorf("sha256Hex(lone surrogate) = %s, want %s", got, want)
	}
}

// TestToolIDMatchers pins the hand-written id matchers to the patterns
// OpenClaw writes as regular expressions.
func TestToolIDMatchers(t *testing.T) {
	native := regexp.MustCompile(`^toolu_[A-Za-z0-9_]+$`)
	openAI := regexp.MustCompile(`^call_[A-Za-z0-9_-]+$`)
	for _, id := range []string{"", "toolu_", "toolu_a", "toolu_01AbZ_9", "toolu_a-b", "toolu_a\n", "xtoolu_a", "toolu_é",
		"call_", "call_a", "call_a-b_C9", "call_a b", "call_a|fc_1", "CALL_a", "call_a\n", "toolu_0000000001"} {
		if got, want := isNativeAnthropicToolUseID(id), native.MatchString(id); got != want {
			t.Errorf("isNativeAnthropicToolUseID(%q) = %v, want %v", id, got, want)
		}
		if got, want := isOpenAIToolCallID(id), openAI.MatchString(id); got != want {
			t.Errorf("isOpenAIToolCallID(%q) = %v, want %v", id, got, want)
		}
	}
}
