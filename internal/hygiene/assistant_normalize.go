package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is step 3 of the replay (docs/replay.md, "Steps and rule
// names"): OpenClaw's normalisation of replayed assistant content, and of
// user messages left without text. It drives the rules
// of the step, each in its own file: user/blank-content
// (user_blank_content.go) and the assistant/* rules (assistant_*.go); the
// block filter three of them share is in assistant_blocks.go.

// normalizeReplayContent drops user messages left with no text (unless they
// carry persisted media) and normalises every assistant: transcript-only
// artifacts, empty failed turns, silent NO_REPLY turns, incomplete
// reasoning-only turns and bare delivery-mirror duplicates are removed;
// display-only blocks (images, audio, attachments) and internal metadata are
// stripped from what remains.
func normalizeReplayContent(r *Run, msgs []Message) []Message {
	out := editedList{src: msgs}
	for i := range msgs {
		m := msgs[i]
		switch session.Role(&m.V) {
		case session.RoleUser:
			if sanitizeUserReplayContent(r, &m) {
				out.add(m)
			}
		case session.RoleAssistant:
			if normalizeAssistant(r, out.list(), &m) {
				out.add(m)
			}
		default:
			out.add(m)
		}
	}
	return out.list()
}

// normalizeAssistant normalises one assistant message in place and reports
// whether it survives. out is the output so far (for the mirror-duplicate
// check).
func normalizeAssistant(r *Run, out []Message, m *Message) bool {
	if isTranscriptOnlyArtifact(&m.V) {
		r.Record(ruleTranscriptArtifact, m, "OpenClaw transcript-only assistant (%s) removed", m.V.Get("model").StrOr("delivery mirror"))
		return false
	}
	content := m.V.Get("content")
	if isStreamErrorFallbackContent(content) && (m.V.Get("stopReason").StrOr("") == "error" || isZeroUsageEmptyStop(&m.V)) {
		r.Record(ruleStreamError, m, "empty %s turn removed", stopReasonLabel(&m.V))
		return false
	}
	if s, ok := content.Str(); ok {
		return normalizeAssistantText(r, m, s)
	}
	if !content.IsArray() {
		blocks := []jsonl.Value{}
		if content.IsObject() {
			blocks = append(blocks, *content)
		}
		setAssistantContent(&m.V, blocks, make([]int, len(blocks)), -1)
		r.Record(ruleContentShape, m, "non-array content wrapped")
	}
	if !normalizeAssistantBlocks(r, m) {
		return false
	}
	if isReasoningOnlyLengthTurn(&m.V) {
		r.Record(ruleLengthReasoning, m, "incomplete reasoning-only turn (stopReason length) removed")
		return false
	}
	if isBareMirrorDuplicate(out, &m.V) {
		r.Record(ruleMirrorDuplicate, m, "duplicate of the previous assistant turn removed")
		return false
	}
	return true
}
