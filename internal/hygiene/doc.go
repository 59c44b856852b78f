// Package hygiene reproduces OpenClaw 2026.9.6's in-memory, provider-specific
// transcript hygiene: it resolves the transcript policy for a provider, api
// and model, and runs the replay rules over a session's context messages in
// OpenClaw's order, returning the message list OpenClaw would send and the
// changes each rule made.
//
// Every rule lives in its own file. The package never reads or writes files
// and never applies the on-disk repair (OpenClaw 2026.9.6 replays without
// it), so it does not import package repair.
package hygiene
