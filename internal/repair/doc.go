// Package repair reproduces OpenClaw 2026.7.35's on-disk session repair
// (repairSessionFileIfNeeded, docs: docs/fix.md) as a streaming, two-pass
// process, and replaces the file safely.
//
// # What it guarantees
//
//   - The same outcome as OpenClaw on the same file: the same lines dropped
//     (unparseable lines, message entries without an object message and a
//     non-blank role), the same rewrites (empty assistant error turns, blank
//     user text, corrupted images), the same synthetic "aborted" tool
//     results (code-mode turns; the message tool before a delivery mirror),
//     the same counts, early-exit reasons and summary message. Rewritten and
//     inserted entries are serialized as JSON.stringify writes them.
//   - Lossless for everything else: a line no rule changes keeps its bytes
//     (only invalid UTF-8 is replaced, as the WHATWG decoder does, and a line
//     holding a number beyond float64's range is written as OpenClaw writes
//     it, with null). Line ends become "\n", blank lines go, the file ends
//     with a newline.
//   - A file that needs nothing, or that OpenClaw would refuse (invalid
//     session header, empty), is not written at all.
//   - At most two sequential passes over the input ([Analyze] plans,
//     [WriteRepaired] writes), with memory bounded by the longest line, 16
//     bytes per tool result and the tool calls still waiting for a result.
//   - [RepairFile] holds OpenClaw's write lock (<file>.lock, [AcquireLock])
//     from before the first read until the file is replaced, and replaces
//     through [Replace]: temp file, hard-linked backup, change detection,
//     rename, directory fsync (see docs/safety.md).
//   - With [Options.LostFound], every line a repair in place drops or
//     rewrites is first saved, with its bytes and physical line, in a
//     lost-and-found record outside every agents/ folder ([LostFoundDir]),
//     written as a stream and fsynced before the rename; when it cannot be
//     written the file is not repaired. A dry run reports the live lock a
//     repair would be refused by, without taking it.
//
// # How
//
// [Classifier] judges each line. jsonl's validating [jsonl.Scanner], which
// accepts exactly what JSON.parse accepts, notes in the same pass the
// handful of fields the rules read ([Envelope]); lines it cannot prove
// "kept" take a full parse and the reference rules (rules.go). On large
// inputs lines are judged on every CPU with jsonl's batch pipeline
// ([jsonl.RunBatches]) and applied in line order, with the sequential
// result. [Verdict] is the per-line answer (shared with
// `check`, which reports one finding for everything fix would do) and
// [Plan] the whole-file one.
//
// # What it does not do
//
// It does not implement OpenClaw's superseded behaviours (trimming trailing
// assistant turns, keeping every backup, fork pruning), its in-process
// repair cache, or any replay-time rule (those live in package hygiene).
// It does not read SQLite transcripts.
package repair
