package hygiene

import "slices"

// Thinking-block dropping (docs/replay.md step 7): OpenClaw
// 2026.9.6 dropThinkingBlocks,
// used for Claude models that do not keep earlier thinking.

// dropThinkingBlocks removes thinking and redacted_thinking blocks from every
// assistant turn with array content except the latest such turn, which
// providers need verbatim to continue. A turn left without blocks gets the
// omitted-reasoning placeholder. It applies only with the dropThinkingBlocks
// policy; msgs itself is never modified.
func dropThinkingBlocks(r *Run, msgs []Message) []Message {
	if !r.Policy.DropThinkingBlocks {
		return msgs
	}
	latest := latestAssistantWithArrayContent(r, msgs)
	return stripThinking(r, msgs, func(i int) bool { return i == latest }, "thinking/drop", "removed %d thinking block(s) from an earlier turn")
}

// stripThinking removes thinking and redacted_thinking blocks from every
// assistant with array content that keep does not exempt; an emptied turn
// gets the "[assistant reasoning omitted]" text. The list is copied only
// when a message changes. rule and detail (with one %d for the count) name
// the change.
func stripThinking(r *Run, msgs []Message, keep func(i int) bool, rule, detail string) []Message {
	var out []Message
	for i := range msgs {
		m := &msgs[i]
		if !isAssistantWithArrayContent(&m.V) || keep(i) {
			continue
		}
		kept, removed := filterBlocks(m.V.Get("content"), isNotThinking)
		if removed == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = withContent(*m, orOmittedReasoning(kept))
		r.Record(rule, m, detail, removed)
	}
	if out == nil {
		return msgs
	}
	return out
}
