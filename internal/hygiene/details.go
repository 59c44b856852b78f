package hygiene

import "github.com/openclaw-doctor/openclaw-doctor/internal/session"

// This file is step 11 of the replay (docs/replay.md): OpenClaw's
// stripToolResultDetails.

const ruleToolResultDetails = "tool-results/details"

// stripToolResultDetails deletes the `details` field of every toolResult
// message: it is transcript state, never sent to a provider. Synthetic
// results added later by the final pairing pass keep theirs.
func stripToolResultDetails(r *Run, msgs []Message) []Message {
	for i := range msgs {
		m := &msgs[i]
		if session.Role(&m.V) == session.RoleToolResult && m.V.Delete("details") {
			r.Record(ruleToolResultDetails, m, "details removed from tool result")
		}
	}
	return msgs
}
