package hygiene

import (
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The thinking-signatures/invalid rule of step 5 (docs/replay.md;
// thinking_signatures.go runs it).

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
