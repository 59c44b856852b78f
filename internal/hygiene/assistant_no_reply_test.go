package hygiene

import (
	"strings"
	"testing"
)

func TestIsSilentReplyPayloadText(t *testing.T) {
	tests := []struct {
		text   string
		silent bool
	}{
		{"NO_REPLY", true},
		{"no_reply.", true},
		{"  NO_REPLY   NO_REPLY ", true},
		{"…NO_REPLY!!", true},
		{`"NO_REPLY"`, true},
		{`" NO_REPLY "`, true},
		{`{"action":"NO_REPLY"}`, true},
		{`{"action":" NO_REPLY"}`, true},
		{`{"action":"NO_REPLY","why":"x"}`, false},
		{`{"action":"no_reply"}`, false},
		{"<think>nothing to add</think>NO_REPLY", true},
		{"<thinking>x</thinking>\n<think>y</think> NO_REPLY", true},
		{"<think>The user said thanks. I will stay quiet. NO_REPLY", false}, // one line: no intent line after reasoning
		{"<think>reasoning</think>I will stay quiet. NO_REPLY", true},
		{"thinking:\nNO_REPLY", true},
		{"Analysis:\nThe user is chatting with someone else.\nI will not reply.\nNO_REPLY", true},
		{"Analysis:\nYou should try again.\nI will not reply.\nNO_REPLY", false},
		{"reasoning:\nprivate reasoning notes NO_REPLY", true},
		{"NO_REPLY because I am busy", false},
		{"The answer is NO_REPLY", false},
		{"NO_REPLYING", false},
		{"", false},
		{"hello", false},
		{"NO_REPLY\u00a0NO_REPLY", true}, // JavaScript whitespace
	}
	for _, tt := range tests {
		if got := isSilentReplyPayloadText(strings.TrimSpace(tt.text)); got != tt.silent {
			t.Errorf("isSilentReplyPayloadText(%q) = %v, want %v", tt.text, got, tt.silent)
		}
	}
}

// TestMentionsSilentToken pins the pre-check to the patterns it stands in
// front of: whatever they accept mentions the token.
func TestMentionsSilentToken(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"NO_REPLY", true}, {"no_reply", true}, {"  No_RePlY.", true}, {`{"action":"NO_REPLY"}`, true},
		{"thinking:\nI will stay quiet NO_REPLY", true}, {"NO REPLY", false}, {"NO_REPL", false},
		{"_NO_REPLY_", true}, {"", false}, {"answer 3", false}, {"a_b_c NO_RE_PLY", false},
		{"<think>hmm</think> NO_REPLY", true}, {`"NO_REPLY"`, true}, {"NO_REPLY NO_REPLY!!", true},
		{"ｎｏ_ｒｅｐｌｙ", false}, {"ɴᴏ_ʀᴇᴘʟʏ", false},
	} {
		if got := mentionsSilentToken(tc.text); got != tc.want {
			t.Errorf("mentionsSilentToken(%q) = %v, want %v", tc.text, got, tc.want)
		}
		if isSilentReplyForm(tc.text) && !mentionsSilentToken(tc.text) {
			t.Errorf("%q is a silent reply without the token", tc.text)
		}
	}
}
