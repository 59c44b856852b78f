package hygiene

import (
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The responses/stale-reasoning rule of the Responses replay (responses.go
// runs it).

// dropStaleResponsesReasoning removes, from assistants older than the model
// switch (timestamp ≤ dropBefore, or no readable timestamp), the thinking
// blocks that carry an OpenAI reasoning item, and falsy blocks. Text blocks
// of such a turn lose their textSignature except its phase. A turn left
// empty is removed.
func dropStaleResponsesReasoning(r *Run, msgs []Message, dropBefore float64) []Message {
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		content := m.V.Get("content")
		if session.Role(&m.V) != session.RoleAssistant || !content.IsArray() {
			out = append(out, m)
			continue
		}
		if ts, ok := timestampMillis(m.V.Get("timestamp")); ok && ts > dropBefore {
			out = append(out, m)
			continue
		}
		items, kept, dropped, changed := withoutReasoningItems(content)
		if !changed {
			out = append(out, m)
			continue
		}
		if len(items) == 0 {
			r.Record("responses/stale-reasoning", &m, "turn from before the model switch held only reasoning: removed")
			continue
		}
		if dropped > 0 {
			r.Record("responses/stale-reasoning", &m, "%d reasoning item(s) from before the model switch removed", dropped)
			stripTextSignatures(items, kept)
		}
		out = append(out, replaceAssistantContent(m, items, kept))
	}
	return out
}

// withoutReasoningItems filters content: falsy blocks and thinking blocks
// with an OpenAI reasoning signature go. kept maps each remaining block to
// its old index.
func withoutReasoningItems(content *jsonl.Value) (items []jsonl.Member, kept []int, dropped int, changed bool) {
	for i, it := range content.Items() {
		b := &it.Value
		switch {
		case !b.Truthy():
			changed = true
		case session.BlockType(b) == "thinking" && isOpenAIReasoningSignature(b.Get("thinkingSignature")):
			changed = true
			dropped++
		default:
			items, kept = append(items, it), append(kept, i)
		}
	}
	return items, kept, dropped, changed
}

// stripTextSignatures removes textSignature from text blocks, re-adding
// (as the last key) only a {"v":1,"phase":…} form of a v1 phase signature.
func stripTextSignatures(items []jsonl.Member, kept []int) {
	for k := range items {
		b := &items[k].Value
		if session.BlockType(b) != "text" || !b.Has("textSignature") {
			continue
		}
		phase := textSignaturePhase(b.Get("textSignature"))
		nb := shallowObject(b)
		nb.Delete("textSignature")
		if phase != "" {
			nb.Set("textSignature", jsonl.StringValue(`{"v":1,"phase":"`+phase+`"}`))
		}
		items[k].Value, kept[k] = nb, -1
	}
}

// textSignaturePhase returns the phase of a v1 text signature
// ({"v":1,"phase":"commentary"|"final_answer"}), or "". OpenClaw throws a
// TypeError on a non-string signature; it is treated here as one without
// a phase.
func textSignaturePhase(sig *jsonl.Value) string {
	s, ok := sig.Str()
	if !ok || !strings.HasPrefix(s, "{") {
		return ""
	}
	v, err := jsonl.Parse([]byte(s))
	if err != nil {
		return ""
	}
	if f, ok := v.Get("v").Float(); !ok || f != 1 {
		return ""
	}
	switch p := v.Get("phase").StrOr(""); p {
	case "commentary", "final_answer":
		return p
	}
	return ""
}

// isOpenAIReasoningSignature reports a thinkingSignature naming an OpenAI
// reasoning item: an object, or a string holding a JSON object, with an id
// starting rs_ and type reasoning or reasoning.*.
func isOpenAIReasoningSignature(sig *jsonl.Value) bool {
	if !sig.Truthy() {
		return false
	}
	candidate := sig
	if s, ok := sig.Str(); ok {
		t := jsonl.TrimJS(s)
		if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
			return false
		}
		v, err := jsonl.Parse([]byte(t))
		if err != nil {
			return false
		}
		candidate = &v
	} else if !sig.IsObject() && !sig.IsArray() {
		return false
	}
	id := candidate.Get("id").StrOr("")
	typ := candidate.Get("type").StrOr("")
	return strings.HasPrefix(id, "rs_") && (typ == "reasoning" || strings.HasPrefix(typ, "reasoning."))
}
