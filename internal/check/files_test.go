package check

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestInOrder: results come in file order whatever order the files finish
// in, and stopping the iteration starts no further file.
func TestInOrder(t *testing.T) {
	for _, n := range []int{0, 1, 7, 40} {
		var got []string
		for res := range InOrder(n, func(i int) Result {
			time.Sleep(time.Duration((n-i)%5) * time.Millisecond) // early files finish last
			return Result{Path: fmt.Sprint(i)}
		}) {
			got = append(got, res.Path)
		}
		if len(got) != n {
			t.Fatalf("n=%d: %d results", n, len(got))
		}
		for i, p := range got {
			if p != fmt.Sprint(i) {
				t.Fatalf("n=%d: result %d is file %s", n, i, p)
			}
		}
	}
	var started atomic.Int32
	for range InOrder(1000, func(i int) Result {
		started.Add(1)
		time.Sleep(time.Millisecond)
		return Result{}
	}) {
		break
	}
	time.Sleep(20 * time.Millisecond)
	if s := started.Load(); s >= 1000 {
		t.Fatalf("stopping after the first result still started all %d files", s)
	}
}
