package hygiene

import "slices"

// Runs of a segmented replay that share the prefix steps (1–9: the
// sanitize steps and the first pairing pass) their policies agree on:
// `check --provider all` replays a segment for a dozen targets, whose
// policies differ in a few fields only (the policy table in policy.go),
// and every step before the first that reads one of those fields gives all
// of them the same messages and changes. (After step 9 the matrix targets'
// paths have all parted: the id rewriting of step 10 reads the fields they
// differ in most; runs that rewrite ids alike share it when their messages
// agree, shared_ids.go.)
//
// The runs of a segment form a tree: at each step, the runs that reached
// it with the same messages are split by what the step reads of them
// (prefixStepKey); each part runs the step once, on its first run, on its
// own copy of the messages (ownList; the last part consumes them), and the other
// runs of the part get the step's changes, its hazard and the segment
// state it keeps (the compaction cutoff of step 5)
// as their own. The tree is the same for every segment (the keys depend on
// the configs only), so a run that shares a step shares it with the same
// runs throughout, and the state a shared step keeps is the state the run
// would have kept. The runs are taken to share one clock (ReplaySession's
// configs do): pairing stamps its synthetic results with it. A run with
// CountOnly keeps no change log to copy: it shares nothing.

// stepKey is what a prefix step reads of a run besides the messages and
// the segment: two runs with one key, given the same messages, make the
// same output, changes and segment state.
type stepKey struct {
	imageMaxSide         int
	preserveSignatures   bool
	thoughtSignatures    ThoughtSignaturePolicy
	hasThoughtSignatures bool
	applies              bool
	responses            bool  // step 9: the Responses replay
	switchAt             int64 // and its model switch (-1: none)
	alone                *Run  // a run that shares nothing
}

// prefixStepKey is run r's key for prefix step n. A rule that comes to
// read another part of the target, policy or run must add it here.
func prefixStepKey(n int, r *Run) stepKey {
	if r.CountOnly {
		return stepKey{alone: r}
	}
	p := &r.Policy
	switch n {
	case 1, 3: // inter-session markers, content normalisation: no policy
		return stepKey{}
	case 4: // images, blank text, thought signatures
		k := stepKey{imageMaxSide: imageLimits(r.Target).MaxSide, preserveSignatures: p.PreserveSignatures}
		if sig := p.SanitizeThoughtSignatures; sig != nil {
			k.thoughtSignatures, k.hasThoughtSignatures = *sig, true
		}
		return k
	case 5:
		return stepKey{applies: providerRequiresSignedThinking(r.Target.Provider) || p.PreserveSignatures}
	case 6:
		return stepKey{applies: p.DropReasoningFromHistory}
	case 7:
		return stepKey{applies: p.DropThinkingBlocks}
	case 8:
		return stepKey{applies: allowsProviderOwnedThinkingReplay(r)}
	case 9:
		if isResponsesAPI(r.Target.ModelAPI) {
			k := stepKey{responses: true, switchAt: -1}
			if r.ModelSwitched {
				k.switchAt = r.ModelSwitchAt
			}
			return k
		}
		return stepKey{applies: p.RepairToolUseResultPairing}
	}
	return stepKey{alone: r}
}

// eachRun is rest for the runs of a group, one after another.
func eachRun(rest func(k int, msgs []Message) error) func(group []int, msgs []Message) error {
	return func(group []int, msgs []Message) error {
		for _, k := range group {
			if err := rest(k, msgs); err != nil {
				return err
			}
		}
		return nil
	}
}

// prefixFrom runs the prefix steps from prefixSteps[i] up to (not
// including) prefixSteps[stop] for the runs of group, which have reached
// it with the messages msgs (which it consumes), sharing what their keys
// allow, and hands each group of runs that reached prefixSteps[stop]
// together to rest, with the list they share (stop len(prefixSteps): the
// runs that went the whole way together get the same list, and no step
// after writes into the list it is given: listToWrite). rest's error ends
// the replay of the segment.
func prefixFrom(runs []*Run, group []int, i, stop int, msgs []Message, rest func(group []int, msgs []Message) error) error {
	if i == stop {
		return rest(group, msgs)
	}
	s := prefixSteps[i]
	parts := splitByStepKey(runs, group, s.n)
	for j, part := range parts {
		own := msgs
		if j < len(parts)-1 {
			own = ownList(msgs, i)
		}
		lead := runs[part[0]]
		logged := len(lead.Changes)
		lead.at(s.n)
		out := s.run(lead, own)
		for _, k := range part[1:] {
			runs[k].share(lead, s.n, logged)
		}
		if err := prefixFrom(runs, part, i+1, stop, out, rest); err != nil {
			return err
		}
	}
	return nil
}

// sharedFrom is the index in prefixSteps of step 4, from which on no rule
// edits a value of the messages it is given: a rule that changes a
// message, or a block, replaces it with a copy (shallowObject, withContent,
// withMember; the image sanitizer writes into copies of the image blocks),
// so the runs that reach these steps with one list share its values and
// need only a list of their own. Steps 1 and 3 edit values in place, but
// no run parts from the others before step 4 (they read no policy); a run
// that did would get a deep copy. TestStepsLeaveTheirInput holds the rules
// to it.
var sharedFrom = slices.IndexFunc(prefixSteps, func(s step) bool { return s.n == 4 })

// ownList is a list of msgs that the steps from prefixSteps[i] on may edit
// without touching msgs: a copy of the list when they leave the values
// they are given as they are (sharedFrom), else a deep copy.
func ownList(msgs []Message, i int) []Message {
	if i >= sharedFrom {
		return slices.Clone(msgs)
	}
	return cloneMessages(msgs)
}

// splitByStepKey splits group by the runs' keys for step n, in order of
// first appearance, each part in group's order.
func splitByStepKey(runs []*Run, group []int, n int) [][]int {
	var parts [][]int
	at := map[stepKey]int{}
	for _, k := range group {
		key := prefixStepKey(n, runs[k])
		i, ok := at[key]
		if !ok {
			i = len(parts)
			at[key] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], k)
	}
	return parts
}

// share gives r what lead's step n made: the changes from lead's logged-th
// on, its hazard, and the segment state step n keeps.
func (r *Run) share(lead *Run, n, logged int) {
	for i := logged; i < len(lead.Changes); i++ {
		r.addChangeAt(lead.Changes[i], lead.changeSteps[i])
	}
	from, to := lead.seg, r.seg
	if from.hazard != "" {
		to.failAt(from.hazard, from.hazardCut)
	}
	if n == 5 {
		to.cutoff, to.hasCutoff = from.cutoff, from.hasCutoff
	}
}
