package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The user/blank-content rule of step 3 (docs/replay.md, user part).

// ruleUserBlank is the rule id recorded by this file.
const ruleUserBlank = "user/blank-content"

// sanitizeUserReplayContent removes blank text from a user message and
// reports whether the message survives.
func sanitizeUserReplayContent(r *Run, m *Message) bool {
	content := m.V.Get("content")
	if s, ok := content.Str(); ok {
		if jsonl.IsBlankJS(s) && !hasPersistedMedia(&m.V) {
			r.Record(ruleUserBlank, m, "blank user message removed")
			return false
		}
		return true
	}
	if !content.IsArray() {
		return true
	}
	if content.Len() > 0 && !hasBlankTextBlock(content) {
		return true // nothing to remove
	}
	kept := make([]jsonl.Member, 0, content.Len())
	for _, it := range content.Items() {
		if isBlankTextBlock(&it.Value) {
			continue
		}
		kept = append(kept, it)
	}
	switch {
	case len(kept) == 0 && hasPersistedMedia(&m.V):
		m.V.Set("content", jsonl.StringValue(""))
		r.Record(ruleUserBlank, m, "blank text removed; content emptied (message has persisted media)")
	case len(kept) == 0:
		r.Record(ruleUserBlank, m, "user message without text removed")
		return false
	case len(kept) < content.Len():
		r.Record(ruleUserBlank, m, "%d blank text block(s) removed", content.Len()-len(kept))
		content.SetItems(kept)
	}
	return true
}

// isBlankTextBlock reports a {type:"text"} block whose text is a blank
// string (a text block without a string text is not blank).
func isBlankTextBlock(b *jsonl.Value) bool {
	if session.BlockType(b) != "text" {
		return false
	}
	s, ok := b.GetStr("text")
	return ok && jsonl.IsBlankJS(s)
}

// hasPersistedMedia reports a message whose __openclaw.media list holds a
// meaningful media fact (a path, url, content type or known kind).
func hasPersistedMedia(msg *jsonl.Value) bool {
	media := msg.Path("__openclaw", "media")
	if !media.IsArray() {
		return false
	}
	for _, it := range media.Items() {
		f := &it.Value
		if !f.IsObject() {
			continue
		}
		for _, k := range []string{"path", "url", "contentType"} {
			if s, ok := f.GetStr(k); ok && !jsonl.IsBlankJS(s) {
				return true
			}
		}
		if kind := f.Get("kind"); kind.Truthy() && kind.StrOr("") != "unknown" {
			return true
		}
	}
	return false
}
