package hygiene

import (
	"math"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Thinking-signature cleanup (docs/replay.md, step 5):
// OpenClaw 2026.9.6 stripStaleThinkingSignaturesForCompactionReplay
// followed by stripInvalidThinkingSignatures. This file runs the step
// and holds what its rules and the other thinking rules share; each rule is
// in its own file: thinking-signatures/pre-compaction
// (thinking_signatures_pre_compaction.go) and thinking-signatures/invalid
// (thinking_signatures_invalid.go).

// omittedReasoningText replaces the content of an assistant turn that lost
// every block to thinking removal, so the turn keeps a non-empty body.
const omittedReasoningText = "[assistant reasoning omitted]"

// signedThinkingProviders are the providers whose thinking blocks carry
// provider-verified signatures (OpenClaw's SIGNED_THINKING_PROVIDERS).
var signedThinkingProviders = []string{"anthropic", "amazon-bedrock", "anthropic-vertex"}

// providerRequiresSignedThinking reports whether the trimmed, lower-cased
// provider is one of signedThinkingProviders.
func providerRequiresSignedThinking(provider string) bool {
	return slices.Contains(signedThinkingProviders, session.TrimLower(provider))
}

// cleanupThinkingSignatures strips the signatures of thinking blocks made
// before the latest compaction summary, then removes thinking blocks
// without a usable signature from every assistant turn except, when it is
// exempt, the latest one. It applies only when the provider signs
// thinking or the policy preserves signatures; otherwise msgs is returned
// unchanged. Changed messages are copies: msgs itself is never modified.
func cleanupThinkingSignatures(r *Run, msgs []Message) []Message {
	if !providerRequiresSignedThinking(r.Target.Provider) && !r.Policy.PreserveSignatures {
		return msgs
	}
	// OpenClaw decides the exemption on the list as it was before either
	// step; neither step changes roles or whether content is an array, so
	// deciding it first is the same.
	preserveLatest := preserveLatestAssistantThinking(r, msgs)
	msgs = stripPreCompactionSignatures(r, msgs)
	r.phase = 1
	return stripUnsignedThinking(r, msgs, preserveLatest)
}

// signatureKeys are the fields a thinking block may carry its signature in.
var signatureKeys = []string{"thinkingSignature", "signature", "thought_signature"}

// isAssistantWithArrayContent reports an assistant message whose content is
// an array (OpenClaw's isAssistantMessageWithContent).
func isAssistantWithArrayContent(v *jsonl.Value) bool {
	return session.Role(v) == session.RoleAssistant && v.Get("content").IsArray()
}

// isThinkingOrRedacted reports an object block of type thinking or
// redacted_thinking.
func isThinkingOrRedacted(b *jsonl.Value) bool {
	return session.IsThinkingType(session.BlockType(b))
}

// filterBlocks returns the elements of the array content that keep accepts
// (a fresh slice) and how many it rejected. When keep accepts them all it
// allocates nothing and returns nil: the content is to stay as it is.
func filterBlocks(content *jsonl.Value, keep func(*jsonl.Value) bool) ([]jsonl.Member, int) {
	items := content.Items()
	first := 0 // the first rejected element
	for first < len(items) && keep(&items[first].Value) {
		first++
	}
	if first == len(items) {
		return nil, 0
	}
	kept := make([]jsonl.Member, first, len(items)-1)
	copy(kept, items[:first])
	for i := first + 1; i < len(items); i++ {
		if keep(&items[i].Value) {
			kept = append(kept, items[i])
		}
	}
	return kept, len(items) - len(kept)
}

// orOmittedReasoning returns blocks, or the omitted-reasoning placeholder
// block when blocks is empty.
func orOmittedReasoning(blocks []jsonl.Member) []jsonl.Member {
	if len(blocks) > 0 {
		return blocks
	}
	return []jsonl.Member{{Value: textBlock(omittedReasoningText)}}
}

// The helpers shallowObject, arrayOf and withContent live in
// tool_call_ids.go, textBlock in provider_hooks.go.

// Timestamps.

// jsTimestampMillis reads a message timestamp as OpenClaw's
// parseDateFirstTimestampMs does: a finite number is taken as epoch
// milliseconds, a string is parsed as Date.parse would (session.ParseDateMillis);
// anything else has no timestamp.
func jsTimestampMillis(v *jsonl.Value) (float64, bool) {
	if f, ok := v.Float(); ok {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false
		}
		return f, true
	}
	s, ok := v.Str()
	if !ok {
		return 0, false
	}
	ms, ok := session.ParseDateMillis(s)
	return float64(ms), ok
}
