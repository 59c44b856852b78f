// Package session models OpenClaw session transcripts: the header, the entry
// envelope and entry types, message roles and content blocks, the
// id/parentId tree, the active leaf and branch, and the context messages
// built from the branch, as OpenClaw's session loader does
// (the README's "Faithfulness" section and docs/replay.md describe how
// closely).
//
// It reads values parsed by package jsonl and never writes files.
//
// # Loading for replay
//
// [ReadContext] follows OpenClaw
// 2026.9.6, the loading `replay` reproduces: parseSessionEntries (the whole
// file trimmed, split on "\n", blank lines skipped, JSON.parse failures
// counted), migrateSessionEntries, then SessionManager.fromEntries, whose
// entry codec sorts lines into entries and opaque records and whose
// navigation picks the leaf, and buildSessionContext over the branch. No
// header is needed. Guarantees:
//
//   - The context messages equal OpenClaw's, value and key order, on every
//     conformance case and every case under testdata/cases (goldens recorded
//     from OpenClaw by testdata/gen.sh).
//   - Where OpenClaw's loader throws (a null line before the header, a bare
//     number in a v1 file, a summary entry without a valid timestamp), the
//     result is a *[LoaderError] carrying the same JavaScript error text.
//   - The first pass keeps under 200 bytes per line and decodes no message:
//     one validating scan per line (jsonl's [jsonl.Scanner], the scanner the
//     repair classifier uses too) gives JSON.parse's verdict and notes the
//     envelope and the few members the codec's schemas test. The second
//     pass parses only the lines the context needs, read back by offset.
//   - Nothing is parsed twice into values, and the file's bytes are not
//     kept: the context's values hold copies of their strings (common keys
//     and values shared), and a message entry keeps only its message.
//     Memory is therefore about the size of the context's values (on
//     transcripts of small entries, 1.5 to 2 times the file), never the file
//     plus its values.
//   - On large inputs both passes use several CPUs (the first runs on
//     jsonl's batch pipeline, [jsonl.RunBatches]: batches of lines judged by
//     workers, verdicts applied in file order; the second parses contiguous
//     parts); the result is the sequential one. The navigation of a file
//     that needs no migration is built while its lines are still judged.
//
// Not done: ids that migrations draw are deterministic UUID-shaped strings,
// not random ones; timestamps are parsed in the ISO-8601 forms V8 accepts
// ([ParseDateMillis]), not in V8's legacy free-text formats.
//
// # Navigation for checkers
//
// [Tree] is OpenClaw's navigation alone, fed one [Node] per line (under 100
// bytes each), so a streaming checker can find the active leaf and branch,
// duplicate ids, missing parents and what a cut costs ([Tree.BranchCut])
// without holding the file (package check feeds it from its own scan).
package session
