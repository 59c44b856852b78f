package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is step 4 of the replay (docs/replay.md, "Steps and rule
// names"): OpenClaw's image pass over the session history (tool-call ids
// untouched). Per message, in OpenClaw's order:
//   - toolResult: images sanitised, blank text removed, an empty result
//     gets "[empty content omitted]" (non-array content counts as empty);
//   - user with array content: the same;
//   - assistant with array content: thought signatures stripped (skipped for
//     error turns and when signatures are preserved), blank text removed; a
//     turn left empty is removed unless it carries provider replay state.

const (
	ruleBlankText  = "content/blank-text"
	ruleEmptyTurn  = "content/empty-turn"
	emptyContentPH = "[empty content omitted]"
)

// imagePass runs the image and blank-text pass over msgs.
func imagePass(r *Run, msgs []Message) []Message {
	checkpoints := checkpointContents(msgs)
	msgs = stripThoughtSignatures(r, msgs)
	r.phase = 1
	if len(checkpoints) > 0 && !sameRoles(msgs, checkpoints) {
		checkpoints = nil
	}
	// All user and toolResult images at once (in parallel); the
	// per-message pass below then only handles text.
	sanitizeSessionImages(r, msgs)
	r.phase = 2
	out := editedList{src: msgs} // a copy of msgs (not msgs[:0]: msgs may be the caller's list) once it differs
	for i := range msgs {
		m := msgs[i]
		switch session.Role(&m.V) {
		case session.RoleToolResult:
			sanitizeResultContent(r, &m)
		case session.RoleUser:
			if m.V.Get("content").IsArray() {
				sanitizeResultContent(r, &m)
			}
		case session.RoleAssistant:
			if m.V.Get("content").IsArray() && !dropAssistantBlankText(r, &m, checkpoints[i]) {
				continue
			}
		}
		out.add(m)
	}
	return out.list()
}

// sanitizeResultContent drops blank text from a toolResult or user content
// (whose images sanitizeSessionImages has already sanitised) and fills an
// emptied content with the placeholder. A toolResult whose content is not
// an array is treated as empty.
func sanitizeResultContent(r *Run, m *Message) {
	content := m.V.Get("content")
	if !content.IsArray() {
		r.Record(ruleBlankText, m, "non-array tool result content replaced")
		m.V = withMember(&m.V, "content", jsonl.ArrayValue())
		content = m.V.Get("content")
	}
	if content.Len() > 0 && !hasBlankTextBlock(content) {
		return // nothing to remove: the content stays as it is
	}
	kept := make([]jsonl.Member, 0, content.Len())
	for _, it := range content.Items() {
		if !isBlankTextBlock(&it.Value) {
			kept = append(kept, it)
		}
	}
	if removed := content.Len() - len(kept); removed > 0 {
		r.Record(ruleBlankText, m, "%d blank text block(s) removed", removed)
	}
	if len(kept) == 0 {
		kept = append(kept, jsonl.Member{Value: textBlock(emptyContentPH)})
		r.Record(ruleEmptyTurn, m, "empty %s content replaced by %q", session.Role(&m.V), emptyContentPH)
	}
	m.V = withMember(&m.V, "content", arrayOf(kept))
}

// dropAssistantBlankText removes blank text blocks from an assistant and
// reports whether it survives. before is the assistant's content before
// thought-signature stripping when it carries a compaction checkpoint (so
// the checkpoint can be re-indexed), else nil.
func dropAssistantBlankText(r *Run, m *Message, before *jsonl.Value) bool {
	content := m.V.Get("content")
	items := content.Items()
	if before == nil && len(items) > 0 && !hasBlankTextBlock(content) {
		return true // nothing to remove
	}
	kept := make([]jsonl.Value, 0, len(items))
	src := make([]int, 0, len(items))
	for i := range items {
		b := &items[i].Value
		if isBlankTextBlock(b) {
			continue
		}
		kept = append(kept, *b)
		src = append(src, sourceIndex(before, i, b))
	}
	if len(kept) == 0 && !m.V.Get("providerReplay").Truthy() {
		r.Record(ruleEmptyTurn, m, "assistant turn without content removed")
		return false
	}
	if removed := len(items) - len(kept); removed > 0 {
		r.Record(ruleBlankText, m, "%d blank text block(s) removed", removed)
	}
	if before != nil {
		// Restore the pre-stripping content so setAssistantContent sees what
		// OpenClaw's checkpoint re-indexing compares against.
		v := withMember(&m.V, "content", *before)
		setAssistantContent(&v, kept, src, before.Len())
		m.V = v
		return true
	}
	if len(kept) < len(items) {
		m.V = withMember(&m.V, "content", arrayOf(toMembers(kept)))
	}
	return true
}

// hasBlankTextBlock reports whether an array content holds a block
// isBlankTextBlock removes.
func hasBlankTextBlock(content *jsonl.Value) bool {
	items := content.Items()
	for i := range items {
		if isBlankTextBlock(&items[i].Value) {
			return true
		}
	}
	return false
}

// sourceIndex is i when the block is unchanged from before[i] (or when
// there is no checkpoint to keep consistent), -1 when signature stripping
// changed it.
func sourceIndex(before *jsonl.Value, i int, b *jsonl.Value) int {
	if before == nil || i >= before.Len() || jsonl.Equal(before.Index(i), b) {
		return i
	}
	return -1
}

// checkpointContents clones the content of assistants carrying a compaction
// checkpoint, indexed like msgs.
func checkpointContents(msgs []Message) map[int]*jsonl.Value {
	var out map[int]*jsonl.Value
	for i := range msgs {
		v := &msgs[i].V
		content := v.Get("content")
		if session.Role(v) != session.RoleAssistant || !content.IsArray() || !isCompactionCheckpoint(v.Path("providerReplay", "type").StrOr("")) {
			continue
		}
		if out == nil {
			out = map[int]*jsonl.Value{}
		}
		c := content.Clone()
		out[i] = &c
	}
	return out
}

// sameRoles guards the checkpoint bookkeeping against a signature pass that
// changed the message list itself.
func sameRoles(msgs []Message, checkpoints map[int]*jsonl.Value) bool {
	for i := range checkpoints {
		if i >= len(msgs) || session.Role(&msgs[i].V) != session.RoleAssistant {
			return false
		}
	}
	return true
}

func toMembers(vals []jsonl.Value) []jsonl.Member {
	out := make([]jsonl.Member, len(vals))
	for i := range vals {
		out[i].Value = vals[i]
	}
	return out
}
