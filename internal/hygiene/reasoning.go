package hygiene

import (
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Reasoning stripping for chat-completions replays (docs/replay.md,
// step 6): OpenClaw 2026.9.6 dropReasoningFromHistory, and the "latest assistant"
// and "current tool turn" definitions it shares with the thinking-signatures rules.

// dropReasoningFromHistory removes thinking and redacted_thinking blocks from
// every assistant turn with array content, except the current same-turn tool
// continuation (see isCurrentToolTurn), whose reasoning the provider still
// needs. A turn left without blocks gets the omitted-reasoning placeholder.
// It applies only with the dropReasoningFromHistory policy; msgs itself is
// never modified.
func dropReasoningFromHistory(r *Run, msgs []Message) []Message {
	if !r.Policy.DropReasoningFromHistory {
		return msgs
	}
	latestUser := latestUserIndex(r, msgs)
	return stripThinking(r, msgs, func(i int) bool { return isCurrentToolTurn(msgs, i, latestUser) }, "reasoning/drop", "removed %d reasoning block(s) from history")
}

// isNotThinking is the filterBlocks predicate keeping every block but
// thinking and redacted_thinking ones.
func isNotThinking(b *jsonl.Value) bool { return !isThinkingOrRedacted(b) }

// latestUserIndex returns the index of the last message with role "user", or
// -1. In a segment before the last one of a segmented replay, the latest
// user message lies after the segment: it returns len(msgs).
func latestUserIndex(r *Run, msgs []Message) int {
	if r.seg.beforeLast() {
		return len(msgs)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if session.Role(&msgs[i].V) == session.RoleUser {
			return i
		}
	}
	r.seg.latestMissing("user message")
	return -1
}

// latestAssistantWithArrayContent returns the index of the last assistant
// message whose content is an array, or -1.
// In a segment before the last one of a segmented replay it is -1: the
// latest lies after the segment.
func latestAssistantWithArrayContent(r *Run, msgs []Message) int {
	if r.seg.beforeLast() {
		return -1
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if isAssistantWithArrayContent(&msgs[i].V) {
			return i
		}
	}
	r.seg.latestMissing("assistant turn")
	return -1
}

// isCurrentToolTurn reports whether msgs[i] is the current same-turn tool
// continuation: an assistant turn with array content and a tool call, at or
// after the latest user message (latestUser, -1 when there is none), with no
// other assistant message between that user message and it, and followed by
// a toolResult message before any later user message.
func isCurrentToolTurn(msgs []Message, i, latestUser int) bool {
	if i < latestUser || !isAssistantWithArrayContent(&msgs[i].V) || !hasContinuationToolCall(&msgs[i].V) {
		return false
	}
	return firstAssistantSinceUser(msgs, i) && toolResultBeforeNextUser(msgs, i)
}

// firstAssistantSinceUser reports that no assistant message lies between
// msgs[i] and the closest user message before it (or the start).
func firstAssistantSinceUser(msgs []Message, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch session.Role(&msgs[j].V) {
		case session.RoleUser:
			return true
		case session.RoleAssistant:
			return false
		}
	}
	return true
}

// toolResultBeforeNextUser reports a toolResult message after msgs[i] that
// comes before any user message. Assistant messages in between do not stop
// the search (OpenClaw's scan does not stop at them either).
func toolResultBeforeNextUser(msgs []Message, i int) bool {
	for j := i + 1; j < len(msgs); j++ {
		switch session.Role(&msgs[j].V) {
		case session.RoleToolResult:
			return true
		case session.RoleUser:
			return false
		}
	}
	return false
}

// continuationToolCallTypes are the block types OpenClaw's thinking cleanup counts
// as tool calls when it looks for the current tool turn. The set differs from
// session.ToolCallBlockTypes (toolUse and functionCall are absent, the
// snake_case forms present); OpenClaw's behaviour depends on it, so it is
// kept as it is.
var continuationToolCallTypes = []string{"toolCall", "tool_use", "function_call"}

// hasContinuationToolCall reports a content block of a
// continuationToolCallTypes type.
func hasContinuationToolCall(msg *jsonl.Value) bool {
	for _, b := range msg.Get("content").Items() {
		if slices.Contains(continuationToolCallTypes, session.BlockType(&b.Value)) {
			return true
		}
	}
	return false
}

// preserveLatestAssistantThinking reports whether the latest assistant turn
// with array content is exempt from thinking cleanup: it is the last
// message, or it is the current tool turn.
func preserveLatestAssistantThinking(r *Run, msgs []Message) bool {
	latest := latestAssistantWithArrayContent(r, msgs)
	switch {
	case latest < 0:
		return false
	case latest == len(msgs)-1:
		return true
	}
	return isCurrentToolTurn(msgs, latest, latestUserIndex(r, msgs))
}
