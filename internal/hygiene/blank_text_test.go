package hygiene

import (
	"strings"
	"testing"
)

func TestImagePassBlankText(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{"tool result: blank text dropped",
			[]string{`{"role":"toolResult","content":[{"type":"text","text":" "},{"type":"text","text":"ok"}]}`},
			`{"role":"toolResult","content":[{"type":"text","text":"ok"}]}`},
		{"tool result emptied gets the placeholder",
			[]string{`{"role":"toolResult","content":[{"type":"text","text":""}]}`},
			`{"role":"toolResult","content":[{"type":"text","text":"[empty content omitted]"}]}`},
		{"tool result with string content counts as empty",
			[]string{`{"role":"toolResult","content":"done"}`},
			`{"role":"toolResult","content":[{"type":"text","text":"[empty content omitted]"}]}`},
		{"user array emptied gets the placeholder",
			[]string{`{"role":"user","content":[{"type":"text","text":"\n"}]}`},
			`{"role":"user","content":[{"type":"text","text":"[empty content omitted]"}]}`},
		{"user string untouched",
			[]string{`{"role":"user","content":" "}`},
			`{"role":"user","content":" "}`},
		{"text block without a string text kept",
			[]string{`{"role":"user","content":[{"type":"text"},null]}`},
			`{"role":"user","content":[{"type":"text"},null]}`},
		{"assistant emptied removed",
			[]string{`{"role":"assistant","content":[{"type":"text","text":"  "}]}`, `{"role":"assistant","content":[]}`},
			``},
		{"assistant emptied with provider replay state kept",
			[]string{`{"role":"assistant","content":[{"type":"text","text":""}],"providerReplay":{"type":"x"}}`},
			`{"role":"assistant","content":[],"providerReplay":{"type":"x"}}`},
		{"emptied checkpoint owner kept, without the checkpoint",
			[]string{`{"role":"assistant","content":[{"type":"text","text":""}],"providerReplay":{"type":"anthropic-compaction","replayIndex":1}}`},
			`{"role":"assistant","content":[]}`},
		{"checkpoint re-indexed",
			[]string{`{"role":"assistant","content":[{"type":"text","text":""},{"type":"text","text":"a"}],"providerReplay":{"type":"anthropic-compaction","replayIndex":2}}`},
			`{"role":"assistant","content":[{"type":"text","text":"a"}],"providerReplay":{"type":"anthropic-compaction","replayIndex":1}}`},
		{"other roles untouched",
			[]string{`{"role":"custom","content":[{"type":"text","text":""}]}`},
			`{"role":"custom","content":[{"type":"text","text":""}]}`},
	}
	for _, tt := range tests {
		r := replayTestRun(Target{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-opus-4-6"})
		out := imagePass(r, replayTestMessages(t, tt.in...))
		if got := strings.TrimSpace(replayTestJSON(out)); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestImagePassSanitizesImages: user and tool-result images go through the
// image rule (a block without data becomes OpenClaw's placeholder text).
func TestImagePassSanitizesImages(t *testing.T) {
	out := imagePass(replayTestRun(Target{}), replayTestMessages(t,
		`{"role":"user","content":[{"type":"image","mimeType":"image/png"}]}`,
		`{"role":"toolResult","content":[{"type":"image","data":""}]}`,
	))
	got := replayTestJSON(out)
	for _, want := range []string{
		`[session:history] omitted image payload: missing data or mimeType`,
	} {
		if strings.Count(got, want) != 2 {
			t.Errorf("want %q twice in\n%s", want, got)
		}
	}
}
