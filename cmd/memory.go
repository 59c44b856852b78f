package cmd

import "runtime/debug"

// readGCPercent is the collector's trigger while check and the segmented
// replay (of replay and check --provider) read: collect when the heap has
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
func collectSooner() (restore func()) { return collectAt(readGCPercent) }

// matrixGCPercent is the collector's trigger while check --provider all
// reads: collect when the heap has grown by half its live size. The
// matrix replays each segment for two targets at once (one per lane,
// hygiene/lanes.go): twice the garbage is made while a collection runs,
// and the live heap holds two targets' copies of a segment. Peak RSS of
// check --provider all on the 100 MiB session of small entries, 6 runs of
// each interleaved on a loaded 2-core machine (the peaks swing with how
// long a collection takes there): GOGC=75 96.4-103.5 MiB, GOGC=60
// 88.2-109.7 MiB, GOGC=50 85.1-98.4 MiB (4 of 6 under 90 MiB). GOGC=50
// costs about a tenth more instructions than GOGC=75 (valgrind's
// cachegrind on the first 20 MB of that session: 8.84 and 8.01 billion).
const matrixGCPercent = 50

// collectSoonerForMatrix sets matrixGCPercent; the returned function
// restores the previous setting.
func collectSoonerForMatrix() (restore func()) { return collectAt(matrixGCPercent) }

// collectAt sets the collector's trigger to percent; the returned
// function restores the previous setting.
func collectAt(percent int) (restore func()) {
	prev := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(prev) }
}

// loadGCPercent is the collector's trigger while replay loads a session:
// collect when the heap has grown by three times its live size. The load
// keeps almost all it allocates (records, tree, id index) until the branch
// is planned, and the stream then lets the transcript go: at Go's default
// pace the heap reaches twice the transcript before the first collection
// of the stream. Being proportional, the setting still bounds a load that
// does make garbage (long lines). Peak RSS of replay --provider anthropic
// --format json, two runs each on a loaded 2-core machine:
//
//	                               GOGC=100     300          collector off
//	200 MiB / 536k-line session:   180-184 MiB  138 MiB      141 MiB
//	100 MiB session, 4.8k lines:   41-46 MiB    51 MiB       59-62 MiB
//
// The CPU time of the first (user+sys, median of 5 interleaved runs) is
// the same with 100 and 300 (2.08 and 2.09 s).
const loadGCPercent = 300

// collectRarelyWhileLoading sets loadGCPercent; the returned function
// restores the previous setting (the collector then frees the transcript
// the replay's stream lets go).
func collectRarelyWhileLoading() (restore func()) {
	prev := debug.SetGCPercent(loadGCPercent)
	return func() { debug.SetGCPercent(prev) }
}
