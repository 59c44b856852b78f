// Package hygiene reproduces OpenClaw 2026.9.6's in-memory, provider-specific
// transcript hygiene: it resolves the transcript policy for a provider, api
// and model, and runs the replay rules over a session's context messages in
// OpenClaw's order, returning the message list OpenClaw would send and the
// changes each rule made.
//
// ReplaySession is how a session file is replayed, by `replay` and `check
// --provider` alike: segment by segment over the context stream of package
// session (stream.go), memory bounded by a segment per target, again
// without a cut that met a hazard, and whole wherever the segmented replay
// cannot vouch for its result. Whichever way it goes, each target gets
// exactly what ReplayContext gives for the whole branch; what is not
// guaranteed is the memory of a session replayed whole.
//
// Every rule lives in its own file. The package never opens, writes or
// renders files (ReplaySession reads the session through the io.ReaderAt
// its caller opened) and never applies the on-disk repair (OpenClaw
// 2026.9.6 replays without it), so it does not import package repair.
package hygiene
