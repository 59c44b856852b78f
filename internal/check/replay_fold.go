package check

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
)

// changeFold folds one target's replay changes into findings and a matrix
// row as they come, a segment at a time (hygiene.ChangeSink) or as one
// whole log, without keeping the log: per rule it keeps counts, the set of
// lines changed and the changes of the first lines it shows (perRule), so
// that `check --provider all` can replay every target over one read of the
// session with no target's log in memory.
//
// What it makes equals what the whole change log gives, grouped by rule in
// order of first appearance and within a rule by line: the log is the
// stable sort of the batches' changes by their step keys, so a change's
// place in it is its key, then its arrival. Every change of a line but line
// 0 comes in one batch (a line is one message, which one segment holds);
// line 0 (synthetic messages) may come in any, and its changes are all kept.
type changeFold struct {
	perRule int // the lines shown per rule
	rules   map[string]*ruleFold
	arrived int // changes received so far
}

func newChangeFold(perRule int) *changeFold {
	return &changeFold{perRule: perRule, rules: map[string]*ruleFold{}}
}

// logKey is a change's place in the whole change log.
type logKey struct{ step, arrival int }

func (a logKey) before(b logKey) bool {
	return a.step < b.step || a.step == b.step && a.arrival < b.arrival
}

// keyedChange is a change and its place in the log.
type keyedChange struct {
	key logKey
	c   hygiene.Change
}

// lineFold is the changes of one rule on one line, in log order; key is
// the first's.
type lineFold struct {
	line    int
	key     logKey
	changes []keyedChange
}

// ruleFold is what the fold keeps of one rule.
type ruleFold struct {
	rule         string
	first        keyedChange // the rule's first change
	firstKept    logKey      // its first change that is not a refusal (kept > 0)
	firstRefusal keyedChange // its first refusal (refusals > 0)
	total        int
	refusals     int
	lines        lineSet    // every line changed
	shown        []lineFold // the first perRule lines but line 0, in log order
	lineZero     []keyedChange
}

// add folds a batch of changes: a segment's, in the order the rules
// recorded them, with their step keys (steps nil: all one step, the
// changes in log order).
func (f *changeFold) add(changes []hygiene.Change, steps []int) {
	order := make([]int, len(changes))
	for i := range order {
		order[i] = i
	}
	if steps != nil {
		slices.SortStableFunc(order, func(a, b int) int { return steps[a] - steps[b] })
	}
	batch := map[*ruleFold][]lineFold{} // the batch's first lines of each rule, in log order
	for _, i := range order {
		kc := keyedChange{key: logKey{arrival: f.arrived + i}, c: changes[i]}
		if steps != nil {
			kc.key.step = steps[i]
		}
		g := f.rule(kc)
		line, _ := findingLine(kc.c)
		g.lines.add(line)
		if line == 0 {
			g.lineZero = append(g.lineZero, kc)
			continue
		}
		lines := batch[g]
		at := slices.IndexFunc(lines, func(l lineFold) bool { return l.line == line })
		switch {
		case at >= 0:
			lines[at].changes = append(lines[at].changes, kc)
		case len(lines) < f.perRule:
			batch[g] = append(lines, lineFold{line: line, key: kc.key, changes: []keyedChange{kc}})
		}
	}
	f.arrived += len(changes)
	for g, lines := range batch {
		g.shown = firstLines(append(g.shown, lines...), f.perRule)
	}
}

// rule counts kc (taken in log order within its batch) in its rule's fold.
func (f *changeFold) rule(kc keyedChange) *ruleFold {
	g := f.rules[kc.c.Rule]
	if g == nil {
		g = &ruleFold{rule: kc.c.Rule, first: kc}
		f.rules[kc.c.Rule] = g
	} else if kc.key.before(g.first.key) {
		g.first = kc
	}
	g.total++
	if kc.c.Rejects {
		if g.refusals == 0 || kc.key.before(g.firstRefusal.key) {
			g.firstRefusal = kc
		}
		g.refusals++
	} else if g.total-g.refusals == 1 || kc.key.before(g.firstKept) {
		g.firstKept = kc.key
	}
	return g
}

// firstLines is the first n of lines in log order.
func firstLines(lines []lineFold, n int) []lineFold {
	slices.SortStableFunc(lines, func(a, b lineFold) int { return compareKeys(a.key, b.key) })
	return lines[:min(n, len(lines))]
}

func compareKeys(a, b logKey) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}

// findingLine is the line and detail a change is reported with: a refusal
// at the entry causing it.
func findingLine(c hygiene.Change) (int, string) {
	if c.Rejects && c.Line == 0 && c.CauseLine > 0 {
		return c.CauseLine, fmt.Sprintf("%s (the message from line %d)", c.Detail, c.CauseLine)
	}
	return c.Line, c.Detail
}

