package hygiene

import (
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

func TestSanitizeToolCallInputs(t *testing.T) {
	const (
		text     = `{"type":"text","text":"On it."}`
		read     = `{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}`
		thinking = `{"type":"thinking","thinking":"t","signature":"sig"}`
	)
	asst := func(stop string, blocks ...string) string {
		return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `],"stopReason":"` + stop + `"}`
	}
	tests := []struct {
		name          string
		allowThinking bool
		lines         []string
		want          []string
		rules         []string
	}{
		{
			name:  "valid calls unchanged",
			lines: []string{asst("toolUse", text, read)},
			want:  []string{asst("toolUse", text, read)},
		},
		{
			name: "calls without input are dropped; {} counts as input",
			lines: []string{asst("toolUse", text,
				`{"type":"toolCall","id":"c1","name":"list_tmp"}`,
				`{"type":"functionCall","id":"c2","name":"read","arguments":null}`,
				`{"type":"toolUse","id":"c3","name":"read","input":{}}`)},
			want:  []string{asst("toolUse", text, `{"type":"toolUse","id":"c3","name":"read","input":{}}`)},
			rules: []string{"tool-call-inputs/missing-input", "tool-call-inputs/missing-input"},
		},
		{
			name: "calls without any id are dropped; call_id counts",
			lines: []string{asst("toolUse",
				`{"type":"toolCall","id":"  ","name":"read","arguments":{}}`,
				`{"type":"tool_use","call_id":"k1","name":"read","input":{}}`)},
			want:  []string{asst("toolUse", `{"type":"tool_use","call_id":"k1","name":"read","input":{}}`)},
			rules: []string{"tool-call-inputs/missing-id"},
		},
		{
			name: "invalid names are dropped, padded names trimmed (case 42)",
			lines: []string{asst("toolUse",
				`{"type":"toolCall","id":"c1","name":"  exec  ","arguments":{}}`,
				`{"type":"toolCall","id":"c2","name":"disk usage","arguments":{}}`,
				`{"type":"toolCall","id":"c3","name":"`+strings.Repeat("x", 65)+`","arguments":{}}`,
				`{"type":"toolCall","id":"c4","arguments":{}}`,
				`{"type":"toolCall","id":"c5","name":"`+strings.Repeat("y", 64)+`","arguments":{}}`)},
			want: []string{asst("toolUse",
				`{"type":"toolCall","id":"c1","name":"exec","arguments":{}}`,
				`{"type":"toolCall","id":"c5","name":"`+strings.Repeat("y", 64)+`","arguments":{}}`)},
			rules: []string{"tool-call-inputs/name-trimmed", "tool-call-inputs/invalid-name", "tool-call-inputs/invalid-name", "tool-call-inputs/invalid-name"},
		},
		{
			name:  "an unfinished streamed call is dropped (case 43)",
			lines: []string{asst("aborted", text, `{"type":"toolCall","id":"call_a|fc_b","name":"exec","arguments":{},"partialJson":"{\"command\":\"git"}`)},
			want:  []string{asst("aborted", text)},
			rules: []string{"tool-call-inputs/partial-json"},
		},
		{
			name: "a finalised Responses call only loses partialJson",
			lines: []string{asst("toolUse",
				`{"type":"toolCall","id":"call_a|fc_b","name":"read","arguments":{"path":"a"},"partialJson":"{\"path\":\"a\"}"}`,
				`{"type":"toolCall","id":"call_c|fc_d","name":"read","arguments":{},"partialJson":" "}`)},
			want: []string{asst("toolUse",
				`{"type":"toolCall","id":"call_a|fc_b","name":"read","arguments":{"path":"a"}}`,
				`{"type":"toolCall","id":"call_c|fc_d","name":"read","arguments":{}}`)},
			rules: []string{"tool-call-inputs/partial-json-stripped", "tool-call-inputs/partial-json-stripped"},
		},
		{
			name: "partialJson on a call that is not a finalised Responses call",
			lines: []string{asst("toolUse",
				`{"type":"toolCall","id":"call_a","name":"read","arguments":{},"partialJson":"{}"}`,
				`{"type":"toolCall","id":"call_a|fc_b","name":"read","input":{},"arguments":{},"partialJson":"{}"}`,
				`{"type":"toolCall","id":"call_a|fc_c","name":"read","arguments":{"a":1},"partialJson":"{\"a\":"}`,
				text)},
			want:  []string{asst("toolUse", text)},
			rules: []string{"tool-call-inputs/partial-json", "tool-call-inputs/partial-json", "tool-call-inputs/partial-json"},
		},
		{
			name:  "a turn left empty is removed, other messages and non-object messages",
			lines: []string{`{"role":"user","content":"hi"}`, asst("toolUse", `{"type":"toolCall","id":"c1","name":"read"}`), `null`, `{"role":"assistant","content":"text"}`},
			want:  []string{`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"text"}`},
			rules: []string{"tool-call-inputs/missing-input", "tool-call-inputs/empty-turn", "tool-call-inputs/non-object"},
		},
		{
			name:          "signed thinking turn kept verbatim",
			allowThinking: true,
			lines:         []string{asst("toolUse", thinking, read)},
			want:          []string{asst("toolUse", thinking, read)},
		},
		{
			name:          "signed thinking turn needing a name trim is removed whole (case 69)",
			allowThinking: true,
			lines:         []string{asst("toolUse", thinking, `{"type":"toolCall","id":"c1","name":"exec ","arguments":{}}`)},
			rules:         []string{"tool-call-inputs/signed-thinking-turn"},
		},
		{
			name:          "signed thinking turn reusing a kept turn's id is removed",
			allowThinking: true,
			lines:         []string{asst("toolUse", thinking, read), asst("toolUse", thinking, read)},
			want:          []string{asst("toolUse", thinking, read)},
			rules:         []string{"tool-call-inputs/signed-thinking-turn"},
		},
		{
			name:          "sessions_spawn with attachments needs its results before the next call",
			allowThinking: true,
			lines: []string{
				asst("toolUse", thinking, `{"type":"toolCall","id":"s1","name":"sessions_spawn","input":{"attachments":[1]}}`),
				`{"role":"toolResult","toolCallId":"s1","content":[]}`,
				asst("toolUse", thinking, `{"type":"toolCall","id":"s2","name":"sessions_spawn","input":{"attachments":[1]}}`),
			},
			want: []string{
				asst("toolUse", thinking, `{"type":"toolCall","id":"s1","name":"sessions_spawn","input":{"attachments":[1]}}`),
				`{"role":"toolResult","toolCallId":"s1","content":[]}`,
			},
			rules: []string{"tool-call-inputs/signed-thinking-turn"},
		},
		{
			name:  "thinking turns are checked block by block without signed replay",
			lines: []string{asst("toolUse", thinking, `{"type":"toolCall","id":"c1","name":"exec ","arguments":{}}`)},
			want:  []string{asst("toolUse", thinking, `{"type":"toolCall","id":"c1","name":"exec","arguments":{}}`)},
			rules: []string{"tool-call-inputs/name-trimmed"},
		},
		{
			name: "a compaction checkpoint is re-indexed when earlier blocks are dropped",
			lines: []string{`{"role":"assistant","content":[{"type":"toolCall","id":"c0","name":"bad name","arguments":{}},` + text + `,` + read +
				`],"providerReplay":{"type":"anthropic-compaction","replayIndex":2}}`},
			want:  []string{`{"role":"assistant","content":[` + text + `,` + read + `],"providerReplay":{"type":"anthropic-compaction","replayIndex":1}}`},
			rules: []string{"tool-call-inputs/invalid-name"},
		},
		{
			name: "a compaction checkpoint is removed when a block is rewritten",
			lines: []string{`{"role":"assistant","content":[{"type":"toolCall","id":"c0","name":" read","arguments":{}}` +
				`],"providerReplay":{"type":"openai-responses-compaction","replayIndex":0},"x":1}`},
			want:  []string{`{"role":"assistant","content":[{"type":"toolCall","id":"c0","name":"read","arguments":{}}],"x":1}`},
			rules: []string{"tool-call-inputs/name-trimmed"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := Target{Provider: "openai", ModelAPI: "openai-completions"}
			policy := Policy{RepairToolUseResultPairing: true}
			if tc.allowThinking {
				target = Target{Provider: "anthropic", ModelAPI: "anthropic-messages"}
				policy.ValidateAnthropicTurns, policy.PreserveSignatures = true, true
			}
			r := toolTestRun(target, policy)
			in := replayTestMessages(t, tc.lines...)
			before := replayTestJSON(in)
			got := replayTestJSON(sanitizeToolCallInputs(r, in))
			want := ""
			if len(tc.want) > 0 {
				want = strings.Join(tc.want, "\n") + "\n"
			}
			if got != want {
				t.Errorf("messages:\n got:\n%s\nwant:\n%s", got, want)
			}
			if replayTestJSON(in) != before {
				t.Errorf("input modified")
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

func TestAllowsProviderOwnedThinkingReplay(t *testing.T) {
	anth := Policy{ValidateAnthropicTurns: true}
	tests := []struct {
		provider, api string
		policy        Policy
		want          bool
	}{
		{"anthropic", "anthropic-messages", anth, true},
		{" Amazon-Bedrock ", "bedrock-converse-stream", anth, true},
		{"minimax", "anthropic-messages", Policy{ValidateAnthropicTurns: true, PreserveSignatures: true}, true},
		{"minimax", "anthropic-messages", anth, false},
		{"anthropic", "anthropic-messages", Policy{ValidateAnthropicTurns: true, DropThinkingBlocks: true}, false},
		{"anthropic", "anthropic-messages", Policy{}, false},
		{"anthropic", "openai-completions", anth, false},
	}
	for _, tc := range tests {
		r := toolTestRun(Target{Provider: tc.provider, ModelAPI: tc.api}, tc.policy)
		if got := allowsProviderOwnedThinkingReplay(r); got != tc.want {
			t.Errorf("%s/%s %+v: got %v, want %v", tc.provider, tc.api, tc.policy, got, tc.want)
		}
	}
}

// FuzzToolCallRules checks properties of the tool-call rules on arbitrary
// message lists: no panic, the input is never modified, a change is
// recorded exactly when the output differs, strict9 ids come out as 9
// alphanumerics, and the Responses invariant can judge any output. Seeds
// are the message lists of the conformance cases.
func FuzzToolCallRules(f *testing.F) {
	for _, seed := range conformanceMessageLists(f) {
		f.Add(seed, "anthropic", "anthropic-messages", "strict")
		f.Add(seed, "mistral", "openai-completions", "strict9")
		f.Add(seed, "openai", "openai-responses", "")
	}
	f.Fuzz(func(t *testing.T, list []byte, provider, api, mode string) {
		v, err := jsonl.ParseOwned(list)
		if err != nil || !v.IsArray() {
			return
		}
		var in []Message
		for k, it := range v.Items() {
			in = append(in, Message{V: it.Value, Line: k + 1})
		}
		policy := Policy{RepairToolUseResultPairing: true, SanitizeToolCallIDs: mode != "", ToolCallIDMode: mode,
			ValidateAnthropicTurns: true, PreserveSignatures: true, PreserveNativeAnthropicToolUseIDs: true}
		rules := map[string]func(*Run, []Message) []Message{
			"inputs":    sanitizeToolCallInputs,
			"pairing":   func(r *Run, m []Message) []Message { return repairToolResultPairing(r, m, pairingOptionsFor(api)) },
			"ids":       rewriteToolCallIDs,
			"responses": responsesReplay,
		}
		before := replayTestJSON(in)
		for name, rule := range rules {
			r := toolTestRun(Target{Provider: provider, ModelAPI: api}, policy)
			r.ModelSwitched, r.ModelSwitchAt = true, 1773480430000
			out := rule(r, in)
			if replayTestJSON(in) != before {
				t.Fatalf("%s modified its input", name)
			}
			if changed := replayTestJSON(out) != before; changed != (len(r.Changes) > 0) {
				t.Fatalf("%s: output changed = %v, %d change(s) recorded", name, changed, len(r.Changes))
			}
			_, _ = responsesInvariant(out)
		}
		r := toolTestRun(Target{Provider: provider, ModelAPI: "openai-completions"}, strictPolicy("strict9"))
		for _, m := range rewriteToolCallIDs(r, sanitizeToolCallInputs(r, in)) {
			if session.Role(&m.V) != session.RoleAssistant {
				continue
			}
			for _, c := range session.ToolCalls(&m.V) {
				if len(c.ID) != strict9Len || keepASCIIAlnum(c.ID) != c.ID {
					t.Fatalf("strict9 id %q", c.ID)
				}
			}
		}
	})
}

// TestAllowedToolCallName checks the name test against the regular
// expression it stands for, /^[A-Za-z0-9_:.-]+$/ on the trimmed name of at
// most 64 characters, on edge cases and every one- and two-byte string.
func TestAllowedToolCallName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_:.-]+$`)
	want := func(s string) bool {
		s = jsonl.TrimJS(s)
		return s != "" && len(s) <= toolCallNameMaxChars && re.MatchString(s)
	}
	names := []string{"", " ", "read", " read ", "exec_1", "mcp:server.tool-x", "a b", "read\n", "ré",
		"\u00a0read\u2028", strings.Repeat("a", 64), strings.Repeat("a", 65), " " + strings.Repeat("a", 64) + " ", "a\x00"}
	for c := 0; c < 256; c++ {
		names = append(names, string([]byte{byte(c)}), string([]byte{'a', byte(c)}), string([]byte{byte(c), 'z'}))
	}
	for _, s := range names {
		v := jsonl.StringValue(s)
		if got := isAllowedToolCallName(&v); got != want(s) {
			t.Errorf("isAllowedToolCallName(%q) = %v, want %v", s, got, want(s))
		}
	}
	n := jsonl.IntValue(1)
	if isAllowedToolCallName(&n) {
		t.Error("a number is not a name")
	}
}
