package hygiene

import (
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Runs of a segmented replay that share step 10, the tool-call id rewrite.
// After step 9 the runs of `check --provider all` have parted (shared_steps.go),
// but several targets rewrite ids alike (the same mode, native ids kept or
// not, duplicate style, signed-thinking turns kept or not) and often reach
// step 10 with the very same messages: the rules from step 4 on share the
// values they do not change, so equal lists hold equal values. Runs whose
// id state has been one since the first segment and whose step-10 input is
// the same list of values make the same output, changes and id state: the
// first of them runs the step, the others take its output (a copy of the
// list), its changes, its hazard and its id state (the same resolver and
// reserved ids). A run whose input, or hazard, differs from its twins' in a
// segment parts from them for good, with a copy of the id state as it
// stood before the segment.

// readyRun is run k's messages after the prefix steps of one segment, then
// after step 10.
type readyRun struct {
	k    int
	msgs []Message
}

// idStepKey is what step 10 reads of run r besides the messages and its id
// state, and whether r may share the step at all (a run that counts its
// changes only keeps no log to copy; a run the step leaves alone has no
// id state).
type idStepKey struct {
	mode, duplicateStyle     string
	preserveNative, keepTurn bool
}

func idKeyOf(r *Run) (idStepKey, bool) {
	p := &r.Policy
	if r.CountOnly || !p.SanitizeToolCallIDs || p.ToolCallIDMode == "" || isResponsesAPI(r.Target.ModelAPI) {
		return idStepKey{}, false
	}
	return idStepKey{mode: p.ToolCallIDMode, duplicateStyle: p.DuplicateToolCallIDStyle,
		preserveNative: p.PreserveNativeAnthropicToolUseIDs, keepTurn: allowsProviderOwnedThinkingReplay(r)}, true
}

// shareIDRewrite runs step 10 for the runs of one segment (ready, in the
// order they finish), sharing it among twins, and leaves each run's output
// in its ready entry.
func shareIDRewrite(runs []*Run, ready []readyRun) {
	type twins struct {
		key idStepKey
		res *toolIDResolver // nil: no segment yet
	}
	leads := map[twins][]int{} // the indexes in ready of the runs that run the step, by their id state before it
	from := make([]int, len(ready))
	for i, p := range ready {
		from[i] = i
		r := runs[p.k]
		key, ok := idKeyOf(r)
		if !ok {
			continue
		}
		if r.seg.hazard != "" {
			r.seg.partIDs()
			continue
		}
		t := twins{key, r.seg.resolver}
		for _, j := range leads[t] {
			if sameMessages(ready[j].msgs, p.msgs) {
				from[i] = j
				break
			}
		}
		if from[i] == i {
			if len(leads[t]) > 0 {
				r.seg.partIDs() // the first keeps the state the twins share
			}
			leads[t] = append(leads[t], i)
		}
	}
	logged := make([]int, len(ready))
	for i, p := range ready {
		r := runs[p.k]
		r.at(10)
		if j := from[i]; j != i {
			lead := runs[ready[j].k]
			for c := logged[j]; c < len(lead.Changes); c++ {
				r.addChangeAt(lead.Changes[c], lead.changeSteps[c])
			}
			r.seg.resolver = lead.seg.resolver
			if lead.seg.hazard != "" {
				r.seg.failAt(lead.seg.hazard, lead.seg.hazardCut)
			}
			ready[i].msgs = slices.Clone(ready[j].msgs)
			continue
		}
		logged[i] = len(r.Changes)
		ready[i].msgs = rewriteToolCallIDs(r, p.msgs)
	}
}

// partIDs gives the segment an id state of its own: a copy of the one it
// may share with its twins.
func (s *segment) partIDs() {
	if s.resolver != nil {
		s.resolver = s.resolver.clone()
	}
}

// clone is a copy of res as it stands between two lists: its own set of
// the ids handed out (the raw ids it knows of are void once the next list
// starts).
func (res *toolIDResolver) clone() *toolIDResolver {
	c := *res
	c.used = res.used.clone()
	c.raw, c.pending = map[string]rawIDState{}, map[string][]string{}
	return &c
}

// sameMessages reports whether a and b hold the same messages: the same
// lines, entry ids and values, member for member and byte for byte.
func sameMessages(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && (a[i].Line != b[i].Line || a[i].EntryID != b[i].EntryID || !identical(&a[i].V, &b[i].V)) {
			return false
		}
	}
	return true
}

// identical reports whether a and b are the same JSON, member for member
// in order and byte for byte (jsonl.Equal is JavaScript's equality: it
// ignores the members' order and the numbers' spelling).
func identical(a, b *jsonl.Value) bool {
	if *a == *b {
		return true
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case jsonl.String:
		sa, _ := a.Str()
		sb, _ := b.Str()
		return sa == sb
	case jsonl.Number:
		na, _ := a.NumberText()
		nb, _ := b.NumberText()
		return na == nb
	case jsonl.Array, jsonl.Object:
		ia, ib := a.Items(), b.Items()
		if len(ia) != len(ib) {
			return false
		}
		for i := range ia {
			if ia[i].Key != ib[i].Key || !identical(&ia[i].Value, &ib[i].Value) {
				return false
			}
		}
		return true
	}
	return a.IsTrue() == b.IsTrue() // null, or a boolean
}
