package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// ruleLengthReasoning is the rule id recorded by this file (step 3).
const ruleLengthReasoning = "assistant/length-reasoning-only"

// hasOnlyReasoningContent reports an assistant whose content is thinking
// blocks plus blank text only, with at least one thinking block.
func hasOnlyReasoningContent(msg *jsonl.Value) bool {
	content := msg.Get("content")
	var blocks []jsonl.Member
	switch {
	case content.IsArray():
		blocks = content.Items()
	case content.IsObject():
		blocks = []jsonl.Member{{Value: *content}}
	}
	thinking := false
	for i := range blocks {
		b := &blocks[i].Value
		if !b.IsObject() || !b.Has("type") {
			return false
		}
		t := b.Get("type").StrOr("")
		if session.IsThinkingType(t) {
			thinking = true
			continue
		}
		if s, ok := b.GetStr("text"); t == "text" && ok && jsonl.IsBlankJS(s) {
			continue
		}
		return false
	}
	return thinking
}

// isReasoningOnlyLengthTurn reports a turn cut off by the token limit that
// holds only reasoning.
func isReasoningOnlyLengthTurn(msg *jsonl.Value) bool {
	return msg.Get("stopReason").StrOr("") == "length" && hasOnlyReasoningContent(msg)
}
