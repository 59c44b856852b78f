package hygiene

import (
	"encoding/json"
	"os"
	"path/filepath"
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

func TestStripInternalMetadataForDisplay(t *testing.T) {
	notice := runtimeContextNotice
	tests := []struct{ name, in, want string }{
		{"plain text", "hello\nworld", "hello\nworld"},
		{"delimited block", "before\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nsecret\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nafter", "before\n\nafter"},
		{"nested blocks", "a\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\ny\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nb", "a\n\nb"},
		{"unterminated block", "keep\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nrest", "keep"},
		{"token inside a line is not a delimiter", "x <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> y", "x <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> y"},
		{"stray end delimiter", "a\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\nb", "a\nb"},
		{"CRLF", "a\r\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\r\nx\r\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>\r\nb", "a\n\nb"},
		{"legacy event", "hi\n\nOpenClaw runtime context (internal):\n" + notice + "\n\n[Internal task completion event]\nsource: x\n<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\nr\n<<<END_UNTRUSTED_CHILD_RESULT>>>\n\nAction:\ndo\n\nafter", "hi\n\nafter"},
		{"runtime preface", "OpenClaw runtime event.\n" + notice + "\nreal text", "real text"},
		{"leading timestamp", "[Mon 2026-03-14 09:27 UTC] hello", "hello"},
		{"inbound context block", "Sender: ⟦openclaw:ctx⟧\n```json\n{\"label\":\"ana\"}\n```\n\nhello", "hello"},
		{"delivery hint line", "Delivery: to send a message, use the `message` tool.\nanswer", "answer"},
		{"channel context tail", "answer\n\nContext: ⟦openclaw:ctx⟧\nchannel stuff", "answer"},
		{"active memory", "Context:\n<active_memory_plugin>\nmem\n</active_memory_plugin>\n\nreply", "reply"},
		{"bare Context line without memory", "Context:\nnot memory", "Context:\nnot memory"},
	}
	for _, tt := range tests {
		if got := stripInternalMetadataForDisplay(tt.in); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestNormalizeReplayContent(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want string
		rule string
	}{
		{"blank user string removed",
			[]string{`{"role":"user","content":"  \n"}`}, "", ruleUserBlank},
		{"blank user string with persisted media kept",
			[]string{`{"role":"user","content":" ","__openclaw":{"media":[{"path":"/tmp/a.png"}]}}`},
			`{"role":"user","content":" ","__openclaw":{"media":[{"path":"/tmp/a.png"}]}}` + "\n", ""},
		{"media fact of unknown kind is not media",
			[]string{`{"role":"user","content":[{"type":"text","text":""}],"__openclaw":{"media":[{"kind":"unknown"}]}}`}, "", ruleUserBlank},
		{"blank user blocks dropped, media message emptied",
			[]string{`{"role":"user","content":[{"type":"text","text":" "}],"__openclaw":{"media":[{"contentType":"image/png"}]}}`},
			`{"role":"user","content":"","__openclaw":{"media":[{"contentType":"image/png"}]}}` + "\n", ruleUserBlank},
		{"delivery mirror removed",
			[]string{`{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"openclaw","model":"delivery-mirror"}`}, "", ruleTranscriptArtifact},
		{"mirror marker without provider removed",
			[]string{`{"role":"assistant","content":[{"type":"text","text":"hi"}],"openclawDeliveryMirror":{"kind":"channel-final"}}`}, "", ruleTranscriptArtifact},
		{"padded model name is not an artifact",
			[]string{`{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"openclaw","model":" delivery-mirror"}`},
			`{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"openclaw","model":" delivery-mirror"}` + "\n", ""},
		{"empty error turn removed",
			[]string{`{"role":"assistant","content":[],"stopReason":"error"}`}, "", ruleStreamError},
		{"sentinel error turn removed",
			[]string{`{"role":"assistant","content":[{"type":"output_text","text":"[assistant turn failed before producing content]"}],"stopReason":"error"}`}, "", ruleStreamError},
		{"zero-usage empty stop removed",
			[]string{`{"role":"assistant","content":[],"stopReason":"stop","usage":{"input":0,"output":0,"totalTokens":0}}`}, "", ruleStreamError},
		{"empty stop with usage kept here",
			[]string{`{"role":"assistant","content":[],"stopReason":"stop","usage":{"input":3,"output":0}}`},
			`{"role":"assistant","content":[],"stopReason":"stop","usage":{"input":3,"output":0}}` + "\n", ""},
		{"string content becomes a block",
			[]string{`{"role":"assistant","content":"hello","stopReason":"stop"}`},
			`{"role":"assistant","content":[{"type":"text","text":"hello"}],"stopReason":"stop"}` + "\n", ruleContentShape},
		{"silent string removed",
			[]string{`{"role":"assistant","content":"NO_REPLY","stopReason":"stop"}`}, "", ruleSilentReply},
		{"object content wrapped",
			[]string{`{"role":"assistant","content":{"type":"text","text":"x"}}`},
			`{"role":"assistant","content":[{"type":"text","text":"x"}]}` + "\n", ruleContentShape},
		{"display blocks removed",
			[]string{`{"role":"assistant","content":[{"type":"image","data":"x"},{"type":"text","text":"see"},{"type":"audio"}]}`},
			`{"role":"assistant","content":[{"type":"text","text":"see"}]}` + "\n", ruleDisplayBlocks},
		{"silent block with reasoning left removed",
			[]string{`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"NO_REPLY"}]}`}, "", ruleSilentReply},
		{"silent block beside a tool call keeps the call",
			[]string{`{"role":"assistant","content":[{"type":"text","text":"NO_REPLY"},{"type":"toolCall","id":"c","name":"x","arguments":{}}]}`},
			`{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"x","arguments":{}}]}` + "\n", ruleSilentReply},
		{"metadata stripped from a block",
			[]string{`{"role":"assistant","content":[{"type":"text","text":"[Mon 2026-03-14 09:27 UTC] hi","x":1}]}`},
			`{"role":"assistant","content":[{"type":"text","text":"hi","x":1}]}` + "\n", ruleInternalMetadata},
		{"length turn with reasoning only removed",
			[]string{`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":" "}],"stopReason":"length"}`}, "", ruleLengthReasoning},
		{"mirror duplicate removed",
			[]string{
				`{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop","usage":{"input":4,"output":2}}`,
				`{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop","usage":{"input":0,"output":0}}`,
			},
			`{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop","usage":{"input":4,"output":2}}` + "\n", ruleMirrorDuplicate},
		{"other roles untouched",
			[]string{`{"role":"compactionSummary","summary":"","timestamp":1}`, `{"role":"custom","content":""}`},
			`{"role":"compactionSummary","summary":"","timestamp":1}` + "\n" + `{"role":"custom","content":""}` + "\n", ""},
	}
	for _, tt := range tests {
		r := replayTestRun(Target{})
		out := normalizeReplayContent(r, replayTestMessages(t, tt.in...))
		if got := replayTestJSON(out); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
		if tt.rule != "" && !hasRule(r.Changes, tt.rule) {
			t.Errorf("%s: no %s change recorded: %+v", tt.name, tt.rule, r.Changes)
		}
		if tt.rule == "" && len(r.Changes) > 0 {
			t.Errorf("%s: unexpected changes %+v", tt.name, r.Changes)
		}
	}
}

// TestCompactionCheckpointReindexed: removing blocks before a prefix-bound
// checkpoint moves its replayIndex; changing a block drops the checkpoint.
func TestCompactionCheckpointReindexed(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"role":"assistant","content":[{"type":"image"},{"type":"text","text":"a"},{"type":"text","text":"b"}],"providerReplay":{"type":"anthropic-compaction","replayIndex":2}}`,
			`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"providerReplay":{"type":"anthropic-compaction","replayIndex":1}}`},
		{`{"role":"assistant","content":[{"type":"image"},{"type":"text","text":"[Mon 2026-03-14 09:27 UTC] a"}],"providerReplay":{"type":"anthropic-compaction","replayIndex":1}}`,
			`{"role":"assistant","content":[{"type":"text","text":"a"}]}`},
		{`{"role":"assistant","content":[{"type":"image"},{"type":"text","text":"a"}],"providerReplay":{"type":"openai-responses-retained-compaction","replayIndex":1}}`,
			`{"role":"assistant","content":[{"type":"text","text":"a"}],"providerReplay":{"type":"openai-responses-retained-compaction","replayIndex":1}}`},
		{`{"role":"assistant","content":"x","providerReplay":{"type":"anthropic-compaction"}}`,
			`{"role":"assistant","content":[{"type":"text","text":"x"}]}`},
	}
	for _, tt := range tests {
		out := normalizeReplayContent(replayTestRun(Target{}), replayTestMessages(t, tt.in))
		if got := strings.TrimSpace(replayTestJSON(out)); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
}

// TestStripInternalMetadataVectors compares with OpenClaw's own
// stripInternalMetadataForDisplay on the inputs of
// testdata/openclaw-strip-metadata.json ([input, OpenClaw's output] pairs,
// written by running OpenClaw 2026.9.6's function: hand-made inputs, then
// random concatenations of delimiters, markers, hints and line breaks).
func TestStripInternalMetadataVectors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "openclaw-strip-metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	if err := json.Unmarshal(data, &pairs); err != nil {
		t.Fatal(err)
	}
	if len(pairs) == 0 {
		t.Fatal("no vectors")
	}
	for _, p := range pairs {
		if got := stripInternalMetadataForDisplay(p[0]); got != p[1] {
			t.Errorf("strip(%q) = %q, OpenClaw %q", p[0], got, p[1])
		}
	}
}

// FuzzAssistantText: metadata stripping and NO_REPLY detection take any
// text without panicking, and stripping never adds text.
func FuzzAssistantText(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "openclaw-strip-metadata.json"))
	if err != nil {
		f.Fatal(err)
	}
	var pairs [][2]string
	if err := json.Unmarshal(data, &pairs); err != nil {
		f.Fatal(err)
	}
	for _, p := range pairs {
		f.Add(p[0])
	}
	f.Add("<think>x</think>\nNO_REPLY")
	f.Add("[Inter-session message] a\n" + interSessionExplanation)
	f.Fuzz(func(t *testing.T, text string) {
		out := stripInternalMetadataForDisplay(text)
		if len(out) > len(text)+2 { // a removed block may leave one "\n\n" joint
			t.Errorf("stripping grew %q to %q", text, out)
		}
		_ = isSilentReplyPayloadText(text)
		_ = stripInterSessionMarker(text)
	})
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
