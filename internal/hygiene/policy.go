package hygiene

import (
	"regexp"
	"slices"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// This file resolves OpenClaw 2026.9.6's transcript policy
// (its defaults and the bundled provider plugins'
// buildReplayPolicy hooks), docs/replay.md

// defaultPolicy is DEFAULT_TRANSCRIPT_POLICY.
func defaultPolicy() Policy {
	return Policy{SanitizeMode: "images-only", RepairToolUseResultPairing: true}
}

// policyPatch is what a provider plugin or the unowned fallback returns: a
// partial policy whose absent fields (nil) leave the default in place.
// ApplyAssistantFirstOrderingFix is the plugin-side name of
// Policy.ApplyGoogleTurnOrdering.
type policyPatch struct {
	SanitizeMode                      string
	SanitizeToolCallIDs               *bool
	ToolCallIDMode                    string
	DuplicateToolCallIDStyle          string
	PreserveNativeAnthropicToolUseIDs *bool
	RepairToolUseResultPairing        *bool
	PreserveSignatures                *bool
	AppendOnlyRuntimeContext          *bool
	SanitizeThoughtSignatures         *ThoughtSignaturePolicy
	DropThinkingBlocks                *bool
	DropReasoningFromHistory          *bool
	ApplyAssistantFirstOrderingFix    *bool
	ValidateGeminiTurns               *bool
	ValidateAnthropicTurns            *bool
	AllowSyntheticToolResults         *bool
}

func ptr[T any](v T) *T { return &v }

// merge applies p over base as mergeTranscriptPolicy does: boolean fields
// when set, strings when non-empty, the signature option when present. A
// nil patch leaves base unchanged.
func (p *policyPatch) merge(base Policy) Policy {
	if p == nil {
		return base
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	if p.SanitizeMode != "" {
		base.SanitizeMode = p.SanitizeMode
	}
	setBool(&base.SanitizeToolCallIDs, p.SanitizeToolCallIDs)
	if p.ToolCallIDMode != "" {
		base.ToolCallIDMode = p.ToolCallIDMode
	}
	if p.DuplicateToolCallIDStyle != "" {
		base.DuplicateToolCallIDStyle = p.DuplicateToolCallIDStyle
	}
	setBool(&base.PreserveNativeAnthropicToolUseIDs, p.PreserveNativeAnthropicToolUseIDs)
	setBool(&base.RepairToolUseResultPairing, p.RepairToolUseResultPairing)
	setBool(&base.PreserveSignatures, p.PreserveSignatures)
	setBool(&base.AppendOnlyRuntimeContext, p.AppendOnlyRuntimeContext)
	if p.SanitizeThoughtSignatures != nil {
		sig := *p.SanitizeThoughtSignatures
		base.SanitizeThoughtSignatures = &sig
	}
	setBool(&base.DropThinkingBlocks, p.DropThinkingBlocks)
	setBool(&base.DropReasoningFromHistory, p.DropReasoningFromHistory)
	setBool(&base.ApplyGoogleTurnOrdering, p.ApplyAssistantFirstOrderingFix)
	setBool(&base.ValidateGeminiTurns, p.ValidateGeminiTurns)
	setBool(&base.ValidateAnthropicTurns, p.ValidateAnthropicTurns)
	setBool(&base.AllowSyntheticToolResults, p.AllowSyntheticToolResults)
	return base
}

// ResolvePolicy returns the transcript policy OpenClaw 2026.9.6 resolves for
// t: the owning provider plugin's policy merged over the default, or, for a
// provider without a bundled plugin, the unowned-transport fallback keyed on
// the api. It never fails: an unknown provider and api get the default.
func ResolvePolicy(t Target) Policy {
	provider := NormalizeProvider(t.Provider)
	if plugin := providerPlugins[provider]; plugin != nil {
		return plugin(t).merge(defaultPolicy())
	}
	return unownedFallback(t).merge(defaultPolicy())
}

// NormalizeProvider is OpenClaw's normalizeProviderId: trimmed and
// lower-cased.
func NormalizeProvider(p string) string { return strings.ToLower(jsonl.TrimJS(p)) }

// pluginPolicy is a bundled plugin's buildReplayPolicy; nil means the plugin
// returned nothing (the default policy then applies, not the fallback).
type pluginPolicy func(t Target) *policyPatch

// providerPlugins maps provider ids (and the hook aliases OpenClaw resolves
// to the same plugin) to their buildReplayPolicy. Checked against OpenClaw's own resolution:
// "x-ai", "azure-openai", "azure-openai-responses", "ollama-cloud" and
// "minimax-portal" resolve a plugin; "gemini-cli" and "google-antigravity"
// do not (they get the unowned fallback of their api). Providers absent here have
// no bundled plugin with a replay policy in 2026.9.6 and use unownedFallback.
var providerPlugins = map[string]pluginPolicy{
	"openai":                 openAIPluginPolicy,
	"azure-openai":           openAIPluginPolicy,
	"azure-openai-responses": openAIPluginPolicy,
	"google":                 googlePluginPolicy,
	"google-gemini-cli":      googlePluginPolicy,
	"google-vertex":          googlePluginPolicy,
	"anthropic":              nativeAnthropicPluginPolicy,
	"minimax":                minimaxPluginPolicy,
	"minimax-portal":         minimaxPluginPolicy,
	"xai":                    openAICompatiblePluginPolicy(true),
	"x-ai":                   openAICompatiblePluginPolicy(true),
	"sglang":                 openAICompatiblePluginPolicy(false),
	"openrouter":             openRouterPluginPolicy,
	"opencode-go":            passthroughGeminiPluginPolicy,
	"ollama":                 ollamaPluginPolicy,
	"ollama-cloud":           ollamaPluginPolicy,
	"github-copilot":         copilotPluginPolicy,
	"clawrouter":             clawRouterPluginPolicy,
	// Not bundled in 2026.9.6: the policy of OpenClaw's published Mistral
	// plugin, which a real install has (docs/replay.md).
	"mistral": func(Target) *policyPatch {
		return &policyPatch{SanitizeToolCallIDs: ptr(true), ToolCallIDMode: "strict9"}
	},
}

// The api families OpenClaw tests for.
func isResponsesAPI(api string) bool {
	return api == "openai-responses" || api == "openai-chatgpt-responses" || api == "azure-openai-responses"
}
func isGoogleAPI(api string) bool {
	return api == "google-gemini-cli" || api == "google-generative-ai"
}
func isAnthropicAPI(api string) bool {
	return api == "anthropic-messages" || api == "bedrock-converse-stream"
}

// openAIPluginPolicy is the openai plugin's buildOpenAIReplayPolicy.
func openAIPluginPolicy(t Target) *policyPatch {
	p := &policyPatch{
		SanitizeMode:                   "images-only",
		ApplyAssistantFirstOrderingFix: ptr(false),
		ValidateGeminiTurns:            ptr(false),
		ValidateAnthropicTurns:         ptr(false),
		SanitizeToolCallIDs:            ptr(false),
	}
	if isResponsesAPI(t.ModelAPI) {
		p.AllowSyntheticToolResults = ptr(true)
		p.AppendOnlyRuntimeContext = ptr(true)
	}
	if t.ModelAPI == "openai-completions" {
		p.SanitizeToolCallIDs = ptr(true)
		p.ToolCallIDMode = "strict"
	}
	return p
}

// openAICompatiblePolicy is buildOpenAICompatibleReplayPolicy: nil for apis
// other than completions and the Responses family.
func openAICompatiblePolicy(api string, sanitizeIDs, dropReasoning bool) *policyPatch {
	if api != "openai-completions" && !isResponsesAPI(api) {
		return nil
	}
	p := &policyPatch{}
	if sanitizeIDs {
		p.SanitizeToolCallIDs = ptr(true)
		p.ToolCallIDMode = "strict"
	}
	if isResponsesAPI(api) {
		p.AllowSyntheticToolResults = ptr(true)
	}
	completions := api == "openai-completions"
	p.ApplyAssistantFirstOrderingFix = ptr(completions)
	p.ValidateGeminiTurns = ptr(completions)
	p.ValidateAnthropicTurns = ptr(completions)
	if completions && dropReasoning {
		p.DropReasoningFromHistory = ptr(true)
	}
	return p
}

// openAICompatiblePluginPolicy is the "openai-compatible" replay family.
func openAICompatiblePluginPolicy(dropReasoning bool) pluginPolicy {
	return func(t Target) *policyPatch { return openAICompatiblePolicy(t.ModelAPI, true, dropReasoning) }
}

// ollamaPluginPolicy: the native ollama api keeps tool-call ids.
func ollamaPluginPolicy(t Target) *policyPatch {
	if t.ModelAPI == "ollama" {
		p := openAICompatiblePolicy("openai-completions", false, true)
		p.SanitizeToolCallIDs = ptr(false)
		return p
	}
	return openAICompatiblePolicy(t.ModelAPI, true, true)
}

// googleGeminiPolicy is buildGoogleGeminiReplayPolicy (any api).
func googleGeminiPolicy() *policyPatch {
	return &policyPatch{
		AppendOnlyRuntimeContext:       ptr(false),
		SanitizeMode:                   "full",
		SanitizeToolCallIDs:            ptr(true),
		ToolCallIDMode:                 "strict",
		SanitizeThoughtSignatures:      &ThoughtSignaturePolicy{AllowBase64Only: true, IncludeCamelCase: true},
		RepairToolUseResultPairing:     ptr(true),
		ApplyAssistantFirstOrderingFix: ptr(true),
		ValidateGeminiTurns:            ptr(true),
		ValidateAnthropicTurns:         ptr(false),
		AllowSyntheticToolResults:      ptr(true),
	}
}

func googlePluginPolicy(Target) *policyPatch { return googleGeminiPolicy() }

// strictAnthropicPolicy is buildStrictAnthropicReplayPolicy.
func strictAnthropicPolicy(sanitizeIDs, nativeIDs, appendOnly, dropThinking bool) *policyPatch {
	p := &policyPatch{
		SanitizeMode:               "full",
		PreserveSignatures:         ptr(true),
		AppendOnlyRuntimeContext:   ptr(appendOnly),
		RepairToolUseResultPairing: ptr(true),
		ValidateAnthropicTurns:     ptr(true),
		AllowSyntheticToolResults:  ptr(true),
	}
	if sanitizeIDs {
		p.SanitizeToolCallIDs = ptr(true)
		p.ToolCallIDMode = "strict"
		if nativeIDs {
			p.PreserveNativeAnthropicToolUseIDs = ptr(true)
		}
	}
	if dropThinking {
		p.DropThinkingBlocks = ptr(true)
	}
	return p
}

// nativeAnthropicPluginPolicy is buildNativeAnthropicReplayPolicyForModel.
func nativeAnthropicPluginPolicy(t Target) *policyPatch {
	p := strictAnthropicPolicy(true, false, BindsClaudeThinkingPrefix(t.ModelID), ShouldDropClaudeThinking(t.ModelID))
	p.PreserveNativeAnthropicToolUseIDs = ptr(true)
	return p
}

// minimaxPluginPolicy is the hybrid Anthropic/OpenAI family with
// anthropicModelDropThinkingBlocks.
func minimaxPluginPolicy(t Target) *policyPatch {
	if isAnthropicAPI(t.ModelAPI) {
		return strictAnthropicPolicy(true, false, BindsClaudeThinkingPrefix(t.ModelID), ShouldDropClaudeThinking(t.ModelID))
	}
	return openAICompatiblePolicy(t.ModelAPI, true, true)
}

// passthroughGeminiPluginPolicy is buildPassthroughGeminiSanitizingReplayPolicy.
func passthroughGeminiPluginPolicy(t Target) *policyPatch {
	p := &policyPatch{
		ApplyAssistantFirstOrderingFix: ptr(false),
		ValidateGeminiTurns:            ptr(false),
		ValidateAnthropicTurns:         ptr(false),
	}
	if strings.Contains(strings.ToLower(jsonl.TrimJS(t.ModelID)), "gemini") {
		p.SanitizeThoughtSignatures = &ThoughtSignaturePolicy{AllowBase64Only: true, IncludeCamelCase: true}
	}
	return p
}

// openRouterPluginPolicy: passthrough Gemini, plus strict9 ids for Mistral
// models.
func openRouterPluginPolicy(t Target) *policyPatch {
	p := passthroughGeminiPluginPolicy(t)
	if isOpenRouterMistralModel(t.ModelID) {
		p.SanitizeToolCallIDs = ptr(true)
		p.ToolCallIDMode = "strict9"
	}
	return p
}

// isOpenRouterMistralModel reports an OpenRouter model id of the Mistral
// family (docs/replay.md).
func isOpenRouterMistralModel(id string) bool {
	s := strings.ToLower(jsonl.TrimJS(id))
	s = strings.TrimPrefix(s, "openrouter/")
	s = strings.TrimPrefix(s, "~")
	for _, prefix := range []string{"mistralai/", "mistral/", "mistral-", "codestral-", "devstral-", "ministral-", "mixtral-", "pixtral-", "voxtral-"} {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// copilotPluginPolicy: only the Anthropic transport has a policy.
func copilotPluginPolicy(t Target) *policyPatch {
	if t.ModelAPI != "anthropic-messages" {
		return nil
	}
	return strictAnthropicPolicy(false, false, false, true)
}

// clawRouterPluginPolicy picks a family by api.
func clawRouterPluginPolicy(t Target) *policyPatch {
	switch t.ModelAPI {
	case "anthropic-messages":
		return nativeAnthropicPluginPolicy(t)
	case "google-generative-ai":
		return googleGeminiPolicy()
	}
	return openAICompatiblePolicy(t.ModelAPI, true, false)
}

// unownedFallback is buildUnownedProviderTransportReplayFallback: nil for
// apis outside Google, Anthropic-like, completions and Responses.
func unownedFallback(t Target) *policyPatch {
	api := t.ModelAPI
	google, anthropic := isGoogleAPI(api), isAnthropicAPI(api)
	completions, responses := api == "openai-completions", isResponsesAPI(api)
	if !google && !anthropic && !completions && !responses {
		return nil
	}
	modelID := strings.ToLower(jsonl.TrimJS(t.ModelID))
	p := &policyPatch{SanitizeToolCallIDs: ptr(true), ToolCallIDMode: "strict"}
	if google || anthropic {
		p.SanitizeMode = "full"
	}
	if anthropic {
		p.PreserveSignatures = ptr(true)
		p.AppendOnlyRuntimeContext = ptr(BindsClaudeThinkingPrefix(modelID))
		if ShouldDropClaudeThinking(modelID) {
			p.DropThinkingBlocks = ptr(true)
		}
	}
	if google {
		p.SanitizeThoughtSignatures = &ThoughtSignaturePolicy{AllowBase64Only: true, IncludeCamelCase: true}
	}
	if completions {
		p.DropReasoningFromHistory = ptr(!(t.Reasoning || requiresReasoningContentReplay(modelID)))
	}
	if google || completions {
		p.ApplyAssistantFirstOrderingFix = ptr(true)
		p.ValidateGeminiTurns = ptr(true)
	}
	if anthropic || completions || (responses && claudeFamilyID.MatchString(modelID)) {
		p.ValidateAnthropicTurns = ptr(true)
	}
	if google || anthropic || responses {
		p.AllowSyntheticToolResults = ptr(true)
	}
	return p
}

var claudeFamilyID = regexp.MustCompile(`(?:^|[./:_-])claude(?:$|[./:_-])`)

// reasoningContentReplayModels are the models whose reasoning content must be
// replayed over chat completions (REASONING_CONTENT_REPLAY_MODEL_IDS).
var reasoningContentReplayModels = map[string]bool{
	"kimi-for-coding": true, "kimi-k2.5": true, "kimi-k2.6": true, "kimi-k2.7-code": true,
	"kimi-k2.7-code-highspeed": true, "kimi-k3": true, "kimi-k2-thinking": true,
	"kimi-k2-thinking-turbo": true, "mimo-v2-pro": true, "mimo-v2-omni": true, "mimo-v2.5": true,
	"mimo-v2.5-pro": true, "mimo-v2.6-flash": true, "mimo-v2.6-pro": true, "mimo-v2.6-pro-ultraspeed": true,
}

// requiresReasoningContentReplay checks the id's last "/" segment and, when
// it holds a ":", both ends of it.
func requiresReasoningContentReplay(modelID string) bool {
	id := strings.ToLower(jsonl.TrimJS(modelID))
	if id == "" {
		return false
	}
	parts := nonEmpty(strings.Split(id, "/"))
	final := id
	if len(parts) > 0 {
		final = parts[len(parts)-1]
	}
	candidates := []string{final}
	if colon := nonEmpty(strings.Split(final, ":")); len(colon) > 1 {
		candidates = append(candidates, colon[0], colon[len(colon)-1])
	}
	for _, c := range candidates {
		if reasoningContentReplayModels[c] {
			return true
		}
	}
	return false
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// claudeIDSeparators are the runs normalizeClaudeModelId turns into "-":
// ".", "_" and JavaScript whitespace.
var claudeIDSeparators = regexp.MustCompile(`[._` + jsSpaceClass + `]+`)

// claudeIdentity is resolveClaudeModelIdentity: the lower-cased id without
// "anthropic/", separators as "-", reduced to its trailing "claude-…"
// segment when it has one.
func claudeIdentity(modelID string) string {
	s := strings.ToLower(jsonl.TrimJS(modelID))
	s = strings.TrimPrefix(s, "anthropic/")
	s = claudeIDSeparators.ReplaceAllString(s, "-")
	if m := claudeTail.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return s
}

var (
	claudeTail = regexp.MustCompile(`(?:^|[-/])(claude-[^/]+)$`)
	// The JavaScript patterns end in (?=$|[^a-z0-9]); Go has no lookahead,
	// so they consume the following character instead, which changes
	// nothing for a yes/no match.
	claudeOpus55     = regexp.MustCompile(`^claude-opus-5-5(?:$|[^a-z0-9])`)
	claudeOpus5      = regexp.MustCompile(`(?:^|-)claude-opus-5(?:$|[^a-z0-9])`)
	claudeFable51    = regexp.MustCompile(`^claude-fable-5-1(?:$|[^a-z0-9])`)
	claudeKeepsThink = regexp.MustCompile(`(?:^|-)claude-(?:fable-5|mythos-(?:5|preview)|opus-4-(?:5|6|7|8)|sonnet-(?:5|4-6))(?:$|[^a-z0-9])`)
)

func isClaudeOpus55(identity string) bool {
	return identity == "opus-5-5" || claudeOpus55.MatchString(identity)
}

func isClaudeOpus5(identity string) bool {
	return isClaudeOpus55(identity) || identity == "opus" || identity == "opus-5" || claudeOpus5.MatchString(identity)
}

// BindsClaudeThinkingPrefix reports a model whose thinking is bound to the
// exact prefix (Claude Opus 5.5, Fable 5.1): OpenClaw then keeps runtime
// context append-only and stops merging user turns for anthropic-messages.
func BindsClaudeThinkingPrefix(modelID string) bool {
	id := claudeIdentity(modelID)
	return isClaudeOpus55(id) || claudeFable51.MatchString(id)
}

// ShouldDropClaudeThinking is shouldDropClaudeThinkingBlocks: true for a
// Claude model that does not preserve thinking across turns.
func ShouldDropClaudeThinking(modelID string) bool {
	id := claudeIdentity(modelID)
	isClaude := strings.HasPrefix(id, "claude-") || isClaudeOpus5(id)
	preserves := isClaudeOpus5(id) || claudeKeepsThink.MatchString(id)
	return isClaude && !preserves
}

// DefaultModelAPI is the api a provider implies when only the provider is
// given on the command line, or "" when it has no usual api (the default
// policy then applies, as for any api OpenClaw does not know).
func DefaultModelAPI(provider string) string {
	p := NormalizeProvider(provider)
	if api, ok := impliedAPIs[p]; ok {
		return api
	}
	if openAICompatibleHosts[p] {
		return "openai-completions"
	}
	return ""
}

var impliedAPIs = map[string]string{
	"anthropic":              "anthropic-messages",
	"minimax":                "anthropic-messages",
	"minimax-portal":         "anthropic-messages",
	"google":                 "google-generative-ai",
	"google-antigravity":     "google-generative-ai",
	"google-gemini-cli":      "google-gemini-cli",
	"gemini-cli":             "google-gemini-cli",
	"google-vertex":          "google-vertex",
	"openai":                 "openai-responses",
	"azure-openai":           "openai-responses",
	"azure-openai-responses": "azure-openai-responses",
	"openai-codex":           "openai-chatgpt-responses",
	"amazon-bedrock":         "bedrock-converse-stream",
	"ollama":                 "ollama",
}

// openAICompatibleHosts are providers whose usual transport is OpenAI chat
// completions.
var openAICompatibleHosts = map[string]bool{
	"mistral": true, "openrouter": true, "groq": true, "xai": true, "x-ai": true,
	"deepseek": true, "sglang": true, "vllm": true, "lmstudio": true, "together": true,
	"fireworks": true, "moonshot": true, "cerebras": true, "perplexity": true,
	"ollama-cloud": true, "opencode-go": true, "clawrouter": true, "github-copilot": true,
	"nvidia": true, "huggingface": true, "venice": true, "qwen": true, "zai": true,
}

// KnownProviders lists, sorted, every provider id this replay knows
// something of: a plugin policy, a usual api, an OpenAI-compatible host.
// Any other id replays with OpenClaw's fallback for its api, or the default
// policy; the commands warn about it (most often a typo).
func KnownProviders() []string {
	var ids []string
	for id := range openAICompatibleHosts {
		ids = append(ids, id)
	}
	for id := range providerPlugins {
		ids = append(ids, id)
	}
	for id := range impliedAPIs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// IsKnownProvider reports whether p, normalised as OpenClaw does, is one of
// [KnownProviders].
func IsKnownProvider(p string) bool {
	p = NormalizeProvider(p)
	_, plugin := providerPlugins[p]
	_, api := impliedAPIs[p]
	return plugin || api || openAICompatibleHosts[p]
}
