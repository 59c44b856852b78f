package hygiene

import (
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Replay runs OpenClaw 2026.9.6's replay hygiene over the context messages
// of a session's active branch, in OpenClaw's order (sanitizeSessionHistory,
// then validateReplayTurns, then the final tool-result pairing pass;
// docs/replay.md), and returns the messages OpenClaw would stream to
// r.Target. Every rule records its changes in r.Changes.
//
// msgs is not modified: the rules work on a deep copy. The model-snapshot
// step (step 2) reads the session's custom entries, which msgs does not
// hold; call ApplyModelSnapshots on r first. The error is OpenClaw's
// Responses replay invariant (docs/replay.md); it is also recorded as
// a rejecting Change.
func Replay(r *Run, msgs []Message) ([]Message, error) {
	return replayOwned(r, cloneMessages(msgs))
}

// replayOwned is Replay over messages the rules may modify in place.
func replayOwned(r *Run, msgs []Message) ([]Message, error) {
	// Steps 1–9 (2 is ApplyModelSnapshot, before the list).
	return replayAfterPrefix(r, runSteps(r, msgs, prefixSteps))
}

// firstPairing is step 9: the Responses replay, or the first tool-result
// pairing pass.
func firstPairing(r *Run, msgs []Message) []Message {
	if isResponsesAPI(r.Target.ModelAPI) {
		return responsesReplay(r, msgs)
	}
	if r.Policy.RepairToolUseResultPairing {
		return repairToolResultPairing(r, msgs, pairingOptions{SyntheticText: syntheticResultText})
	}
	return msgs
}

// replayAfterPrefix is the pipeline after prefixSteps: steps 10–18.
func replayAfterPrefix(r *Run, msgs []Message) ([]Message, error) {
	r.at(10)
	return replayAfterIDs(r, rewriteToolCallIDs(r, msgs))
}

// replayAfterIDs is the pipeline after the tool-call id rewrite (step 10):
// steps 11–18. The runs of a segmented replay may share step 10
// (shared_ids.go) and the stages of steps 11–18 (shared_tail.go).
func replayAfterIDs(r *Run, msgs []Message) ([]Message, error) {
	return replayTail(r, msgs, nil)
}

// replayTail runs steps 11–18 stage by stage (tailStages), each through
// share (nil: no sharing).
func replayTail(r *Run, msgs []Message, share *tailShare) ([]Message, error) {
	for i := range tailStages {
		st := &tailStages[i]
		if !st.applies(r) {
			continue
		}
		var err error
		if msgs, err = share.run(r, st, msgs); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

// listToWrite is out, or a copy of given when out is given itself: the
// steps from step 10 on never write into the list they are given (the runs
// of a segmented replay share lists: shared_ids.go, shared_tail.go), but
// into a copy, made when a message first changes.
func listToWrite(out, given []Message) []Message {
	if sameList(out, given) {
		return slices.Clone(given)
	}
	return out
}

// tailStage is a part of steps 11–18 that the runs of a segmented replay
// may share: applies reports whether it does anything for r, key is what
// it reads of r besides the messages (tailShare), run runs it. No stage
// writes into the list it is given (listToWrite):
// TestStepsLeaveTheirInput holds them to it.
type tailStage struct {
	applies func(r *Run) bool
	key     func(r *Run) tailKey
	run     func(r *Run, msgs []Message) ([]Message, error)
}

// tailKey is what a stage of steps 11–18 reads of a run: two runs with one
// key, given the same messages, make the same output, changes and error.
// A rule of these steps that comes to read another part of the target,
// policy or run must add it here.
type tailKey struct {
	stage          int
	hook           replayHook
	responses      bool
	pairing        bool
	gemini         bool
	anthropic      bool
	appendOnlyMsgs bool // appendOnlyRuntimeContext on the anthropic-messages api
}

var tailStages = []tailStage{
	{ // 11–13
		applies: func(*Run) bool { return true },
		key:     func(r *Run) tailKey { return tailKey{stage: 11, hook: replayHookOf(r.Target)} },
		run: func(r *Run, msgs []Message) ([]Message, error) {
			return runSteps(r, msgs, rewriteSteps), nil
		},
	},
	{ // 14: the Responses family's second pairing pass and invariant
		applies: func(r *Run) bool { return isResponsesAPI(r.Target.ModelAPI) },
		key:     func(r *Run) tailKey { return tailKey{stage: 14, pairing: r.Policy.RepairToolUseResultPairing} },
		run: func(r *Run, msgs []Message) ([]Message, error) {
			r.at(14)
			if r.Policy.RepairToolUseResultPairing {
				msgs = repairToolResultPairing(r, msgs, pairingOptions{SyntheticText: abortedResultText})
			}
			return msgs, checkResponsesInvariant(r, msgs)
		},
	},
	{ // 16 (15 writes a snapshot: never)
		applies: func(r *Run) bool { return r.Policy.ApplyGoogleTurnOrdering },
		key:     func(r *Run) tailKey { return tailKey{stage: 16, responses: isResponsesAPI(r.Target.ModelAPI)} },
		run: func(r *Run, msgs []Message) ([]Message, error) {
			r.at(16)
			msgs = googleTurnOrdering(r, msgs)
			if isResponsesAPI(r.Target.ModelAPI) {
				return msgs, checkResponsesInvariant(r, msgs)
			}
			return msgs, nil
		},
	},
	{ // 17
		applies: func(r *Run) bool { return r.Policy.ValidateGeminiTurns || r.Policy.ValidateAnthropicTurns },
		key: func(r *Run) tailKey {
			return tailKey{stage: 17, gemini: r.Policy.ValidateGeminiTurns, anthropic: r.Policy.ValidateAnthropicTurns,
				appendOnlyMsgs: r.Policy.AppendOnlyRuntimeContext && r.Target.ModelAPI == "anthropic-messages"}
		},
		run: func(r *Run, msgs []Message) ([]Message, error) {
			return runSteps(r, msgs, turnSteps), nil
		},
	},
	{ // 18: the final pairing pass
		applies: func(r *Run) bool { return r.Policy.RepairToolUseResultPairing },
		key:     func(r *Run) tailKey { return tailKey{stage: 18, responses: isResponsesAPI(r.Target.ModelAPI)} },
		run: func(r *Run, msgs []Message) ([]Message, error) {
			r.at(18)
			text := syntheticResultText
			if isResponsesAPI(r.Target.ModelAPI) {
				text = abortedResultText
			}
			return repairToolResultPairing(r, msgs, pairingOptions{SyntheticText: text}), nil
		},
	},
}

// step is one rule of the pipeline and its number in docs/replay.md
// (the change log is ordered by it).
type step struct {
	n   int
	run func(*Run, []Message) []Message
}

// The pipeline's runs of unconditional steps; the rules themselves check
// whether the policy applies them. The runs of a segmented replay share
// the prefix steps their policies agree on (shared_steps.go).
var (
	prefixSteps = []step{{1, annotateInterSession}, {3, normalizeReplayContent}, {4, imagePass},
		{5, cleanupThinkingSignatures}, {6, dropReasoningFromHistory}, {7, dropThinkingBlocks}, {8, sanitizeToolCallInputs},
		{9, firstPairing}}
	rewriteSteps = []step{{11, stripToolResultDetails}, {12, normalizeUsageSnapshots}, {13, providerReplayHook}}
	turnSteps    = []step{{17, validateGeminiTurns}, {17, validateAnthropicTurns}}
)

// runSteps runs steps over msgs in order.
func runSteps(r *Run, msgs []Message, steps []step) []Message {
	for _, s := range steps {
		r.at(s.n)
		msgs = s.run(r, msgs)
	}
	return msgs
}

// The texts of synthetic tool results (docs/replay.md).
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
	i, err := responsesInvariant(msgs)
	if err == nil {
		return nil
	}
	r.addChange(Change{Rule: ruleResponsesInvariant, Detail: err.Error(), Rejects: true, CauseLine: msgs[i].Line})
	return err
}

// editedList is the output of a step that passes most messages on as they
// are: it copies the input list only once the output differs from it (a
// message changed, gone or added), and is a prefix of the input until then.
type editedList struct {
	src    []Message // the step's input
	out    []Message // the output once copied
	n      int       // the output's length while it is src[:n]
	copied bool
}

// add appends m to the output.
func (l *editedList) add(m Message) {
	if !l.copied {
		if l.n < len(l.src) && l.src[l.n] == m {
			l.n++
			return
		}
		l.out = append(make([]Message, 0, len(l.src)+1), l.src[:l.n]...)
		l.copied = true
	}
	l.out = append(l.out, m)
}

// list is the output so far.
func (l *editedList) list() []Message {
	if !l.copied {
		return l.src[:l.n:l.n]
	}
	return l.out
}

// len is the output's length so far.
func (l *editedList) len() int { return len(l.list()) }

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

// replayCopy is ReplayContext on a copy of ctx's messages, which it leaves
// as they are for other replays.
func replayCopy(r *Run, ctx *session.Context) ([]Message, error) {
	ApplyModelSnapshot(r, ctx.ModelSnapshot, ctx.ModelSwitchTimestamp, ctx.HasModelSwitchTimestamp)
	return Replay(r, contextMessages(ctx))
}

func contextMessages(ctx *session.Context) []Message {
	msgs := make([]Message, len(ctx.Messages))
	for i, cm := range ctx.Messages {
		msgs[i] = Message{V: cm.V, Line: cm.Line, EntryID: cm.EntryID}
	}
	return msgs
}
