package hygiene

import (
	"strings"
	"testing"
)

const (
	rsThinking = `{"type":"thinking","thinking":"","thinkingSignature":"{\"id\":\"rs_1\",\"type\":\"reasoning\"}"}`
	rsObject   = `{"type":"thinking","thinking":"","thinkingSignature":{"id":"rs_2","type":"reasoning.encrypted"}}`
)

func TestResponsesReplay(t *testing.T) {
	responses := Target{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5"}
	tests := []struct {
		name     string
		target   Target
		switched bool
		switchAt int64
		lines    []string
		want     []string
		rules    []string
	}{
		{
			name:   "other apis are left alone",
			target: Target{Provider: "openai", ModelAPI: "openai-completions"},
			lines:  []string{`{"role":"assistant","content":[{"type":"toolCall","id":"bad id","name":"a","arguments":{}}]}`},
			want:   []string{`{"role":"assistant","content":[{"type":"toolCall","id":"bad id","name":"a","arguments":{}}]}`},
		},
		{
			name:   "missing results are answered with aborted",
			target: responses,
			lines:  []string{`{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"a","arguments":{}}]}`},
			want:   []string{`{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"a","arguments":{}}]}`, syntheticJSON("call_1", "a", "aborted")},
			rules:  []string{"tool-result-pairing/synthetic"},
		},
		{
			name:   "invalid ids are normalised and then downgraded without reasoning (case 52)",
			target: Target{Provider: "openai-codex", ModelAPI: "openai-chatgpt-responses"},
			lines: []string{
				`{"role":"assistant","content":[{"type":"toolCall","id":"call_bad id.1|fc_x y","name":"read","arguments":{}}],"stopReason":"toolUse"}`,
				`{"role":"toolResult","toolCallId":"call_bad id.1|fc_x y","toolName":"read","content":[]}`,
			},
			want: []string{
				`{"role":"assistant","content":[{"type":"toolCall","id":"call_bad_id_1_fc_x_y_bfdafdf8d2","name":"read","arguments":{}}],"stopReason":"toolUse"}`,
				`{"role":"toolResult","toolCallId":"call_bad_id_1_fc_x_y_bfdafdf8d2","toolName":"read","content":[]}`,
			},
			rules: []string{"responses/call-id", "responses/call-id", "responses/downgrade", "responses/downgrade"},
		},
		{
			name:   "a call after a reasoning item keeps its fc id; one without loses it (case 53)",
			target: responses,
			lines: []string{
				`{"role":"assistant","content":[{"type":"toolCall","id":"call_a|fc_a","name":"x","arguments":{}},` + rsThinking + `,{"type":"toolCall","id":"call_b|fc_b","name":"x","arguments":{}}]}`,
				`{"role":"toolResult","toolCallId":"call_a|fc_a","toolUseId":"call_a|fc_a","tool_call_id":"call_a|fc_a","content":[]}`,
				`{"role":"toolResult","toolCallId":"call_b|fc_b","content":[]}`,
			},
			want: []string{
				`{"role":"assistant","content":[{"type":"toolCall","id":"call_a","name":"x","arguments":{}},` + rsThinking + `,{"type":"toolCall","id":"call_b|fc_b","name":"x","arguments":{}}]}`,
				`{"role":"toolResult","toolCallId":"call_a","toolUseId":"call_a","tool_call_id":"call_a|fc_a","content":[],"toolName":"x"}`,
				`{"role":"toolResult","toolCallId":"call_b|fc_b","content":[],"toolName":"x"}`,
			},
			rules: []string{"tool-result-pairing/tool-name", "tool-result-pairing/tool-name", "responses/downgrade", "responses/downgrade", "responses/downgrade"},
		},
		{
			name:     "reasoning from before a model switch is dropped, phases kept",
			target:   responses,
			switched: true, switchAt: 2000,
			lines: []string{
				`{"role":"assistant","content":[` + rsThinking + `,{"type":"text","text":"a","textSignature":"{\"v\":1,\"id\":\"msg_1\",\"phase\":\"commentary\"}","x":1},{"type":"text","text":"b","textSignature":"msg_2"}],"timestamp":1000}`,
				`{"role":"assistant","content":[` + rsObject + `],"timestamp":"1970-01-01T00:00:01Z"}`,
				`{"role":"assistant","content":[` + rsThinking + `],"timestamp":3000}`,
			},
			want: []string{
				`{"role":"assistant","content":[{"type":"text","text":"a","x":1,"textSignature":"{\"v\":1,\"phase\":\"commentary\"}"},{"type":"text","text":"b"}],"timestamp":1000}`,
				`{"role":"assistant","content":[` + rsThinking + `],"timestamp":3000}`,
			},
			rules: []string{"responses/stale-reasoning", "responses/stale-reasoning"},
		},
		{
			name:   "reasoning stays without a model switch",
			target: responses,
			lines:  []string{`{"role":"assistant","content":[` + rsThinking + `],"timestamp":1000}`},
			want:   []string{`{"role":"assistant","content":[` + rsThinking + `],"timestamp":1000}`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := toolTestRun(tc.target, Policy{RepairToolUseResultPairing: true})
			r.ModelSwitched, r.ModelSwitchAt = tc.switched, tc.switchAt
			in := replayTestMessages(t, tc.lines...)
			before := replayTestJSON(in)
			got := replayTestJSON(responsesReplay(r, in))
			if want := strings.Join(tc.want, "\n") + "\n"; got != want {
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

func TestNormalizeResponsesFunctionCallID(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct{ id, want string }{
		{"call_ok-1", "call_ok-1"},
		{"call_ok|fc_ok", "call_ok|fc_ok"},
		{" call_ok ", "call_ok"},
		{"call_bad id.1|fc_x y", "call_bad_id_1_fc_x_y_" + sha256Hex("call_bad id.1|fc_x y")[:10] + "|fc_x_y_" + sha256Hex("fc_x y")[:10]},
		{"call_ok|item 9", "call_ok_item_9_" + sha256Hex("call_ok|item 9")[:10] + "|fc_item_9_" + sha256Hex("item 9")[:10]},
		{"", "call_id_" + sha256Hex("call_")[:10]},
		{"__", "call_id_" + sha256Hex("__")[:10]},
		{"call_é😀", "call_id_" + sha256Hex("call_é😀")[:10]},
		{"call_aé😀b", "call_a___b_" + sha256Hex("call_aé😀b")[:10]},
		{"call_" + long, "call_" + long[:48] + "_" + sha256Hex("call_" + long)[:10]},
	}
	for _, tc := range tests {
		got := tc.id
		if responsesIDNeedsNormalizing(tc.id) {
			got = normalizeResponsesFunctionCallID(tc.id)
		}
		if got != tc.want {
			t.Errorf("normalize(%q) = %q, want %q", tc.id, got, tc.want)
		}
		if len(got) > 64+1+64 {
			t.Errorf("normalize(%q) too long: %d", tc.id, len(got))
		}
	}
}

func TestSanitizeResponsesIDTail(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc-DEF_9", "abc-DEF_9"},
		{"a b.c", "a_b_c"},
		{"é", ""},
		{"xé😀y", "x___y"},
		{"x\xed\xa0\x80y", "x_y"},
		{"__a__", "a"},
	}
	for _, tc := range tests {
		if got := sanitizeResponsesIDTail(tc.in); got != tc.want {
			t.Errorf("sanitizeResponsesIDTail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestResponsesInvariant(t *testing.T) {
	const (
		call   = `{"role":"assistant","content":[{"type":"toolCall","id":"a","name":"x","arguments":{}},{"type":"toolCall","id":"b","name":"x","arguments":{}}]}`
		resA   = `{"role":"toolResult","toolCallId":"a","content":[]}`
		resB   = `{"role":"toolResult","toolCallId":" b ","content":[]}`
		user   = `{"role":"user","content":"u"}`
		prefix = "invalid_replay_transcript: OpenAI Responses replay contains "
	)
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"valid", []string{user, call, resB, resA, user}, ""},
		{"dangling before a user turn", []string{user, call, resB, user}, prefix + "dangling_tool_call toolCallId=a at message index 1"},
		{"dangling at the end", []string{call, resA}, prefix + "dangling_tool_call toolCallId=b at message index 0"},
		{"orphan result", []string{user, resA}, prefix + "orphan_tool_result toolCallId=a at message index 1"},
		{"orphan result without id", []string{call, resA, resB, `{"role":"toolResult","content":[]}`}, prefix + "orphan_tool_result at message index 3"},
		{"repeated id in one turn (case 65)", []string{
			`{"role":"assistant","content":[{"type":"toolCall","id":"r","name":"x","arguments":{}},{"type":"toolCall","id":"r","name":"x","arguments":{}}]}`,
			`{"role":"toolResult","toolCallId":"r","content":[]}`, `{"role":"toolResult","toolCallId":"r","content":[]}`,
		}, prefix + "orphan_tool_result toolCallId=r at message index 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := responsesInvariant(replayTestMessages(t, tc.lines...))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("error %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPairingOptionsFor(t *testing.T) {
	for api, want := range map[string]string{
		"openai-responses": "aborted", "azure-openai-responses": "aborted", "openai-chatgpt-responses": "aborted",
		"openai-completions": "", "anthropic-messages": "",
	} {
		if got := pairingOptionsFor(api).SyntheticText; got != want {
			t.Errorf("pairingOptionsFor(%s) = %q, want %q", api, got, want)
		}
	}
}
