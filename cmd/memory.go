package cmd

import (
	"math"
	"os"
	"runtime/debug"
)

// readGCPercent is the collector's trigger while check (without
// --provider) and the segmented replay read: collect when the heap has
// grown by three quarters of its live size rather than by all of it (Go's
// default, GOGC=100). Both keep little that lives long (check: ids and
// tree nodes; the replay: about one segment) and make garbage at the rate
// they read, so the default lets the heap reach twice what they keep.
// The setting is made once, when the reading starts, and restored after
// it; being proportional, it never makes the collector run without pause
// when a session keeps more than expected, as a fixed memory limit would.
//
// It replaces a governor that turned the proportional trigger off and
// re-set a memory limit 32 to 48 MiB above the live heap every 50 ms. Peak
// RSS and CPU time (user+sys) with /usr/bin/time, 3 interleaved runs each
// on a loaded 2-core machine (wall times there only measured the load):
//
//	check, 256 MiB session:        governor 25.6-25.9 MiB, 0.44-0.48 s
//	                               GOGC=75  26.0-26.1 MiB, 0.40-0.53 s
//	replay --provider anthropic --format json, 100 MiB of small entries:
//	                               governor 93.6-100.4 MiB, 1.73-2.20 s
//	                               GOGC=75  99.8-100.4 MiB, 1.82-2.18 s
//
// and, for the replay, the other plain settings tried: GOGC=100 peaked at
// 113-129 MiB; GOGC=50 at 86-98 MiB for about a fifth more CPU time; a
// fixed 64 MiB limit at 69-72 MiB for up to a quarter more CPU time, and it
// would thrash on a larger session.
const readGCPercent = 75

// collectSooner sets readGCPercent; the returned function restores the
// previous setting.
func collectSooner() (restore func()) {
	prev := debug.SetGCPercent(readGCPercent)
	return func() { debug.SetGCPercent(prev) }
}

// collectNoneWhileLoading turns the collector off while replay loads a
// session of size bytes (its records, tree and id index, which live until
// the branch is planned: little of what the load allocates is garbage
// before then), with a memory limit of twice the size plus 64 MiB as the
// bound should a session make more than expected; the returned function
// restores both settings, and the collector then frees the transcript the
// stream lets go at once. Peak RSS and CPU time (user+sys) of
// replay --provider anthropic --format json on the 200 MiB / 536k-line
// session, 5 interleaved runs on a loaded 2-core machine: with the
// collector on, 173 MiB and 2.24 CPU-s (median); off while loading,
// 141 MiB and 2.17 CPU-s.
// A session of unknown size loads with the collector on.
func collectNoneWhileLoading(size int64) (restore func()) {
	if size <= 0 || size > math.MaxInt64/4 {
		return func() {}
	}
	prevLimit := debug.SetMemoryLimit(2*size + 64<<20)
	prevPercent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}

// fileSize is f's size, or 0 when it cannot tell.
func fileSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}
