package repair

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The replacement texts OpenClaw writes (docs/fix.md).
const (
	// AssistantErrorFallbackText replaces the content of an empty assistant
	// error turn (STREAM_ERROR_FALLBACK_TEXT, also written by the live
	// runtime, so the rewrite is idempotent).
	AssistantErrorFallbackText = "[assistant turn failed before producing content]"
	// CorruptedImageFallbackText replaces a corrupted image block.
	CorruptedImageFallbackText = "[image omitted: corrupted base64 payload]"
	// BlankUserFallbackText replaces blank user text: some providers reject
	// a transcript without any user turn, so the turn is kept.
	BlankUserFallbackText = "(continue)"
)

// entryResult is the exact outcome of OpenClaw's per-line rules for one
// parsed entry.
type entryResult struct {
	action Action
	rules  Rules
	images int         // corrupted image blocks replaced
	value  jsonl.Value // the entry as written: rewritten for Rewrite, the input otherwise
}

// classifyEntry applies docs/fix.md #2–#6 to a parsed line, in order,
// first match wins (#4 falls through to #5). It never modifies v; a
// rewritten entry shares unchanged subtrees with v.
func classifyEntry(v jsonl.Value) entryResult {
	if isStructurallyInvalidMessage(&v) {
		return entryResult{action: Drop, rules: RuleInvalidMessageRole}
	}
	if isEmptyAssistantErrorTurn(&v) {
		return entryResult{action: Rewrite, rules: RuleEmptyErrorTurn, value: withContent(v, jsonl.ArrayValue(textBlock(AssistantErrorFallbackText)))}
	}
	res := entryResult{action: Keep, value: v}
	if !isMessageEntry(&v) {
		return res
	}
	if repaired, n := replaceCorruptedImages(v); n > 0 {
		res = entryResult{action: Rewrite, rules: RuleCorruptedImage, images: n, value: repaired}
	}
	if session.Role(res.value.Get("message")) == session.RoleUser {
		if repaired, ok := repairBlankUserText(res.value); ok {
			res.action, res.value = Rewrite, repaired
			res.rules |= RuleBlankUserText
		}
	}
	return res
}

// isMessageEntry reports an object with type "message" whose message is an
// object (arrays included: JavaScript's typeof says "object").
func isMessageEntry(v *jsonl.Value) bool {
	if !v.IsObject() || !isString(v.Get("type"), "message") {
		return false
	}
	m := v.Get("message")
	return m.IsObject() || m.IsArray()
}

// isStructurallyInvalidMessage is rule #2 (openclaw/openclaw#77228): a
// message entry whose message is missing, falsy or not an object, or whose
// role is not a string with non-blank trim().
func isStructurallyInvalidMessage(v *jsonl.Value) bool {
	if !v.IsObject() || !isString(v.Get("type"), "message") {
		return false
	}
	m := v.Get("message")
	if !m.IsObject() {
		return true // arrays too: they have no role
	}
	role, ok := m.GetStr("role")
	return !ok || jsonl.IsBlankJS(role)
}

// isEmptyAssistantErrorTurn is rule #3: a message entry whose assistant
// message has an empty content array and stopReason exactly "error".
func isEmptyAssistantErrorTurn(v *jsonl.Value) bool {
	m := v.Get("message")
	if !isMessageEntry(v) || !m.IsObject() || !isString(m.Get("role"), session.RoleAssistant) {
		return false
	}
	c := m.Get("content")
	return c.IsArray() && c.Len() == 0 && isString(m.Get("stopReason"), "error")
}

// replaceCorruptedImages is rule #4: every corrupted image block of an
// array content is replaced in place by the placeholder text block.
func replaceCorruptedImages(v jsonl.Value) (jsonl.Value, int) {
	content := v.Get("message").Get("content")
	if !content.IsArray() {
		return v, 0
	}
	n := 0
	var blocks []jsonl.Member
	for i, it := range content.Items() {
		if !isCorruptedImageBlock(&it.Value) {
			continue
		}
		if blocks == nil {
			blocks = append([]jsonl.Member(nil), content.Items()...)
		}
		blocks[i] = jsonl.Member{Value: textBlock(CorruptedImageFallbackText)}
		n++
	}
	if n == 0 {
		return v, 0
	}
	next := jsonl.ArrayValue()
	next.SetItems(blocks)
	return withContent(v, next), n
}

// isCorruptedImageBlock reports an object block with type "image", string
// data, an image MIME type in the first of imageMimeKeys that holds one,
// and data that fails isCorruptedImageData's test.
func isCorruptedImageBlock(b *jsonl.Value) bool {
	if !b.IsObject() || !isString(b.Get("type"), "image") {
		return false
	}
	data, ok := b.GetStr("data")
	if !ok || !hasImageMime(b) {
		return false
	}
	return isCorruptedImageData(data)
}

// hasImageMime reports whether any of imageMimeKeys holds an image MIME
// type (OpenClaw takes the first that does; only its presence matters).
func hasImageMime(b *jsonl.Value) bool {
	for _, k := range imageMimeKeys {
		if s, ok := b.GetStr(k); ok && isImageMime(s) {
			return true
		}
	}
	return false
}

// repairBlankUserText is rule #5 for a user message: blank string content
// becomes "(continue)"; blank text blocks are removed from array content,
// and an array left empty (or empty to begin with) becomes one "(continue)"
// text block. ok is false when nothing changes.
func repairBlankUserText(v jsonl.Value) (jsonl.Value, bool) {
	content := v.Get("message").Get("content")
	if s, isStr := content.Str(); isStr {
		if !jsonl.IsBlankJS(s) {
			return v, false
		}
		return withContent(v, jsonl.StringValue(BlankUserFallbackText)), true
	}
	if !content.IsArray() {
		return v, false
	}
	kept := make([]jsonl.Member, 0, content.Len())
	for _, it := range content.Items() {
		if !isBlankTextBlock(&it.Value) {
			kept = append(kept, it)
		}
	}
	if len(kept) == 0 {
		return withContent(v, jsonl.ArrayValue(textBlock(BlankUserFallbackText))), true
	}
	if len(kept) == content.Len() {
		return v, false
	}
	next := jsonl.ArrayValue()
	next.SetItems(kept)
	return withContent(v, next), true
}

// isBlankTextBlock reports an object block with type "text" and a string
// text that is blank after JavaScript's trim().
func isBlankTextBlock(b *jsonl.Value) bool {
	if !b.IsObject() || !isString(b.Get("type"), "text") {
		return false
	}
	text, ok := b.GetStr("text")
	return ok && jsonl.IsBlankJS(text)
}

// withContent returns a copy of entry whose message.content is content,
// every other member in its place ({...entry, message: {...message,
// content}} in OpenClaw).
func withContent(entry jsonl.Value, content jsonl.Value) jsonl.Value {
	msg := *entry.Get("message")
	msg.SetItems(append([]jsonl.Member(nil), msg.Items()...))
	msg.Set("content", content)
	out := entry
	out.SetItems(append([]jsonl.Member(nil), entry.Items()...))
	out.Set("message", msg)
	return out
}

// textBlock returns {"type":"text","text":text}.
func textBlock(text string) jsonl.Value {
	return jsonl.ObjectOf(jsonl.Member{Key: "type", Value: jsonl.StringValue("text")}, jsonl.Member{Key: "text", Value: jsonl.StringValue(text)})
}

// isString reports whether v is the string s.
func isString(v *jsonl.Value, s string) bool {
	got, ok := v.Str()
	return ok && got == s
}
