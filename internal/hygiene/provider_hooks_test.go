package hygiene

import (
	"strings"
	"testing"
)

func TestProviderReplayHook(t *testing.T) {
	in := []string{
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}]}`,
		`{"role":"assistant","content":[{"type":"redacted_thinking","data":"x"}]}`,
	}
	stripped := `{"role":"assistant","content":[{"type":"text","text":"a"}]}
{"role":"assistant","content":[{"type":"text","text":"[assistant reasoning omitted]"}]}`
	unchanged := strings.Join(in, "\n")
	boot := `{"role":"user","content":"(session bootstrap)","timestamp":1767225600000}`
	tests := []struct {
		provider, api, want string
	}{
		{"github-copilot", "openai-responses", stripped},
		{" GitHub-Copilot", "anthropic-messages", stripped},
		{"github-copilot", "openai-completions", unchanged},
		{"google", "google-generative-ai", boot + "\n" + unchanged},
		{"google-vertex", "google-vertex", boot + "\n" + unchanged},
		{"clawrouter", "google-generative-ai", boot + "\n" + unchanged},
		{"clawrouter", "openai-completions", unchanged},
		{"gemini-cli", "google-gemini-cli", unchanged}, // no plugin, no hook
		{"anthropic", "anthropic-messages", unchanged},
	}
	for _, tt := range tests {
		r := replayTestRun(Target{Provider: tt.provider, ModelAPI: tt.api})
		out := providerReplayHook(r, replayTestMessages(t, in...))
		if got := strings.TrimSpace(replayTestJSON(out)); got != tt.want {
			t.Errorf("%s/%s:\n got %s\nwant %s", tt.provider, tt.api, got, tt.want)
		}
	}
}
