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
// first of them runs the step, the others take its output (the same list:
// no step from step 10 on writes into the list it is given, listToWrite),
// its changes, its hazard and its id state (the same resolver). A
// run whose input, or hazard, differs from its twins' in a segment parts
// from them for good, with a copy of the id state as it stood before the
// segment.
//
// The runs reach step 10 one at a time, and each goes on to the end of the
// segment before the next one starts (only one run's copies of the
// segment are live at once): a run that runs the step keeps what its
// twins still to come may take, and the id state as it stood before, for
// those that part.

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

// idKind is what the runs that may share step 10 in a segment have in
// common: one key, one id state before it (nil: no segment yet).
type idKind struct {
	key idStepKey
	res *toolIDResolver
}

// idRewrites shares step 10 among the runs of one segment.
type idRewrites struct {
	waiting map[idKind]int            // the runs of each kind still to reach the step
	leads   map[idKind][]*idLead      // the runs that ran it, by their id state before it
	before  map[*toolIDResolver]idSet // an id state shared before the step, as it stood
}

// idLead is what a run that ran step 10 leaves its twins still to come.
type idLead struct {
	in, out   []Message // the step's input and output (which no step writes into)
	res       *toolIDResolver
	changes   []Change
	steps     []int
	hazard    string
	hazardCut int
}

// newIDRewrites prepares step 10 of a segment for the runs of active.
func newIDRewrites(runs []*Run, active []int) *idRewrites {
	s := &idRewrites{waiting: map[idKind]int{}, leads: map[idKind][]*idLead{}, before: map[*toolIDResolver]idSet{}}
	for _, k := range active {
		if key, ok := idKeyOf(runs[k]); ok {
			s.waiting[idKind{key, runs[k].seg.resolver}]++
		}
	}
	return s
}

// rewrite runs step 10 for r, which has reached it with msgs, or gives r
// the output of a twin that ran it with the same messages.
func (s *idRewrites) rewrite(r *Run, msgs []Message) []Message {
	r.at(10)
	key, ok := idKeyOf(r)
	if !ok {
		return rewriteToolCallIDs(r, msgs)
	}
	t := idKind{key, r.seg.resolver}
	s.waiting[t]--
	if r.seg.hazard != "" {
		s.part(r, t)
		return rewriteToolCallIDs(r, msgs)
	}
	for _, l := range s.leads[t] {
		if sameMessages(l.in, msgs) {
			for i := range l.changes {
				r.addChangeAt(l.changes[i], l.steps[i])
			}
			r.seg.resolver = l.res
			if l.hazard != "" {
				r.seg.failAt(l.hazard, l.hazardCut)
			}
			return l.out
		}
	}
	if len(s.leads[t]) > 0 {
		s.part(r, t) // the first keeps the state the twins share
	} else if t.res != nil && s.waiting[t] > 0 {
		s.before[t.res] = t.res.used.clone()
	}
	logged := len(r.Changes)
	out := rewriteToolCallIDs(r, msgs)
	if s.waiting[t] <= 0 {
		return out
	}
	// No step writes into either list.
	s.leads[t] = append(s.leads[t], &idLead{in: msgs, out: out, res: r.seg.resolver,
		changes: slices.Clone(r.Changes[logged:]), steps: slices.Clone(r.changeSteps[logged:]),
		hazard: r.seg.hazard, hazardCut: r.seg.hazardCut})
	return out
}

// part gives r an id state of its own: a copy of the one it shared with
// the twins of t as it stood before the segment.
func (s *idRewrites) part(r *Run, t idKind) {
	if t.res == nil {
		return
	}
	c := *t.res
	if used, ok := s.before[t.res]; ok {
		c.used = used
	}
	c.used = c.used.clone()
	c.raw, c.pending = map[string]rawIDState{}, map[string][]string{}
	r.seg.resolver = &c
}

// sameList reports whether a and b are the same list (the same room).
func sameList(a, b []Message) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
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
