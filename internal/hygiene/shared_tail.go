package hygiene

import "slices"

// Runs of a segmented replay that share the stages of steps 11–18
// (tailStages in pipeline.go). The targets of `check --provider all` have
// parted by step 10, but many reach a later stage with the very same
// messages (the id rewrite left them alike, or a stage that differs
// between them changed nothing) and read the same of their policies
// there: the turn validation of one family, the final pairing pass of
// most. Like step 10 (shared_ids.go), the runs reach a stage one at a time
// and each goes on to the end of the segment before the next starts: the
// first run with a key and an input runs the stage and keeps its input,
// output, changes, hazard and error for the runs of that key still to
// come; a run that reaches the stage with the same key and the same list
// of values (sameMessages; the rules from step 4 on share the values they
// do not change) takes them as its own. The output list itself is shared:
// no stage after the first writes into the list it is given (tailStage),
// and the first gets a list of its own from step 10. The stages
// keep no state from segment to segment, so a run that shares a stage in
// one segment and not in the next makes what it would have made alone. A
// run with a hazard, or with CountOnly (no change log to copy), shares
// nothing.

// tailShare shares the stages of steps 11–18 among the runs of one
// segment at a time (begin starts a segment).
//
// A lead's input and output stay live until the last run of its key has
// been through the stage, which costs the collector more than running the
// stage again unless a run takes them: a run that led a stage in a
// segment without any run taking its output keeps nothing the next
// segment, nor the one after, but every seventh (the runs take the same
// paths through the steps from segment to segment, though not always);
// one whose output was taken lets it go, the next segment, once as many
// runs have taken it as did before.
type tailShare struct {
	waiting map[tailKey]int         // the runs of each key still to reach its stage
	leads   map[tailKey][]*tailLead // the runs that ran a stage, by key
	futile  map[tailRunStage]int    // by run and stage: the segments to lead without keeping anything
	takers  map[tailRunStage]int    // by run and stage: how many runs took what it kept the last time
}

// tailRunStage is a run at a stage of steps 11–18.
type tailRunStage struct {
	r     *Run
	stage int
}

// futileLeads is how many segments a run leads a stage without keeping
// anything after it kept what no run took.
const futileLeads = 6

// tailLead is what a run that ran a stage leaves the runs still to come.
type tailLead struct {
	who       tailRunStage
	in, out   []Message // the stage's input and output (no stage after writes into them)
	changes   []Change
	steps     []int
	hazard    string
	hazardCut int
	err       error
	takers    int // how many runs took it
}

func newTailShare() *tailShare {
	return &tailShare{waiting: map[tailKey]int{}, leads: map[tailKey][]*tailLead{}, futile: map[tailRunStage]int{},
		takers: map[tailRunStage]int{}}
}

// begin prepares the stages of a segment for the runs of active.
func (s *tailShare) begin(runs []*Run, active []int) {
	for key := range s.leads {
		s.retire(key)
	}
	clear(s.waiting)
	for _, k := range active {
		r := runs[k]
		if r.CountOnly {
			continue
		}
		for i := range tailStages {
			if st := &tailStages[i]; st.applies(r) {
				s.waiting[st.key(r)]++
			}
		}
	}
}

// retire lets go of the leads of key, noting which were futile and how
// many runs took the others'.
func (s *tailShare) retire(key tailKey) {
	for _, l := range s.leads[key] {
		if l.takers == 0 {
			s.futile[l.who] = futileLeads
		}
		s.takers[l.who] = l.takers
	}
	delete(s.leads, key)
}

// run runs stage st for r, which has reached it with msgs, or gives r the
// output of a run that ran it with the same key and messages. A nil s
// shares nothing.
func (s *tailShare) run(r *Run, st *tailStage, msgs []Message) ([]Message, error) {
	if s == nil || r.CountOnly || r.seg == nil {
		return st.run(r, msgs)
	}
	key := st.key(r)
	s.waiting[key]--
	if s.waiting[key] <= 0 {
		defer s.retire(key)
	}
	if r.seg.hazard != "" {
		return st.run(r, msgs)
	}
	for i, l := range s.leads[key] {
		if sameMessages(l.in, msgs) {
			for i := range l.changes {
				r.addChangeAt(l.changes[i], l.steps[i])
			}
			if l.hazard != "" {
				r.seg.failAt(l.hazard, l.hazardCut)
			}
			if l.takers++; l.takers == s.takers[l.who] { // the last run to take it, as before
				s.leads[key] = slices.Delete(s.leads[key], i, i+1)
			}
			return l.out, l.err
		}
	}
	who := tailRunStage{r, key.stage}
	if s.futile[who] > 0 {
		s.futile[who]--
		return st.run(r, msgs)
	}
	if s.waiting[key] <= 0 {
		return st.run(r, msgs)
	}
	logged := len(r.Changes)
	out, err := st.run(r, msgs)
	s.leads[key] = append(s.leads[key], &tailLead{who: who, in: msgs, out: out,
		changes: slices.Clone(r.Changes[logged:]), steps: slices.Clone(r.changeSteps[logged:]),
		hazard: r.seg.hazard, hazardCut: r.seg.hazardCut, err: err})
	return out, err
}
