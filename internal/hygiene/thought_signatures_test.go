package hygiene

import "testing"

func TestStripThoughtSignatures(t *testing.T) {
	gemini := Policy{SanitizeMode: "full", SanitizeThoughtSignatures: &ThoughtSignaturePolicy{AllowBase64Only: true, IncludeCamelCase: true}}
	snakeOnly := Policy{SanitizeThoughtSignatures: &ThoughtSignaturePolicy{AllowBase64Only: true}}
	const b64 = "6pVLPkAO4a4jPcXUv4cEs2qxJ+/o+BHFoLlJVGQXGlG730Ep+8awaMpV"
	calls := `{"role":"assistant","content":[` +
		`{"type":"toolCall","id":"a","thoughtSignature":"reasoning"},` +
		`{"type":"toolCall","id":"b","thought_signature":"msg_01AbC"},` +
		`{"type":"toolCall","id":"c","thoughtSignature":"` + b64 + `"},` +
		`{"type":"toolCall","id":"d","thought_signature":"not base64 !!"},` +
		`{"type":"text","text":"t","thoughtSignature":"msg_text_sig"},` +
		`{"type":"text","text":"n","thought_signature":null}]}`
	cases := []ruleCase{
		{
			name: "default options: only snake_case msg_ strings go, whatever sanitizeMode",
			in:   []string{calls},
			want: []string{`{"role":"assistant","content":[` +
				`{"type":"toolCall","id":"a","thoughtSignature":"reasoning"},` +
				`{"type":"toolCall","id":"b"},` +
				`{"type":"toolCall","id":"c","thoughtSignature":"` + b64 + `"},` +
				`{"type":"toolCall","id":"d","thought_signature":"not base64 !!"},` +
				`{"type":"text","text":"t","thoughtSignature":"msg_text_sig"},` +
				`{"type":"text","text":"n","thought_signature":null}]}`},
			changes: []string{"thought-signatures/strip@1"},
		},
		{
			name:   "base64 only with camelCase: every non-base64 signature goes",
			policy: gemini,
			in:     []string{calls},
			want: []string{`{"role":"assistant","content":[` +
				`{"type":"toolCall","id":"a"},` +
				`{"type":"toolCall","id":"b"},` +
				`{"type":"toolCall","id":"c","thoughtSignature":"` + b64 + `"},` +
				`{"type":"toolCall","id":"d"},` +
				`{"type":"text","text":"t","thoughtSignature":"msg_text_sig"},` +
				`{"type":"text","text":"n"}]}`},
			changes: []string{"thought-signatures/strip@1"},
		},
		{
			name:    "base64 only without camelCase leaves thoughtSignature alone",
			policy:  snakeOnly,
			in:      []string{`{"role":"assistant","content":[{"type":"toolCall","id":"a","thoughtSignature":"reasoning","thought_signature":"reasoning"}]}`},
			want:    []string{`{"role":"assistant","content":[{"type":"toolCall","id":"a","thoughtSignature":"reasoning"}]}`},
			changes: []string{"thought-signatures/strip@1"},
		},
		{
			name:   "preserveSignatures turns the rule off",
			policy: Policy{PreserveSignatures: true, SanitizeThoughtSignatures: gemini.SanitizeThoughtSignatures},
			in:     []string{calls},
		},
		{
			name:   "error turns, non-assistant messages and string content are skipped",
			policy: gemini,
			in: []string{
				`{"role":"assistant","stopReason":"error","content":[{"type":"toolCall","id":"a","thought_signature":"msg_x"}]}`,
				`{"role":"user","content":[{"type":"text","text":"u","thought_signature":"msg_x"}]}`,
				`{"role":"assistant","content":"msg_x"}`,
			},
		},
		{
			name:    "an array block becomes an index-keyed object under base64-only, as an object spread makes it",
			policy:  gemini,
			in:      []string{`{"role":"assistant","content":[["x","y"],"s",7,null]}`},
			want:    []string{`{"role":"assistant","content":[{"0":"x","1":"y"},"s",7,null]}`},
			changes: []string{"thought-signatures/strip@1"},
		},
		{
			name: "an array block is left alone by the default options",
			in:   []string{`{"role":"assistant","content":[["x"]]}`},
		},
	}
	runRuleCases(t, stripThoughtSignatures, cases)
}

func TestIsBase64Signature(t *testing.T) {
	// Expected values checked against OpenClaw's own function run in Node.
	cases := map[string]bool{
		"":              false,
		"   ":           false,
		"aQ":            true,
		"aQ=":           true,
		"aQ=====":       true,
		"aR":            false, // non-zero trailing bits
		"aQE":           true,
		"aQF":           false,
		"ab":            false,
		"a":             false,
		"reasoning":     false, // 9 characters: one left over
		"msg_text_sig":  true,  // base64url
		"a-_b":          true,
		"+-ab":          false, // mixed alphabets
		"=aQ":           false,
		"aQ==aQ":        false,
		" aQ\n==\u00a0": true, // trimmed, white space removed
		"not base64 !!": false,
		"6pVLPkAO4a4jPcXUv4cEs2qxJ+/o+BHFoLlJVGQXGlG730Ep+8awaMpVNiwh8AdgKjQpdBjc0nfHJsPa": true,
	}
	for in, want := range cases {
		if got := isBase64Signature(in); got != want {
			t.Errorf("isBase64Signature(%q) = %v, want %v", in, got, want)
		}
	}
}
