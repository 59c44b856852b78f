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
	var out []Message // a copy of msgs once a message changes or goes
	for i := range msgs {
		m := msgs[i]
		keep := true
		switch session.Role(&m.V) {
		case session.RoleUser:
			keep = sanitizeUserReplayContent(r, &m)
		case session.RoleAssistant:
			kept := out
			if out == nil {
				kept = msgs[:i]
			}
			keep = normalizeAssistant(r, kept, &m)
		}
		out = keepMessage(out, msgs, i, m, keep)
	}
	if out == nil {
		return msgs
	}
	return out
}

// keepMessage adds m, the edit of msgs[i], to out when keep is set, for a
// step that copies msgs only once a message changes or goes: while out is
// nil, msgs[:i] is the output so far.
func keepMessage(out, msgs []Message, i int, m Message, keep bool) []Message {
	if out == nil {
		if keep && m == msgs[i] {
			return nil
		}
		out = append(make([]Message, 0, len(msgs)), msgs[:i]...)
	}
	if keep {
		out = append(out, m)
	}
	return out
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
