package hygiene

import (
	"fmt"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// The responses/invariant check: OpenClaw's refusal of a Responses history
// whose tool calls and results do not pair up (pipeline.go records it).

// responsesInvariant is OpenClaw's final check for Responses replays:
// every tool call must be answered by results directly after its turn, and
// every result must answer a pending call. It returns OpenClaw's error for
// the first violation, with the index of the message it names, nil when
// the list is valid.
func responsesInvariant(msgs []Message) (int, error) {
	type pendingCall struct{ order, index int }
	pending := map[string]*pendingCall{}
	order := 0
	dangling := func() (int, error) {
		id, first := "", (*pendingCall)(nil)
		for k, p := range pending {
			if first == nil || p.order < first.order {
				id, first = k, p
			}
		}
		return first.index, replayInvariantError("dangling_tool_call", id, first.index)
	}
	for i := range msgs {
		v := &msgs[i].V
		role := session.Role(v)
		if len(pending) > 0 && role != session.RoleToolResult {
			return dangling()
		}
		switch role {
		case session.RoleToolResult:
			id := session.ToolResultID(v)
			if id == "" || pending[id] == nil {
				return i, replayInvariantError("orphan_tool_result", id, i)
			}
			delete(pending, id)
		case session.RoleAssistant:
			for _, c := range session.ToolCalls(v) {
				if p := pending[c.ID]; p != nil {
					p.index = i
					continue
				}
				pending[c.ID] = &pendingCall{order: order, index: i}
				order++
			}
		}
	}
	if len(pending) > 0 {
		return dangling()
	}
	return 0, nil
}

// replayInvariantError formats OpenClaw's invalid_replay_transcript error.
func replayInvariantError(kind, toolCallID string, index int) error {
	id := ""
	if toolCallID != "" {
		id = " toolCallId=" + toolCallID
	}
	return fmt.Errorf("invalid_replay_transcript: OpenAI Responses replay contains %s%s at message index %d", kind, id, index)
}
