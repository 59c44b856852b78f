package hygiene

import "slices"

// Thinking-block dropping (replay-rules.md §3.7c, §4 step 7): OpenClaw
// 2026.9.6 dropThinkingBlocks (src/agents/embedded-agent-runner/thinking.ts),
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
	latest := latestAssistantWithArrayContent(msgs)
	var out []Message
	for i := range msgs {
		m := &msgs[i]
		if i == latest || !isAssistantWithArrayContent(&m.V) {
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
		r.Record("thinking/drop", m, "removed %d thinking block(s) from an earlier turn", removed)
	}
	if out == nil {
		return msgs
	}
	return out
}
