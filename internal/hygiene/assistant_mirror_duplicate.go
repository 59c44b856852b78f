package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// ruleMirrorDuplicate is the rule id recorded by this file (step 3).
const ruleMirrorDuplicate = "assistant/mirror-duplicate"

// isBareMirrorDuplicate reports a zero-usage stop turn repeating the
// previous output message (an assistant) exactly, neither having tool calls.
func isBareMirrorDuplicate(out []Message, next *jsonl.Value) bool {
	if len(out) == 0 {
		return false
	}
	prev := &out[len(out)-1].V
	if session.Role(prev) != session.RoleAssistant {
		return false
	}
	usage := next.Get("usage")
	if !usage.IsObject() && !usage.IsArray() {
		return false
	}
	if normalizeUsage(usage).nonzero() || next.Get("stopReason").StrOr("") != "stop" {
		return false
	}
	if session.HasToolCalls(prev) || session.HasToolCalls(next) {
		return false
	}
	pc, nc := prev.Get("content"), next.Get("content")
	return pc.IsArray() && pc.Len() > 0 && nc.IsArray() && jsonl.Equal(pc, nc)
}
