package hygiene

import (
	"runtime"
	"slices"
	"sync"
)

// Lanes: the runs of a segmented replay on more than one goroutine.
//
// `check --provider all` replays each segment for a dozen targets, one
// after another, while the stream parses the next chunk on a goroutine of
// its own; the rules of a dozen targets leave that goroutine mostly idle,
// and a second core with it. The runs are therefore split into lanes (as
// many as laneLimit allows), fixed for the whole read, and the lanes
// replay each segment at the same time, each on a goroutine.
// Steps 1 and 3 edit the segment's values in place and read no policy:
// they run once, before the lanes part. From step 4 on no rule edits a
// value it is given (sharedFrom): the lanes share the segment's values,
// each with a list of its own. Each lane keeps what its runs share among
// themselves and carry from segment to segment: the id states of step 10
// (a run shares its with twins of its own lane only), the stages of steps
// 11–18 and the pairing room. So a lane's runs make what they would make
// in a lane of their own, which is what each would make alone. The id
// table, which only numbers ids and stores their bytes, serves every lane
// (it takes a lock): the ids handed out are stored once.
//
// A segment ends when every lane is done with it: its values, and the
// memory the stream parsed them into, stay in use until then, and the
// next segment is read only then. The output is called by one lane at a
// time, each run's calls in their order.

// laneLimit is the most lanes a segmented replay uses: one per processor
// Go runs on, and at most two. Each lane costs the steps its runs no
// longer share with another lane's runs, and keeps one run's copies of
// the segment live.
var laneLimit = func() int { return min(runtime.GOMAXPROCS(0), 2) } // a variable for tests

// lane is one goroutine's share of a segmented replay's runs.
type lane struct {
	runs []int // the runs of the lane, in the order the prefix steps part them
	in   []bool
	room *pairingRoom // the pairing room its runs take turns with
	tail *tailShare
	step *idRewrites // the current segment's step 10
}

// newLanes splits runs into lanes: as many as laneLimit and the runs
// allow. The runs are ordered as the prefix steps from
// step 4 on part them (runs that share more steps next to each other) and
// cut into lanes of about equal numbers of runs, each cut where the runs
// on its two sides share the fewest steps.
func newLanes(runs []*Run) []*lane {
	n := max(1, min(laneLimit(), len(runs)))
	order, shared := prefixOrder(runs)
	cuts := []int{0}
	for j := 1; j < n; j++ {
		ideal := j * len(order) / n
		best := ideal
		for c := max(ideal-1, cuts[j-1]+1); c <= min(ideal+1, len(order)-(n-j)); c++ {
			if shared[c] < shared[best] {
				best = c
			}
		}
		cuts = append(cuts, best)
	}
	cuts = append(cuts, len(order))
	lanes := make([]*lane, n)
	for j := range lanes {
		l := &lane{runs: order[cuts[j]:cuts[j+1]], in: make([]bool, len(runs)),
			room: &pairingRoom{}, tail: newTailShare()}
		for _, k := range l.runs {
			l.in[k] = true
		}
		lanes[j] = l
	}
	return lanes
}

// prefixOrder returns the runs in the order the prefix steps from step 4
// on part them, and for each position p, how many of those steps the run
// at p shares with the run before it.
func prefixOrder(runs []*Run) (order, shared []int) {
	all := make([]int, len(runs))
	for k := range all {
		all[k] = k
	}
	var walk func(group []int, i, depth int)
	walk = func(group []int, i, depth int) {
		if i == len(prefixSteps) {
			for n, k := range group {
				order, shared = append(order, k), append(shared, depth)
				if n == 0 {
					depth = len(prefixSteps) - sharedFrom // the rest share every step
				}
			}
			return
		}
		for j, part := range splitByStepKey(runs, group, prefixSteps[i].n) {
			if j > 0 {
				depth = i - sharedFrom // the steps before i
			}
			walk(part, i+1, depth)
		}
	}
	walk(all, sharedFrom, 0)
	return order, shared
}

// beginSegment prepares each lane's step 10 and stages of steps 11–18 for
// the runs of active.
func beginSegment(lanes []*lane, runs []*Run, active []int) {
	for _, l := range lanes {
		mine := slices.DeleteFunc(slices.Clone(active), func(k int) bool { return !l.in[k] })
		l.step = newIDRewrites(runs, mine)
		l.tail.begin(runs, mine)
	}
}

// runLanes hands the runs of group, which have reached step 4 with msgs,
// to their lanes: do runs each lane's part of them (the runs in group's
// order), the lanes at the same time, and returns when all are done, with
// the error of the first lane that had one. Every lane but the last gets
// its own copy of the list; the last consumes msgs.
func runLanes(lanes []*lane, group []int, msgs []Message, do func(l *lane, part []int, msgs []Message) error) error {
	parts := make([][]int, len(lanes))
	var busy []int
	for j, l := range lanes {
		parts[j] = slices.DeleteFunc(slices.Clone(group), func(k int) bool { return !l.in[k] })
		if len(parts[j]) > 0 {
			busy = append(busy, j)
		}
	}
	if len(busy) == 1 {
		j := busy[0]
		return do(lanes[j], parts[j], msgs)
	}
	errs := make([]error, len(lanes))
	var wg sync.WaitGroup
	for _, j := range busy[:len(busy)-1] {
		own := slices.Clone(msgs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[j] = do(lanes[j], parts[j], own)
		}()
	}
	last := busy[len(busy)-1]
	errs[last] = do(lanes[last], parts[last], msgs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// serialized returns emit and changes as the lanes call them: one call at
// a time (each run's calls stay in order, as its lane makes them).
func serialized(lanes []*lane, emit func(k int, msgs []Message) error, changes changeSink) (func(k int, msgs []Message) error, changeSink) {
	if len(lanes) < 2 {
		return emit, changes
	}
	var mu sync.Mutex
	lockedEmit := func(k int, msgs []Message) error {
		mu.Lock()
		defer mu.Unlock()
		return emit(k, msgs)
	}
	if changes == nil {
		return lockedEmit, nil
	}
	return lockedEmit, func(k int, cs []Change, steps []int) error {
		mu.Lock()
		defer mu.Unlock()
		return changes(k, cs, steps)
	}
}
