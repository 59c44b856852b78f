package hygiene

import (
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The responses/downgrade rule of the Responses replay (responses.go runs
// it).

// downgradeUnpairedFunctionCalls reduces a "call|fc_…" id to its call part
// when no thinking block with an OpenAI reasoning signature precedes the
// call in its turn (OpenAI rejects an fc item without its reasoning item),
// and rewrites toolCallId/toolUseId of the results directly following the
// turn the same way.
func downgradeUnpairedFunctionCalls(r *Run, msgs []Message) []Message {
	var rewritten map[string]string
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		role := session.Role(&m.V)
		switch {
		case role == session.RoleAssistant && m.V.Get("content").IsArray():
			local := map[string]string{}
			out[i] = mapAssistantCallIDs(r, "responses/downgrade", m, func(id string, afterReasoning bool) string {
				callID, itemID, paired := splitResponsesCallID(id)
				if afterReasoning || !paired || !strings.HasPrefix(itemID, responsesItemPrefix) {
					return id
				}
				local[id] = callID
				return callID
			})
			rewritten = nil
			if len(local) > 0 {
				rewritten = local
			}
		case role == session.RoleToolResult && rewritten != nil:
			out[i] = downgradeResultIDs(r, m, rewritten)
		default:
			rewritten = nil
		}
	}
	return out
}

// downgradeResultIDs applies the turn's id reductions to a result's
// toolCallId and toolUseId (the only fields OpenClaw rewrites here).
func downgradeResultIDs(r *Run, m Message, rewritten map[string]string) Message {
	var v jsonl.Value
	changed := false
	for _, k := range []string{"toolCallId", "toolUseId"} {
		id, ok := m.V.GetStr(k)
		next := rewritten[id]
		if !ok || next == "" || next == id {
			continue
		}
		if !changed {
			v, changed = shallowObject(&m.V), true
		}
		v.Set(k, jsonl.StringValue(next))
		r.Record("responses/downgrade", &m, "%s → %s", id, next)
	}
	if changed {
		m.V = v
	}
	return m
}
