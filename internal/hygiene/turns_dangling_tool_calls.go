package hygiene

import (
	"fmt"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The turns/dangling-tool-calls rule of step 17 (turns.go runs it).

// Placeholder for an assistant turn whose every block was a dangling tool
// call.
const toolCallsOmittedText = "[tool calls omitted]"

// stripDanglingToolCalls removes, from each assistant turn with tool calls,
// the calls that no tool result answers before the next assistant message
// (Anthropic rejects tool_use ids without tool_result blocks):
//
//   - a turn with thinking blocks is kept whole only when every tool-call
//     block has a non-blank id and name and a result whose tool name, when
//     known, matches; otherwise its content becomes the tool-calls-omitted
//     placeholder (the provider rejects a modified signed turn);
//   - other turns lose the unanswered calls (and any null-like block); a turn
//     left empty gets the placeholder.
//
// A turn that stopped with "aborted" or "error" gets empty content instead of
// the placeholder.
func stripDanglingToolCalls(r *Run, msgs []Message) []Message {
	var out []Message
	answered := map[string]bool{} // reused by every turn
	for i := range msgs {
		m := &msgs[i]
		content, changed, detail := danglingToolCallContent(msgs, i, answered)
		if len(answered) > 64 { // clearing a map costs its size: start afresh
			answered = map[string]bool{}
		}
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = withContent(*m, content)
		r.Record("turns/dangling-tool-calls", m, "%s", detail)
	}
	if out == nil {
		return msgs
	}
	return out
}

// danglingToolCallContent returns the content msgs[i] must have once its
// unanswered tool calls are gone, whether that differs, and a description.
// answered is room for the ids of the results that follow (cleared here).
func danglingToolCallContent(msgs []Message, i int, answered map[string]bool) ([]jsonl.Member, bool, string) {
	m := &msgs[i].V
	content := m.Get("content")
	if session.Role(m) != session.RoleAssistant || !content.IsArray() || content.Len() == 0 ||
		!session.HasToolCalls(m) {
		return nil, false, ""
	}
	blocks := content.Items()
	if slices.ContainsFunc(blocks, func(b jsonl.Member) bool { return isThinkingOrRedacted(&b.Value) }) {
		if signedTurnCallsAnswered(blocks, futureToolResultMatches(msgs, i)) {
			return nil, false, ""
		}
		return danglingPlaceholder(m), true, "thinking turn with an unanswered or mismatched tool call: content replaced"
	}
	futureToolResultIDs(msgs, i, answered)
	kept, removed := filterBlocks(content, func(b *jsonl.Value) bool {
		if !b.Truthy() {
			return false
		}
		if !isTurnsToolCallBlock(b) {
			return true
		}
		id := trimmedString(b.Get("id"))
		return id != "" && answered[id]
	})
	switch {
	case removed == 0:
		return nil, false, ""
	case len(kept) == 0:
		return danglingPlaceholder(m), true, "every tool call unanswered: content replaced"
	}
	return kept, true, fmt.Sprintf("removed %d unanswered tool call(s)", removed)
}

// danglingPlaceholder is the content of a turn whose tool calls all went:
// empty for a failed turn, the tool-calls-omitted text otherwise.
func danglingPlaceholder(m *jsonl.Value) []jsonl.Member {
	switch m.Get("stopReason").StrOr("") {
	case "aborted", "error":
		return []jsonl.Member{}
	}
	return []jsonl.Member{{Value: textBlock(toolCallsOmittedText)}}
}

// signedTurnCallsAnswered reports whether every tool-call block of a
// thinking turn has a non-blank id and name and a matching result.
func signedTurnCallsAnswered(blocks []jsonl.Member, results map[string]map[string]bool) bool {
	for i := range blocks {
		b := &blocks[i].Value
		if !b.Truthy() || !isTurnsToolCallBlock(b) {
			continue
		}
		id, name := trimmedString(b.Get("id")), trimmedString(b.Get("name"))
		if id == "" || name == "" {
			return false
		}
		names, ok := results[id]
		if !ok || (len(names) > 0 && !names[name]) {
			return false
		}
	}
	return true
}

// isTurnsToolCallBlock reports an object block of type toolUse, toolCall or
// functionCall, whatever its id.
func isTurnsToolCallBlock(b *jsonl.Value) bool {
	return session.IsToolCallType(session.BlockType(b))
}

// futureToolResultMatches maps each result id answered by the toolResult and
// tool messages after msgs[i], up to the next assistant message, to the tool
// names those results give (trimmed toolName, else name; none when neither
// is set). Results inside message content are not trusted here.
func futureToolResultMatches(msgs []Message, i int) map[string]map[string]bool {
	matches := map[string]map[string]bool{}
	for j := i + 1; j < len(msgs); j++ {
		v := &msgs[j].V
		role := session.Role(v)
		if role == session.RoleAssistant {
			break
		}
		if role != session.RoleToolResult && role != "tool" {
			continue
		}
		name := trimmedString(v.Get("toolName"))
		if name == "" {
			name = trimmedString(v.Get("name"))
		}
		for _, id := range resultMatchIDs(v) {
			if matches[id] == nil {
				matches[id] = map[string]bool{}
			}
			if name != "" {
				matches[id][name] = true
			}
		}
	}
	return matches
}

// futureToolResultIDs collects into ids (cleared first) the result ids
// after msgs[i], up to the next assistant message: a toolResult message's
// first id, every id of a tool message, and every id of toolResult/tool
// blocks in any message's content.
func futureToolResultIDs(msgs []Message, i int, ids map[string]bool) {
	clear(ids)
	for j := i + 1; j < len(msgs); j++ {
		v := &msgs[j].V
		switch session.Role(v) {
		case session.RoleAssistant:
			return
		case session.RoleToolResult:
			if id := session.ToolResultID(v); id != "" {
				ids[id] = true
			}
		case "tool":
			addAll(ids, resultMatchIDs(v))
		}
		for _, b := range arrayItemsOnly(v.Get("content")) {
			if t := session.BlockType(&b.Value); t == "toolResult" || t == "tool" {
				addAll(ids, resultMatchIDs(&b.Value))
			}
		}
	}
}

// resultMatchIDKeys are the id fields OpenClaw's turn validation reads from
// a result, in its order.
var resultMatchIDKeys = []string{"toolUseId", "toolCallId", "tool_use_id", "tool_call_id", "callId", "call_id"}

// resultMatchIDs returns the distinct non-blank trimmed ids of a result.
func resultMatchIDs(v *jsonl.Value) []string {
	var ids []string
	for _, k := range resultMatchIDKeys {
		if id := trimmedString(v.Get(k)); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// trimmedString returns a string value trimmed as JavaScript trims, or ""
// for non-strings.
func trimmedString(v *jsonl.Value) string {
	s, _ := v.Str()
	return jsonl.TrimJS(s)
}

func addAll(set map[string]bool, keys []string) {
	for _, k := range keys {
		set[k] = true
	}
}
