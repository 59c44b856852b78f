package hygiene

import "testing"

func TestDropReasoningFromHistory(t *testing.T) {
	drop := Policy{DropReasoningFromHistory: true}
	user := `{"role":"user","content":"q"}`
	answer := `{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"a"}]}`
	answerStripped := `{"role":"assistant","content":[{"type":"text","text":"a"}]}`
	toolTurn := `{"role":"assistant","content":[{"type":"thinking","thinking":"need file"},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`
	result := `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"ok"}]}`
	cases := []ruleCase{
		{
			name: "policy off: unchanged",
			in:   []string{user, answer, user},
		},
		{
			name:   "reasoning removed from every turn, including the last; emptied turn gets the placeholder",
			policy: drop,
			in: []string{
				user, answer, user,
				`{"role":"assistant","content":[{"type":"redacted_thinking","data":"d"}]}`,
				user, answer,
			},
			want: []string{
				user, answerStripped, user,
				`{"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}]}`,
				user, answerStripped,
			},
			changes: []string{"reasoning/drop@2", "reasoning/drop@4", "reasoning/drop@6"},
		},
		{
			name:    "the current same-turn tool continuation keeps its reasoning",
			policy:  drop,
			in:      []string{user, answer, user, toolTurn, result},
			want:    []string{user, answerStripped, user, toolTurn, result},
			changes: []string{"reasoning/drop@2"},
		},
		{
			name:   "a tool turn before the latest user is history",
			policy: drop,
			in:     []string{user, toolTurn, result, user},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`,
				result, user,
			},
			changes: []string{"reasoning/drop@2"},
		},
		{
			name:   "a second assistant in the same turn is not the continuation; the first one is",
			policy: drop,
			in:     []string{user, toolTurn, result, toolTurn, result},
			want: []string{
				user, toolTurn, result,
				`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`,
				result,
			},
			changes: []string{"reasoning/drop@4"},
		},
		{
			name:   "a tool turn without a following tool result is not the continuation",
			policy: drop,
			in:     []string{user, toolTurn},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`,
			},
			changes: []string{"reasoning/drop@2"},
		},
		{
			name:   "a toolUse block does not make a tool turn for this rule",
			policy: drop,
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolUse","id":"c1","name":"read","input":{}}]}`,
				result,
			},
			want: []string{
				user,
				`{"role":"assistant","content":[{"type":"toolUse","id":"c1","name":"read","input":{}}]}`,
				result,
			},
			changes: []string{"reasoning/drop@2"},
		},
		{
			name:   "a function_call block does",
			policy: drop,
			in: []string{
				user,
				`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"function_call","id":"c2","name":"read"}]}`,
				result,
			},
		},
		{
			name:   "without any user message every turn is at or after the latest user",
			policy: drop,
			in:     []string{toolTurn, result},
		},
		{
			name:   "string content and non-assistant roles are left alone",
			policy: drop,
			in: []string{
				`{"role":"assistant","content":"thinking"}`,
				`{"role":"user","content":[{"type":"thinking","thinking":"u"}]}`,
			},
		},
	}
	runRuleCases(t, dropReasoningFromHistory, cases)
}

func TestPreserveLatestAssistantThinking(t *testing.T) {
	user := `{"role":"user","content":"q"}`
	answer := `{"role":"assistant","content":[{"type":"text","text":"a"}]}`
	toolTurn := `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}`
	result := `{"role":"toolResult","toolCallId":"c1","content":[]}`
	cases := []struct {
		name string
		in   []string
		want bool
	}{
		{"no assistant", []string{user}, false},
		{"assistant last", []string{user, answer}, true},
		{"answered, user after", []string{user, answer, user}, false},
		{"current tool turn", []string{user, toolTurn, result}, true},
		{"tool turn answered, then user", []string{user, toolTurn, result, user}, false},
		{"assistant with string content last", []string{user, answer, `{"role":"assistant","content":"s"}`}, false},
		{"tool result after a later assistant without array content", []string{user, toolTurn, `{"role":"assistant","content":"s"}`, result}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := preserveLatestAssistantThinking(&Run{}, thinkTestMessages(t, tc.in...)); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
