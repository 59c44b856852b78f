package hygiene

import (
	"fmt"
	"testing"
)

// TestCallQueues checks first-in-first-out order per id, below and above
// the size where the queues switch to a map.
func TestCallQueues(t *testing.T) {
	for _, n := range []int{1, 5, callQueuesMapAt - 1, callQueuesMapAt, 3 * callQueuesMapAt} {
		var q callQueues
		occ := make([]callOccurrence, 2*n)
		for i := 0; i < n; i++ { // two occurrences per id, interleaved
			q.push(fmt.Sprint("id", i), &occ[2*i])
		}
		for i := 0; i < n; i++ {
			q.push(fmt.Sprint("id", i), &occ[2*i+1])
		}
		for i := 0; i < n; i++ {
			id := fmt.Sprint("id", i)
			got := q.get(id)
			if len(got) != 2 || got[0] != &occ[2*i] || got[1] != &occ[2*i+1] {
				t.Fatalf("n=%d: queue of %s is %v", n, id, got)
			}
			q.set(id, got[1:])
			if g := q.get(id); len(g) != 1 || g[0] != &occ[2*i+1] {
				t.Fatalf("n=%d: after one pop %s holds %v", n, id, g)
			}
		}
		if q.get("absent") != nil || q.get("") != nil {
			t.Fatalf("n=%d: an absent id has a queue", n)
		}
	}
}
