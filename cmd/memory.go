package cmd

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Memory governor for long reads. Go's default collector lets the heap
// grow to twice its live size before collecting: a check that keeps 40 MB
// of ids and tree nodes would peak near 100 MB, and one that keeps 5 MB
// would collect after every 5 MB of garbage. While it runs, the governor
// turns the proportional trigger off and keeps a soft memory limit a fixed
// headroom above the live heap instead: peak memory follows what is kept
// plus memoryHeadroom, and small heaps collect less often. The limit tracks
// the live heap, so a run that must keep more never thrashes against it.
const (
	memoryHeadroom    = 16 << 20 // garbage allowed between collections (check makes little: ~50 MB per GiB read)
	memoryRuntimeCost = 16 << 20 // stacks, runtime metadata, free spans
	memoryTick        = 50 * time.Millisecond
)

// governMemory starts the governor with memoryHeadroom; the returned
// function stops it and restores the previous limit.
func governMemory() (stop func()) { return governMemoryWith(memoryHeadroom) }

// governMemoryWith starts the governor with the given headroom.
func governMemoryWith(headroom uint64) (stop func()) {
	prev := debug.SetMemoryLimit(-1)
	prevPercent := debug.SetGCPercent(-1)
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(memoryTick)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				live := sample[0].Value.Uint64()
				debug.SetMemoryLimit(int64(min(live+headroom+memoryRuntimeCost, math.MaxInt64)))
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prev)
	}
}
