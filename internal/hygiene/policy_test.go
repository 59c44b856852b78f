package hygiene

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// conformanceTarget is one line of testdata/conformance/targets.txt.
type conformanceTarget struct {
	Name string
	Target
}

// readConformanceTargets reads the replay targets of the conformance corpus.
func readConformanceTargets(t *testing.T) []conformanceTarget {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "conformance", "targets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []conformanceTarget
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		out = append(out, conformanceTarget{fields[0], Target{Provider: fields[1], ModelAPI: fields[2], ModelID: fields[3]}})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no targets in targets.txt")
	}
	return out
}

// policyMap is a policy as the JSON object OpenClaw prints.
func policyMap(t *testing.T, p Policy) map[string]any {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestResolvePolicyConformance checks every conformance target's policy
// against the policy OpenClaw resolved for it.
func TestResolvePolicyConformance(t *testing.T) {
	for _, ct := range readConformanceTargets(t) {
		t.Run(ct.Name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "conformance", "expected", "40-replay-tool-ids-collisions.replay."+ct.Name+".json")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var exp struct {
				Policy map[string]any `json:"policy"`
			}
			if err := json.Unmarshal(data, &exp); err != nil {
				t.Fatal(err)
			}
			if got := policyMap(t, ResolvePolicy(ct.Target)); !reflect.DeepEqual(exp.Policy, got) {
				t.Errorf("policy:\n got %v\nwant %v (OpenClaw)", got, exp.Policy)
			}
		})
	}
}

// TestResolvePolicyRows checks rows of docs/replay.md not covered by the
// conformance targets, and the alias resolution measured on OpenClaw's own resolution.
func TestResolvePolicyRows(t *testing.T) {
	type row struct {
		provider, api, model string
		reasoning            bool
		check                func(p Policy) bool
	}
	strict := func(p Policy) bool { return p.SanitizeToolCallIDs && p.ToolCallIDMode == "strict" }
	def := func(p Policy) bool { return p == defaultPolicy() }
	rows := []row{
		{"GitHub-Copilot ", "anthropic-messages", "claude-sonnet-4-5", false, func(p Policy) bool {
			return p.SanitizeMode == "full" && !p.SanitizeToolCallIDs && p.PreserveSignatures && p.DropThinkingBlocks && p.ValidateAnthropicTurns && p.AllowSyntheticToolResults
		}},
		{"github-copilot", "openai-responses", "gpt-5", false, def},
		{"x-ai", "anthropic-messages", "claude-x", false, def}, // xai plugin: nothing for this api
		{"ollama-cloud", "anthropic-messages", "claude-x", false, def},
		{"minimax-portal", "google-generative-ai", "gemini", false, def},
		{"gemini-cli", "anthropic-messages", "claude-x", false, func(p Policy) bool { // no plugin: Anthropic fallback
			return p.SanitizeMode == "full" && strict(p) && p.PreserveSignatures && p.DropThinkingBlocks && p.ValidateAnthropicTurns
		}},
		{"azure-openai", "openai-responses", "gpt-5", false, func(p Policy) bool { return p.AppendOnlyRuntimeContext && !p.SanitizeToolCallIDs }},
		{"sglang", "openai-completions", "qwen", false, func(p Policy) bool {
			return strict(p) && !p.DropReasoningFromHistory && p.ApplyGoogleTurnOrdering && p.ValidateGeminiTurns && p.ValidateAnthropicTurns
		}},
		{"deepseek", "openai-completions", "deepseek-chat", false, func(p Policy) bool { return strict(p) && p.DropReasoningFromHistory }},
		{"deepseek", "openai-completions", "deepseek-chat", true, func(p Policy) bool { return strict(p) && !p.DropReasoningFromHistory }},
		{"moonshot", "openai-completions", "moonshot/kimi-k2.5", false, func(p Policy) bool { return !p.DropReasoningFromHistory }},
		{"acme", "openai-completions", "acme/kimi-k3:free", false, func(p Policy) bool { return !p.DropReasoningFromHistory }},
		{"acme", "openai-responses", "anthropic/claude-sonnet-4.5", false, func(p Policy) bool { return p.ValidateAnthropicTurns && p.AllowSyntheticToolResults }},
		{"acme", "openai-responses", "claudette", false, func(p Policy) bool { return !p.ValidateAnthropicTurns }},
		{"acme", "google-vertex", "gemini", false, def},
		{"anthropic", "anthropic-messages", "claude-opus-5-5", false, func(p Policy) bool { return p.AppendOnlyRuntimeContext && !p.DropThinkingBlocks }},
		{"amazon-bedrock", "bedrock-converse-stream", "us.anthropic.claude-opus-4-6-v1", false, func(p Policy) bool { return !p.DropThinkingBlocks && !p.PreserveNativeAnthropicToolUseIDs }},
		{"opencode-go", "openai-completions", "Gemini-3", false, func(p Policy) bool {
			return p.SanitizeThoughtSignatures != nil && !p.SanitizeToolCallIDs && !p.ApplyGoogleTurnOrdering
		}},
		{"clawrouter", "google-generative-ai", "gemini", false, func(p Policy) bool { return p.ApplyGoogleTurnOrdering && p.SanitizeMode == "full" }},
		{"clawrouter", "openai-completions", "x", false, func(p Policy) bool { return strict(p) && !p.DropReasoningFromHistory }},
		{"ollama", "ollama", "llama3.3", false, func(p Policy) bool {
			return !p.SanitizeToolCallIDs && p.DropReasoningFromHistory && p.ValidateAnthropicTurns
		}},
	}
	for _, r := range rows {
		p := ResolvePolicy(Target{Provider: r.provider, ModelAPI: r.api, ModelID: r.model, Reasoning: r.reasoning})
		if !r.check(p) {
			t.Errorf("%s / %s / %s (reasoning %v): unexpected policy %+v", r.provider, r.api, r.model, r.reasoning, p)
		}
	}
}

