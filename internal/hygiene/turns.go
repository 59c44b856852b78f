package hygiene

import (
	"fmt"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Turn validation (replay-rules.md §3.5, §4 step 17): OpenClaw 2026.9.6
// validateGeminiTurns and validateAnthropicTurns
// (src/agents/embedded-agent-helpers/turns.ts), run by validateReplayTurns.

// Placeholder for an assistant turn whose every block was a dangling tool
// call.
const toolCallsOmittedText = "[tool calls omitted]"

// validateGeminiTurns merges each assistant message into the assistant
// message kept before it (Gemini requires alternating turns). It applies
// only with the validateGeminiTurns policy; msgs itself is never modified.
func validateGeminiTurns(r *Run, msgs []Message) []Message {
	if !r.Policy.ValidateGeminiTurns {
		return msgs
	}
	return mergeConsecutive(r, msgs, session.RoleAssistant, mergeAssistantTurns)
}

// validateAnthropicTurns merges consecutive assistant messages, strips tool
// calls that no tool result answers before the next assistant turn, and then
// merges consecutive user messages — except, in 2026.9.6, on the direct
// anthropic-messages api under appendOnlyRuntimeContext (Bedrock Converse
// still needs strict alternation). It applies only with the
// validateAnthropicTurns policy; msgs itself is never modified.
func validateAnthropicTurns(r *Run, msgs []Message) []Message {
	if !r.Policy.ValidateAnthropicTurns {
		return msgs
	}
	r.phase = 1
	msgs = mergeConsecutive(r, msgs, session.RoleAssistant, mergeAssistantTurns)
	r.phase = 2
	msgs = stripDanglingToolCalls(r, msgs)
	if r.Policy.AppendOnlyRuntimeContext && r.Target.ModelAPI == "anthropic-messages" {
		return msgs
	}
	r.phase = 3
	return mergeConsecutive(r, msgs, session.RoleUser, mergeUserTurns)
}

// mergeConsecutive folds every message of role into the previous kept
// message when that one has the same role. A message without a truthy role
// passes through without ending the run; any other role ends it.
//
// A merge gets owned = true when prev is itself the result of a merge in
// this pass, so its content array belongs to the pass and can grow in place:
// a run of k messages then costs O(k), not O(k²).
func mergeConsecutive(r *Run, msgs []Message, role string, merge func(r *Run, prev, cur Message, owned bool) Message) []Message {
	var out []Message
	lastRole := "" // "" also stands for a truthy role that is not a string
	owned := false
	for i, m := range msgs {
		roleValue := m.V.Get("role")
		if !roleValue.Truthy() {
			if out != nil {
				out = append(out, m)
			}
			owned = false
			continue
		}
		cur, _ := roleValue.Str()
		if cur == role && lastRole == role {
			if out == nil {
				out = append(make([]Message, 0, len(msgs)), msgs[:i]...)
			}
			// The previous kept message may be one without a role: OpenClaw
			// merges into whatever it pushed last.
			out[len(out)-1] = merge(r, out[len(out)-1], m, owned)
			owned = true
			continue
		}
		if out != nil {
			out = append(out, m)
		}
		lastRole, owned = cur, false
	}
	if out == nil {
		return msgs
	}
	return out
}

// mergeAssistantTurns appends cur's content to prev's (non-array content
// counts as empty) and takes cur's usage, stopReason and errorMessage when
// they are truthy; every other field is prev's, and the merged message keeps
// prev's line.
func mergeAssistantTurns(r *Run, prev, cur Message, owned bool) Message {
	v := shallowObject(&prev.V)
	v.Set("content", arrayOf(concatContent(prev.V.Get("content"), cur.V.Get("content"), arrayItemsOnly, owned)))
	for _, k := range []string{"usage", "stopReason", "errorMessage"} {
		if f := cur.V.Get(k); f.Truthy() {
			v.Set(k, *f)
		}
	}
	r.Record("turns/merge-assistant", &cur, "merged into the assistant turn before it (line %d)", prev.Line)
	prev.V = v
	return prev
}

// mergeUserTurns appends cur's content to prev's (a string becomes one text
// block, other non-arrays count as empty). The result is cur's fields with
// the merged content and timestamp = cur's ?? prev's; it keeps cur's line,
// since its fields are cur's.
func mergeUserTurns(r *Run, prev, cur Message, owned bool) Message {
	v := shallowObject(&cur.V)
	v.Set("content", arrayOf(concatContent(prev.V.Get("content"), cur.V.Get("content"), userContentItems, owned)))
	ts := cur.V.Get("timestamp")
	if ts.IsNull() {
		ts = prev.V.Get("timestamp")
	}
	if ts == nil {
		// {timestamp: undefined} is dropped by JSON.stringify.
		v.Delete("timestamp")
	} else {
		v.Set("timestamp", *ts)
	}
	r.Record("turns/merge-user", &prev, "merged into the user turn after it (line %d)", cur.Line)
	cur.V = v
	return cur
}

// concatContent returns items(a) followed by items(b): in a new slice, or,
// when a's elements are owned by the caller, appended to them.
func concatContent(a, b *jsonl.Value, items func(*jsonl.Value) []jsonl.Member, owned bool) []jsonl.Member {
	if owned {
		return append(items(a), items(b)...)
	}
	return append(slices.Clone(items(a)), items(b)...)
}

// arrayItemsOnly returns the elements of an array, nothing for other values.
func arrayItemsOnly(v *jsonl.Value) []jsonl.Member {
	if !v.IsArray() {
		return nil
	}
	return v.Items()
}

// userContentItems returns the blocks of user content for merging: an array
// as it is, a string as one text block, nothing otherwise.
func userContentItems(v *jsonl.Value) []jsonl.Member {
	if s, ok := v.Str(); ok {
		return []jsonl.Member{{Value: textBlock(s)}}
	}
	return arrayItemsOnly(v)
}

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
		len(session.ToolCalls(m)) == 0 {
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
