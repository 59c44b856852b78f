// Package check finds what is wrong with an OpenClaw session transcript
// without changing it: one finding, with a stable check id ([Catalogue]),
// a severity, the physical line and a fix hint, per problem.
//
// Guarantees:
//
//   - The findings of checks that fix repairs come from the repair
//     classifier itself (package repair), so a file has a [Finding.Fixable]
//     finding exactly when `openclaw-doctor fix` would rewrite it; fix's
//     early exits (no header, nothing surviving, unreadable) are report-only
//     errors.
//   - Line numbers are physical: 1-based, blank lines counted.
//   - One pass, one scan per line: workers run the repair classifier's
//     per-line judge ([repair.LineJudge]), whose validating scan
//     ([jsonl.Scanner]) also notes the few fields the checks need
//     ([repair.Envelope]); an ordered pass
//     applies the classifier's file state, the navigation tree (duplicate
//     ids, missing parents, the cut active branch) and the tool-call
//     pairing. Lines are read once, in batches of 512 KiB ([jsonl.RunBatches]),
//     with read() into reused buffers: the pass copies what it keeps of a
//     line. Memory
//     is bounded by a few batches, the longest line, and what the tree and
//     the pairing keep per entry (about 40 bytes with 8-byte ids); never by
//     the file. The findings are held until the end of the file (they are
//     sorted there), unless [Options.SpillAbove] bounds them: past it they
//     wait in an unlinked temp file in sorted runs, merged back in the same
//     order by [Result.All].
//   - Inline and parallel runs report the same findings in the same order.
//   - A store session's rows read as stored ([Options.Rows]) give the
//     findings of its export: a line whose export could be judged
//     otherwise is judged again as that line, and a row JSON.parse rejects
//     ends the input there, as it ends the export.
//
// What only a provider-specific replay reveals (tool id formats, role
// order, Gemini thought signatures) is reported only when a target is given
// ([FindReplayChanges], `check --provider P|all`): one check id per replay
// rule, from package hygiene's change log. The line pass never depends on a
// provider. The pairing follows the strict providers' rule in file order (results
// right after their assistant turn), not the active branch.
package check
