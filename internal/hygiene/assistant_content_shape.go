package hygiene

import (
	"unicode/utf16"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// ruleContentShape is the rule id recorded by this file (step 3): content
// that is not an array of blocks becomes one. setAssistantContent, which
// every rewrite of an assistant's content goes through, keeps the
// message's compaction checkpoint consistent.
const ruleContentShape = "assistant/content-shape"

// normalizeAssistantText handles string content: metadata stripped, then a
// blank or silent text removes the message; otherwise it becomes one text
// block.
func normalizeAssistantText(r *Run, m *Message, text string) bool {
	stripped := stripInternalMetadataForDisplay(text)
	trimmed := jsonl.TrimJS(stripped)
	if trimmed == "" || isSilentReplyPayloadText(trimmed) {
		r.Record(ruleSilentReply, m, "silent or empty text reply removed")
		return false
	}
	block := jsonl.ObjectOf(jsonl.Member{Key: "type", Value: jsonl.StringValue("text")}, jsonl.Member{Key: "text", Value: jsonl.StringValue(stripped)})
	setAssistantContent(&m.V, []jsonl.Value{block}, []int{-1}, -1)
	r.Record(ruleContentShape, m, "string content converted to a text block")
	return true
}

// setAssistantContent replaces msg.content with blocks and keeps a
// prefix-bound compaction checkpoint in msg.providerReplay consistent, as
// replaceCompactionReplayOwnerContent does. src[i] is the index in the old
// content array of blocks[i] when it is that very block unchanged, -1 for a
// new or modified block. oldLen is the old content's length (-1: not an
// array).
func setAssistantContent(msg *jsonl.Value, blocks []jsonl.Value, src []int, oldLen int) {
	old := msg.Get("content")
	oldStr, oldIsStr := old.Str()
	msg.Set("content", jsonl.ArrayValue(blocks...))
	replay := msg.Get("providerReplay")
	kind := replay.Get("type").StrOr("")
	if !isCompactionCheckpoint(kind) || kind == "openai-responses-retained-compaction" {
		return
	}
	replayIndex := 0.0
	if ri := replay.Get("replayIndex"); !ri.IsNull() {
		f, ok := ri.Float()
		if !ok {
			f = nanValue()
		}
		replayIndex = f
	}
	var length float64
	switch {
	case oldIsStr:
		length = float64(len(utf16.Encode([]rune(oldStr))))
	case oldLen >= 0:
		length = float64(oldLen)
	default:
		// OpenClaw reads .length of a non-array here; only an empty
		// replacement of a non-empty array can reach it. Drop the checkpoint.
		msg.Delete("providerReplay")
		return
	}
	if (len(blocks) == 0 && length > 0) || replayIndex > length {
		msg.Delete("providerReplay")
		return
	}
	next, source := 0.0, 0
	for i := range blocks {
		index := -1
		if !oldIsStr && src[i] >= source {
			index = src[i]
		}
		if index < 0 {
			msg.Delete("providerReplay")
			return
		}
		source = index + 1
		if float64(index) < replayIndex {
			next++
		}
	}
	if next != replayIndex {
		nr := replay.Clone()
		nr.Set("replayIndex", numberValue(next))
		msg.Set("providerReplay", nr)
	}
}

// isCompactionCheckpoint reports providerReplay types bound to the exact
// message prefix.
func isCompactionCheckpoint(kind string) bool {
	return kind == "anthropic-compaction" || kind == "openai-responses-compaction" || kind == "openai-responses-retained-compaction"
}
