package hygiene

import "testing"

func TestDropThinkingBlocks(t *testing.T) {
	drop := Policy{DropThinkingBlocks: true}
	user := `{"role":"user","content":"q"}`
	signed := `{"role":"assistant","content":[{"type":"thinking","thinking":"x","thinkingSignature":"` + sigA + `"},{"type":"text","text":"a"}]}`
	stripped := `{"role":"assistant","content":[{"type":"text","text":"a"}]}`
	cases := []ruleCase{
		{
			name: "policy off: unchanged",
			in:   []string{user, signed, user, signed},
		},
		{
			name:   "every assistant but the latest loses its thinking, signed or not",
			policy: drop,
			in: []string{
				user, signed, user,
				`{"role":"assistant","content":[{"type":"redacted_thinking","data":"d"},{"type":"thinking","thinking":"y"}]}`,
				user, signed, user,
			},
			want: []string{
				user, stripped, user,
				`{"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}]}`,
				user, signed, user,
			},
			changes: []string{"thinking/drop@2", "thinking/drop@4"},
		},
		{
			name:   "the latest assistant is the last with array content",
			policy: drop,
			in:     []string{user, signed, `{"role":"assistant","content":"plain"}`},
		},
		{
			name:   "turns without thinking are untouched",
			policy: drop,
			in:     []string{user, stripped, user, signed},
		},
	}
	runRuleCases(t, dropThinkingBlocks, cases)
}
