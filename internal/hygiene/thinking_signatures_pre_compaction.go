package hygiene

import (
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The thinking-signatures/pre-compaction rule of step 5 (docs/replay.md;
// thinking_signatures.go runs it).

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
