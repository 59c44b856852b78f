package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// This file is docs/replay.md: OpenClaw's
// sanitizeGoogleAssistantFirstOrdering,
// run by the Google plugin's replay hook (step 13) and again when the policy
// has applyGoogleTurnOrdering (step 16).

const (
	ruleGoogleBootstrap = "google/turn-ordering"
	// googleBootstrapText is the user turn Gemini needs before a history
	// that starts with the model.
	googleBootstrapText = "(session bootstrap)"
)

// googleTurnOrdering prepends {role:"user", content:"(session bootstrap)",
// timestamp:now} when the first message is an assistant. It is idempotent:
// a list already starting with that user turn (or with any other role) is
// returned unchanged.
func googleTurnOrdering(r *Run, msgs []Message) []Message {
	if len(msgs) == 0 {
		return msgs
	}
	first := &msgs[0].V
	if session.Role(first) != session.RoleAssistant {
		return msgs
	}
	bootstrap := Message{V: jsonl.ObjectOf(
		jsonl.Member{Key: "role", Value: jsonl.StringValue("user")},
		jsonl.Member{Key: "content", Value: jsonl.StringValue(googleBootstrapText)},
		jsonl.Member{Key: "timestamp", Value: jsonl.IntValue(r.NowMillis())},
	)}
	r.Record(ruleGoogleBootstrap, &msgs[0], "history starts with the model: %q user turn inserted before it", googleBootstrapText)
	return append([]Message{bootstrap}, msgs...)
}
