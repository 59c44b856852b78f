package hygiene

import "github.com/openclaw-doctor/openclaw-doctor/internal/session"

// ReleasingOutput is a SessionOutput that can say when it is done with the
// messages of a segment (it writes them out, say, and keeps nothing of
// them): ReplaySession then lets the stream reuse the memory those
// messages, and the context messages they were made from, took.
type ReleasingOutput interface {
	SessionOutput
	// SegmentRelease is Segment, and calls release (from any goroutine)
	// once neither the output nor anything it handed them to uses msgs'
	// values any more. Never calling it is safe.
	SegmentRelease(k int, msgs []Message, release func()) error
}

// segmentEmitter returns the function a segmented attempt of runs (the
// output's runs batch[i]) hands each run's segments to. When the output
// is a ReleasingOutput and the attempt has one run, a written segment lets
// the stream reuse the memory of the context messages up to the segment's
// end: no rule carries a value of a segment past its end, so once the
// output is done with a segment, nothing of those messages is in use. (An
// attempt of several runs keeps them all: a segment is done only when every
// run has written it.)
func segmentEmitter(out SessionOutput, s *session.ContextStream, runs []*Run, batch []int) func(i int, msgs []Message) error {
	rel, ok := out.(ReleasingOutput)
	if !ok || len(batch) != 1 {
		return func(i int, msgs []Message) error { return out.Segment(batch[i], msgs) }
	}
	s.KeepForRelease()
	return func(i int, msgs []Message) error {
		end := runs[i].seg.end
		return rel.SegmentRelease(batch[i], msgs, func() { s.Release(end) })
	}
}
