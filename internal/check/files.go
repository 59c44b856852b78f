package check

import (
	"iter"
	"runtime"
)

// InOrder checks n files on up to GOMAXPROCS goroutines, checkFile(i)
// giving the result of the i-th, and yields the results in file order as
// soon as each one and all before it are done: a report streams in the
// order the files were named, however long any one takes. Stopping the
// iteration stops starting new files; those already started finish.
func InOrder(n int, checkFile func(i int) Result) iter.Seq[Result] {
	return func(yield func(Result) bool) {
		results := make([]chan Result, n)
		for i := range results {
			results[i] = make(chan Result, 1)
		}
		slots := make(chan struct{}, runtime.GOMAXPROCS(0))
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for i := range n {
				select {
				case slots <- struct{}{}:
				case <-stop:
					return
				}
				go func() {
					defer func() { <-slots }()
					results[i] <- checkFile(i)
				}()
			}
		}()
		for i := range n {
			if !yield(<-results[i]) {
				return
			}
		}
	}
}
