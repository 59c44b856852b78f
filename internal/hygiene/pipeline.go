package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Replay runs OpenClaw 2026.9.6's replay hygiene over the context messages
// of a session's active branch, in OpenClaw's order (sanitizeSessionHistory,
// then validateReplayTurns, then the final tool-result pairing pass;
// replay-rules.md §4), and returns the messages OpenClaw would stream to
// r.Target. Every rule records its changes in r.Changes.
//
// msgs is not modified: the rules work on a deep copy. The model-snapshot
// step (§4 step 2) reads the session's custom entries, which msgs does not
// hold; call ApplyModelSnapshots on r first. The error is OpenClaw's
// Responses replay invariant (replay-rules.md §3.9d); it is also recorded as
// a rejecting Change.
func Replay(r *Run, msgs []Message) ([]Message, error) {
	return replayOwned(r, cloneMessages(msgs))
}

// replayOwned is Replay over messages the rules may modify in place.
func replayOwned(r *Run, msgs []Message) ([]Message, error) {
	responses := isResponsesAPI(r.Target.ModelAPI)
	pairing := r.Policy.RepairToolUseResultPairing

	r.at(1)
	msgs = annotateInterSession(r, msgs)
	r.at(3) // (2: ApplyModelSnapshots)
	msgs = normalizeReplayContent(r, msgs)
	r.at(4)
	msgs = imagePass(r, msgs)
	r.at(5)
	msgs = cleanupThinkingSignatures(r, msgs)
	r.at(6)
	msgs = dropReasoningFromHistory(r, msgs)
	r.at(7)
	msgs = dropThinkingBlocks(r, msgs)
	r.at(8)
	msgs = sanitizeToolCallInputs(r, msgs)
	r.at(9)
	if responses {
		msgs = responsesReplay(r, msgs)
	} else if pairing {
		msgs = repairToolResultPairing(r, msgs, pairingOptions{SyntheticText: syntheticResultText})
	}
	r.at(10)
	msgs = rewriteToolCallIDs(r, msgs)
	r.at(11)
	msgs = stripToolResultDetails(r, msgs)
	r.at(12)
	msgs = normalizeUsageSnapshots(r, msgs)
	r.at(13)
	msgs = providerReplayHook(r, msgs)
	r.at(14)
	if responses {
		if pairing {
			msgs = repairToolResultPairing(r, msgs, pairingOptions{SyntheticText: abortedResultText})
		}
		if err := checkResponsesInvariant(r, msgs); err != nil {
			return nil, err
		}
	}
	r.at(16) // (15 writes a snapshot: never)
	if r.Policy.ApplyGoogleTurnOrdering {
		msgs = googleTurnOrdering(r, msgs)
		if responses {
			if err := checkResponsesInvariant(r, msgs); err != nil {
				return nil, err
			}
		}
	}
	r.at(17)
	msgs = validateGeminiTurns(r, msgs)
	msgs = validateAnthropicTurns(r, msgs)
	r.at(18)
	if pairing {
		text := syntheticResultText
		if responses {
			text = abortedResultText
		}
		msgs = repairToolResultPairing(r, msgs, pairingOptions{SyntheticText: text})
	}
	return msgs, nil
}

// The texts of synthetic tool results (replay-rules.md §3.3).
const (
	syntheticResultText = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
	abortedResultText   = "aborted"
)

// ruleResponsesInvariant names the error OpenClaw raises for a Responses
// history it cannot replay.
const ruleResponsesInvariant = "responses/invariant"

// checkResponsesInvariant runs the Responses invariant and records a
// violation as a rejecting change.
func checkResponsesInvariant(r *Run, msgs []Message) error {
	err := responsesInvariant(msgs)
	if err == nil {
		return nil
	}
	r.addChange(Change{Rule: ruleResponsesInvariant, Detail: err.Error(), Rejects: true})
	return err
}

// cloneMessages deep-copies msgs so the rules may edit values in place.
func cloneMessages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{V: jsonl.Value.Clone(m.V), Line: m.Line, EntryID: m.EntryID}
	}
	return out
}

// ReplayContext replays the context of a session's active branch for
// r.Target: it applies the branch's model-snapshot state (step 2), then
// runs the replay over the context messages. It consumes ctx: the rules
// edit its message values in place (a session as large as memory allows is
// not copied); use [Replay] on a copy to keep them.
func ReplayContext(r *Run, ctx *session.Context) ([]Message, error) {
	ApplyModelSnapshot(r, ctx.ModelSnapshot, ctx.ModelSwitchTimestamp, ctx.HasModelSwitchTimestamp)
	return replayOwned(r, contextMessages(ctx))
}

// ReplayChanges replays ctx for t and returns what the replay would change,
// for `check --provider`: every rewrite as a Change, and OpenClaw's refusal
// to replay (the Responses invariant) as a Change with Rejects set. ctx is
// not modified, so it can be replayed for several targets.
func ReplayChanges(t Target, ctx *session.Context) []Change {
	r := NewRun(t)
	ApplyModelSnapshot(r, ctx.ModelSnapshot, ctx.ModelSwitchTimestamp, ctx.HasModelSwitchTimestamp)
	_, _ = Replay(r, contextMessages(ctx)) // a refusal is recorded in r.Changes
	return r.Changes
}

func contextMessages(ctx *session.Context) []Message {
	msgs := make([]Message, len(ctx.Messages))
	for i, cm := range ctx.Messages {
		msgs[i] = Message{V: cm.V, Line: cm.Line, EntryID: cm.EntryID}
	}
	return msgs
}
