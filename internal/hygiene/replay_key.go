package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// replayKey is everything of a Config the rules read, given the session's
// model-snapshot state: two configs with one key replay a session to the
// same messages and the same changes, so ReplaySession replays it once for
// both (the provider families of `check --provider all` share policies:
// the policy table in policy.go). A rule that comes to read another part
// of the target must add it here.
type replayKey struct {
	policy Policy // without SanitizeThoughtSignatures, which is below
	// thoughtSignatures is *Policy.SanitizeThoughtSignatures when
	// hasThoughtSignatures.
	thoughtSignatures    ThoughtSignaturePolicy
	hasThoughtSignatures bool
	// What the rules test of the api and the provider.
	responses, anthropicAPI, anthropicMessages, signedThinking bool
	hook                                                       replayHook
	imageMaxSide                                               int
	snapshot                                                   snapshotOutcome
	countOnly                                                  bool
}

// snapshotOutcome is what ApplyModelSnapshot makes of a target.
type snapshotOutcome uint8

const (
	noSnapshot      snapshotOutcome = iota // no snapshot, or an empty target
	snapshotNamesIt                        // the last snapshot names the target
	snapshotOther                          // it names another model: a switch now
)

// keyOf is c's replayKey for a session whose last model snapshot is
// snapshot (nil when it has none).
func keyOf(c Config, snapshot *jsonl.Value) replayKey {
	t := c.Target
	k := replayKey{policy: c.Policy, responses: isResponsesAPI(t.ModelAPI), anthropicAPI: isAnthropicAPI(t.ModelAPI),
		anthropicMessages: t.ModelAPI == "anthropic-messages", signedThinking: providerRequiresSignedThinking(t.Provider),
		hook: replayHookOf(t), imageMaxSide: imageLimits(t).MaxSide, countOnly: c.CountOnly}
	if sig := c.Policy.SanitizeThoughtSignatures; sig != nil {
		k.thoughtSignatures, k.hasThoughtSignatures = *sig, true
	}
	k.policy.SanitizeThoughtSignatures = nil
	switch {
	case snapshot == nil || t.Provider == "" && t.ModelAPI == "" && t.ModelID == "":
	case session.SnapshotNames(snapshot, t.Provider, t.ModelAPI, t.ModelID):
		k.snapshot = snapshotNamesIt
	default:
		k.snapshot = snapshotOther
	}
	return k
}

// sameReplays groups configs by replayKey: leaders are the configs each
// replayed for its group, and runs[i] the indexes into configs of the
// group of leaders[i], its leader first, in order.
func sameReplays(configs []Config, snapshot *jsonl.Value) (leaders []Config, runs [][]int) {
	group := map[replayKey]int{}
	for k, c := range configs {
		key := keyOf(c, snapshot)
		if i, ok := group[key]; ok {
			runs[i] = append(runs[i], k)
			continue
		}
		group[key] = len(leaders)
		leaders = append(leaders, c)
		runs = append(runs, []int{k})
	}
	return leaders, runs
}
