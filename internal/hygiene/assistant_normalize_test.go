package hygiene

import (
	"strings"
	"testing"
)

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
