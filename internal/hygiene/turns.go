package hygiene

import (
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Turn validation (docs/replay.md step 17): OpenClaw 2026.9.6
// validateGeminiTurns and validateAnthropicTurns, run by validateReplayTurns.
// This file runs the step and holds what its rules share; each rule is in
// its own file: turns/merge-assistant (turns_merge_assistant.go),
// turns/merge-user (turns_merge_user.go) and turns/dangling-tool-calls
// (turns_dangling_tool_calls.go).

// validateGeminiTurns merges each assistant message into the assistant
// message kept before it (Gemini requires alternating turns). It applies
// only with the validateGeminiTurns policy; msgs itself is never modified.
func validateGeminiTurns(r *Run, msgs []Message) []Message {
	if !r.Policy.ValidateGeminiTurns {
		return msgs
	}
	return mergeConsecutive(r, msgs, session.RoleAssistant, mergeAssistantTurns)
}

// validateAnthropicTurns merges consecutive assistant messages, strips tool
// calls that no tool result answers before the next assistant turn, and then
// merges consecutive user messages — except, in 2026.9.6, on the direct
// anthropic-messages api under appendOnlyRuntimeContext (Bedrock Converse
// still needs strict alternation). It applies only with the
// validateAnthropicTurns policy; msgs itself is never modified.
func validateAnthropicTurns(r *Run, msgs []Message) []Message {
	if !r.Policy.ValidateAnthropicTurns {
		return msgs
	}
	r.phase = 1
	msgs = mergeConsecutive(r, msgs, session.RoleAssistant, mergeAssistantTurns)
	r.phase = 2
	msgs = stripDanglingToolCalls(r, msgs)
	if r.Policy.AppendOnlyRuntimeContext && r.Target.ModelAPI == "anthropic-messages" {
		return msgs
	}
	r.phase = 3
	return mergeConsecutive(r, msgs, session.RoleUser, mergeUserTurns)
}

// mergeConsecutive folds every message of role into the previous kept
// message when that one has the same role. A message without a truthy role
// passes through without ending the run; any other role ends it.
//
// A merge gets owned = true when prev is itself the result of a merge in
// this pass, so its content array belongs to the pass and can grow in place:
// a run of k messages then costs O(k), not O(k²).
func mergeConsecutive(r *Run, msgs []Message, role string, merge func(r *Run, prev, cur Message, owned bool) Message) []Message {
	var out []Message
	lastRole := "" // "" also stands for a truthy role that is not a string
	owned := false
	for i, m := range msgs {
		roleValue := m.V.Get("role")
		if !roleValue.Truthy() {
			if out != nil {
				out = append(out, m)
			}
			owned = false
			continue
		}
		cur, _ := roleValue.Str()
		if cur == role && lastRole == role {
			if out == nil {
				out = append(make([]Message, 0, len(msgs)), msgs[:i]...)
			}
			// The previous kept message may be one without a role: OpenClaw
			// merges into whatever it pushed last.
			out[len(out)-1] = merge(r, out[len(out)-1], m, owned)
			owned = true
			continue
		}
		if out != nil {
			out = append(out, m)
		}
		lastRole, owned = cur, false
	}
	if out == nil {
		return msgs
	}
	return out
}

// concatContent returns items(a) followed by items(b): in a new slice, or,
// when a's elements are owned by the caller, appended to them.
func concatContent(a, b *jsonl.Value, items func(*jsonl.Value) []jsonl.Member, owned bool) []jsonl.Member {
	if owned {
		return append(items(a), items(b)...)
	}
	return append(slices.Clone(items(a)), items(b)...)
}

// arrayItemsOnly returns the elements of an array, nothing for other values.
func arrayItemsOnly(v *jsonl.Value) []jsonl.Member {
	if !v.IsArray() {
		return nil
	}
	return v.Items()
}