func TestClaudeThinkingRule(t *testing.T) {
	tests := []struct {
		id         string
		drop, bind bool
	}{
		{"claude-sonnet-4-5", true, false},
		{"claude-opus-4", true, false},
		{"claude-3-7-sonnet", true, false},
		{"anthropic/claude-sonnet-4.5", true, false},
		{"anthropic.claude-sonnet-4-5-20250929-v1:0", true, false},
		{"claude-opus-4-6", false, false},
		{"us.anthropic.claude-opus-4-6-v1", false, false},
		{"claude-opus-4-6-v1", false, false},
		{"claude-opus-5-1", false, false},
		{"claude-opus-5-5", false, true},
		{"Claude Opus 5.5", false, true},
		{"opus-5-5", false, true},
		{"claude-fable-5-1-preview", false, true},
		{"claude-fable-5", false, false},
		{"claude-sonnet-4-6", false, false},
		{"claude-opus-4-60", true, false},
		{"gpt-5", false, false},
		{"MiniMax-M2", false, false},
	}
	for _, tt := range tests {
		if got := ShouldDropClaudeThinking(tt.id); got != tt.drop {
			t.Errorf("ShouldDropClaudeThinking(%q) = %v, want %v", tt.id, got, tt.drop)
		}
		if got := BindsClaudeThinkingPrefix(tt.id); got != tt.bind {
			t.Errorf("BindsClaudeThinkingPrefix(%q) = %v, want %v", tt.id, got, tt.bind)
		}
	}
}

func TestDefaultModelAPI(t *testing.T) {
	tests := map[string]string{
		"anthropic": "anthropic-messages", "google": "google-generative-ai", "google-gemini-cli": "google-gemini-cli",
		"google-vertex": "google-vertex", "openai": "openai-responses", "openai-codex": "openai-chatgpt-responses",
		"amazon-bedrock": "bedrock-converse-stream", " Mistral ": "openai-completions", "openrouter": "openai-completions",
		"groq": "openai-completions", "xai": "openai-completions", "deepseek": "openai-completions", "ollama": "ollama",
		"acme-llm": "",
	}
	for provider, want := range tests {
		if got := DefaultModelAPI(provider); got != want {
			t.Errorf("DefaultModelAPI(%q) = %q, want %q", provider, got, want)
		}
	}
}
