package hygiene

import "github.com/openclaw-doctor/openclaw-doctor/internal/session"

// This file is step 11 of the replay (docs/replay.md): OpenClaw's
// stripToolResultDetails.

const ruleToolResultDetails = "tool-results/details"

// stripToolResultDetails deletes the `details` field of every toolResult
// message: it is transcript state, never sent to a provider. Synthetic
// results added later by the final pairing pass keep theirs.
func stripToolResultDetails(r *Run, msgs []Message) []Message {
	out := msgs // copied before a message changes (listToWrite)
	for i := range msgs {
		v := msgs[i].V
		if session.Role(&v) == session.RoleToolResult && v.Delete("details") {
			out = listToWrite(out, msgs)
			out[i].V = v
			r.Record(ruleToolResultDetails, &out[i], "details removed from tool result")
		}
	}
	return out
}
