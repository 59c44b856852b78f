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
func collectSooner() (restore func()) {
	prev := debug.SetGCPercent(readGCPercent)
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
