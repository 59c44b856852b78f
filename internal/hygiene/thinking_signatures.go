package hygiene

import (
	"math"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Thinking-signature cleanup (replay-rules.md §3.7 a and b, §4 step 5):
// OpenClaw 2026.9.6 stripStaleThinkingSignaturesForCompactionReplay
// (src/agents/thinking-signatures.ts) followed by stripInvalidThinkingSignatures
// (src/agents/embedded-agent-runner/thinking.ts).

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
// before the latest compaction summary (§3.7a), then removes thinking blocks
// without a usable signature from every assistant turn except, when it is
// exempt, the latest one (§3.7b). It applies only when the provider signs
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

// stripPreCompactionSignatures removes thinkingSignature, signature and
// thought_signature (and a redacted_thinking block's data) from the thinking
// blocks of assistant turns whose timestamp parses to a time before the
// latest parsable compactionSummary timestamp. Turns without a parsable
// timestamp are left alone.
func stripPreCompactionSignatures(r *Run, msgs []Message) []Message {
	cutoff, ok := r.compactionCutoff(msgs)
	if !ok {
		return msgs
	}
	var out []Message
	for i := range msgs {
		m := &msgs[i]
		if !isAssistantWithArrayContent(&m.V) {
			continue
		}
		ts, ok := jsTimestampMillis(m.V.Get("timestamp"))
		if !ok || ts >= cutoff {
			continue
		}
		content, stripped := stripSignaturesFromThinking(m.V.Get("content"))
		if stripped == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = withContent(*m, content)
		r.Record("thinking-signatures/pre-compaction", m,
			"removed the signatures of %d thinking block(s) older than the latest compaction", stripped)
	}
	if out == nil {
		return msgs
	}
	return out
}

// latestCompactionTimestamp returns the greatest parsable timestamp of a
// compactionSummary message.
func latestCompactionTimestamp(msgs []Message) (float64, bool) {
	latest, found := 0.0, false
	for i := range msgs {
		if session.Role(&msgs[i].V) != session.RoleCompactionSummary {
			continue
		}
		if ts, ok := jsTimestampMillis(msgs[i].V.Get("timestamp")); ok && (!found || ts > latest) {
			latest, found = ts, true
		}
	}
	return latest, found
}

// signatureKeys are the fields a thinking block may carry its signature in.
var signatureKeys = []string{"thinkingSignature", "signature", "thought_signature"}

// stripSignaturesFromThinking returns content with the signature fields
// removed from every thinking block that has one that is not null, and how
// many blocks it changed. content itself is not modified.
func stripSignaturesFromThinking(content *jsonl.Value) ([]jsonl.Member, int) {
	blocks := slices.Clone(content.Items())
	stripped := 0
	for i := range blocks {
		b := &blocks[i].Value
		if !isThinkingOrRedacted(b) || !hasNonNullSignatureField(b) {
			continue
		}
		c := shallowObject(b)
		for _, k := range signatureKeys {
			c.Delete(k)
		}
		if session.BlockType(b) == "redacted_thinking" {
			c.Delete("data")
		}
		*b = c
		stripped++
	}
	return blocks, stripped
}

// hasNonNullSignatureField reports a signature field (or a redacted block's
// data) that is present and not null, whatever its type.
func hasNonNullSignatureField(b *jsonl.Value) bool {
	for _, k := range signatureKeys {
		if v := b.Get(k); v != nil && !v.IsNull() {
			return true
		}
	}
	v := b.Get("data")
	return session.BlockType(b) == "redacted_thinking" && v != nil && !v.IsNull()
}

// stripUnsignedThinking removes thinking blocks without a replayable
// signature (a non-blank string in signature, thinkingSignature or
// thought_signature, or for redacted_thinking also data) from every assistant
// turn with array content. With preserveLatest the latest such turn is left
// as it is: providers reject a modified latest thinking turn. A turn left
// without blocks gets the omitted-reasoning placeholder.
func stripUnsignedThinking(r *Run, msgs []Message, preserveLatest bool) []Message {
	exempt := -1
	if preserveLatest {
		exempt = latestAssistantWithArrayContent(r, msgs)
	}
	var out []Message
	for i := range msgs {
		m := &msgs[i]
		if i == exempt || !isAssistantWithArrayContent(&m.V) {
			continue
		}
		kept, removed := filterBlocks(m.V.Get("content"), func(b *jsonl.Value) bool {
			return !isThinkingOrRedacted(b) || hasReplayableSignature(b)
		})
		if removed == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = withContent(*m, orOmittedReasoning(kept))
		r.Record("thinking-signatures/invalid", m,
			"removed %d thinking block(s) without a usable signature", removed)
	}
	if out == nil {
		return msgs
	}
	return out
}

// hasReplayableSignature reports whether a thinking block has a non-blank
// string signature.
func hasReplayableSignature(b *jsonl.Value) bool {
	for _, k := range signatureKeys {
		if s, ok := b.GetStr(k); ok && !jsonl.IsBlankJS(s) {
			return true
		}
	}
	if session.BlockType(b) != "redacted_thinking" {
		return false
	}
	s, ok := b.GetStr("data")
	return ok && !jsonl.IsBlankJS(s)
}

// Helpers shared by the thinking, reasoning and turn rules.

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