// byFirst is the rules in order of first appearance in the log.
func (f *changeFold) byFirst() []*ruleFold {
	rules := make([]*ruleFold, 0, len(f.rules))
	for _, g := range f.rules {
		rules = append(rules, g)
	}
	slices.SortFunc(rules, func(a, b *ruleFold) int { return compareKeys(a.first.key, b.first.key) })
	return rules
}

// shownLines is the rule's first lines in log order, line 0 among them,
// each with its changes' details counted.
func (g *ruleFold) shownLines(n int) []lineChanges {
	lines := slices.Clone(g.shown)
	if len(g.lineZero) > 0 {
		zero := slices.Clone(g.lineZero)
		slices.SortStableFunc(zero, func(a, b keyedChange) int { return compareKeys(a.key, b.key) })
		lines = firstLines(append(lines, lineFold{key: zero[0].key, changes: zero}), n)
	}
	out := make([]lineChanges, len(lines))
	for i, l := range lines {
		slices.SortStableFunc(l.changes, func(a, b keyedChange) int { return compareKeys(a.key, b.key) })
		out[i] = lineChanges{line: l.line, entryID: l.changes[0].c.EntryID}
		for _, kc := range l.changes {
			_, detail := findingLine(kc.c)
			out[i].add(detail)
		}
	}
	return out
}

// findings are the fold's findings of path for the target named name
// (unnamed: "") t, sorted by line.
func (f *changeFold) findings(path, name string, t hygiene.Target, o *ProviderOptions) []Finding {
	target := describeTarget(name, t)
	var out []Finding
	for _, g := range f.byFirst() {
		c := replayRuleCheck(g.rule)
		if !o.Enabled(c.ID) {
			continue
		}
		sev, hint := c.Severity, findingHint(c, t)
		if g.refusals > 0 {
			sev = Error
		}
		shown := g.shownLines(f.perRule)
		counted := 0
		for i, l := range shown {
			msg := "for " + target + ": " + l.text()
			for _, n := range l.counts {
				counted += n
			}
			if more := g.lines.count() - len(shown); i == len(shown)-1 && more > 0 {
				msg += fmt.Sprintf("; and %s of this rule in %s, up to line %d",
					countNoun(g.total-counted, "more change", "more changes"), countNoun(more, "more place", "more places"), g.lines.lastBut(shown))
			}
			out = append(out, Finding{ID: c.ID, Severity: sev, Path: path, Line: l.line, EntryID: l.entryID, Message: msg, Hint: hint})
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Line - b.Line })
	return out
}

// row summarises the fold as nt's matrix row.
func (f *changeFold) row(nt NamedTarget, o *ProviderOptions) MatrixRow {
	row := MatrixRow{Name: nt.Name, Target: nt.Target}
	var reason *keyedChange
	var rewriting []*ruleFold
	for _, g := range f.byFirst() {
		check := replayRuleCheck(g.rule)
		if !o.Enabled(check.ID) {
			continue
		}
		refusal, kept := &g.firstRefusal, g.total-g.refusals
		if check.Severity == Error {
			refusal, kept = &g.first, 0
		}
		if kept < g.total {
			row.Verdict = Rejects
			if reason == nil || refusal.key.before(reason.key) {
				reason = refusal
			}
		}
		switch {
		case kept == 0:
		case check.Severity == Warning:
			row.Rewrites += kept
			rewriting = append(rewriting, g)
			row.Verdict = max(row.Verdict, Rewrites)
		default:
			row.Metadata += kept
		}
	}
	slices.SortFunc(rewriting, func(a, b *ruleFold) int { return compareKeys(a.firstKept, b.firstKept) })
	for _, g := range rewriting {
		row.Rules = append(row.Rules, g.rule)
	}
	if reason != nil {
		row.Reason = reason.c.Detail
		if reason.c.CauseLine > 0 {
			row.Reason += fmt.Sprintf(" (the message from line %d)", reason.c.CauseLine)
		}
	}
	return row
}

// lineSet is a set of line numbers (a bit each: a rule that changes every
// line of a million-line session keeps 125 KiB).
type lineSet []uint64

func (s *lineSet) add(line int) {
	if line < 0 {
		line = 0 // (lines are never negative)
	}
	w := line / 64
	if w >= len(*s) {
		*s = append(*s, make([]uint64, w+1-len(*s))...)
	}
	(*s)[w] |= 1 << (line % 64)
}

func (s lineSet) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// lastBut is the last line of the set that shown does not hold (0: none).
func (s lineSet) lastBut(shown []lineChanges) int {
	for w := len(s) - 1; w >= 0; w-- {
		for word := s[w]; word != 0; {
			line := w*64 + 63 - bits.LeadingZeros64(word)
			if !slices.ContainsFunc(shown, func(l lineChanges) bool { return l.line == line }) {
				return line
			}
			word &^= 1 << (line % 64)
		}
	}
	return 0
}
