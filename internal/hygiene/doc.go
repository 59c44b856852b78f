// Package hygiene reproduces OpenClaw 2026.9.6's in-memory, provider-specific
// transcript hygiene: it resolves the transcript policy for a provider, api
// and model, and runs the replay rules over a session's context messages in
// OpenClaw's order, returning the message list OpenClaw would send and the
// changes each rule made.
//
// ReplaySession is how a session file is replayed, by `replay` and `check
// --provider` alike: segment by segment over the context stream of package
// session (stream.go), memory bounded by a segment per target and what the
// rules carry from segment to segment (the tool-call ids seen so far), again
// without a cut that met a hazard, and whole wherever the segmented replay
// cannot vouch for its result; targets replayed over one read share the
// steps their policies agree on (shared_steps.go). Whichever way it goes,
// each target gets exactly what ReplayContext gives for the whole branch;
// what is not guaranteed is the memory of a session replayed whole.
//
// Every rule lives in its own file, named after its rule id:
// assistant/no-reply is in assistant_no_reply.go, turns/merge-user in
// turns_merge_user.go, responses/call-id in responses_call_id.go,
// usage/snapshot in usage.go. A step with several rules has a small driver
// that runs them in OpenClaw's order and holds what they share
// (assistant_normalize.go for step 3, thinking_signatures.go for step 5,
// responses.go for the Responses replay, turns.go for step 17);
// pipeline.go runs the steps. A family of rule ids that name the outcomes
// of one pass over the same blocks, where one decision picks the id, is one
// rule and stays in one file: images/* (images.go), content/*
// (blank_text.go), tool-result-pairing/* (pairing.go) and
// tool-call-inputs/* (tool_call_inputs.go). JavaScript string semantics the
// rules share are in jsstrings.go.
//
// The package never opens, writes or renders files (ReplaySession reads
// the session through the io.ReaderAt its caller opened) and never applies
// the on-disk repair (OpenClaw 2026.9.6 replays without it), so it does not
// import package repair.
package hygiene
