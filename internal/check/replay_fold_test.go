package check

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
)

// TestChangeFoldBatches: folding a replay's changes a segment at a time,
// each batch in the order the rules recorded them with its step keys,
// gives the findings (one line per rule and maxLinesPerRule) and the
// matrix row of folding the whole log at once: the batches' changes
// stably sorted by step key. The batches are generated as segments make
// them: each with lines of its own, and changes on line 0 (synthetic
// messages) and refusals in any.
func TestChangeFoldBatches(t *testing.T) {
	rules := []string{"tool-call-ids/strict", "tool-result-pairing/synthetic", "usage/snapshot", "responses/invariant", "thinking/drop", "future/rule"}
	nt := NamedTarget{Name: "n", Target: hygiene.Target{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "m"}}
	opts := []ProviderOptions{{}, {Skip: []ID{ReplayID("thinking/drop")}}, {Only: []ID{ReplayID("usage/snapshot"), ReplayID("responses/invariant")}}}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 13))
		var batches [][]hygiene.Change
		var batchSteps [][]int
		var log []hygiene.Change
		var logSteps []int
		for b := range 1 + rng.IntN(6) {
			var changes []hygiene.Change
			var steps []int
			for range rng.IntN(12) {
				c := hygiene.Change{Rule: rules[rng.IntN(len(rules))], Detail: fmt.Sprint("d", rng.IntN(5))}
				if rng.IntN(4) > 0 {
					c.Line = 100*b + 1 + rng.IntN(6)
					c.EntryID = fmt.Sprint("e", c.Line, "-", rng.IntN(2))
				}
				if rng.IntN(10) == 0 {
					c.Rejects, c.Line, c.EntryID = true, 0, ""
					if rng.IntN(2) == 0 {
						c.CauseLine = 100*b + 1 + rng.IntN(6)
					}
				}
				changes = append(changes, c)
				steps = append(steps, []int{1, 3, 5, 9, 9<<4 | 1, 14, 18}[rng.IntN(7)])
			}
			batches, batchSteps = append(batches, changes), append(batchSteps, steps)
			log, logSteps = append(log, changes...), append(logSteps, steps...)
		}
		order := make([]int, len(log))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return logSteps[a] - logSteps[b] })
		sorted := make([]hygiene.Change, len(log))
		for i, j := range order {
			sorted[i] = log[j]
		}
		for _, perRule := range []int{1, maxLinesPerRule} {
			whole, batched := newChangeFold(perRule), newChangeFold(perRule)
			whole.add(sorted, nil)
			for b := range batches {
				batched.add(batches[b], batchSteps[b])
			}
			for _, o := range opts {
				want, got := whole.findings("f", nt.Name, nt.Target, &o), batched.findings("f", nt.Name, nt.Target, &o)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d, %d per rule, %+v: findings\n got %v\nwant %v", seed, perRule, o, got, want)
				}
				if got, want := batched.row(nt, &o), whole.row(nt, &o); !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d, %+v: row\n got %+v\nwant %+v", seed, o, got, want)
				}
			}
		}
	}
}
