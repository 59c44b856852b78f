// Package jsonl reads session transcripts line by line and judges and
// rewrites each line's JSON the way OpenClaw's JavaScript does.
//
// Guarantees:
//
//   - [Reader] yields every physical line with its 1-based number, byte
//     offset and original bytes: memory is proportional to the longest
//     line, never to the file, and a line longer than a batch is read into
//     one buffer of its size when the input can be read ahead (a file), or
//     a doubling one whose outgrown buffers are handed back (a pipe). A
//     line longer than [MaxLineBytes] (512 MiB, about the longest string
//     OpenClaw can hold) stops the reading with a *[LineTooLongError]
//     naming it, in [Reader] and [RunBatches] alike.
//   - [Parse] accepts exactly what JavaScript's JSON.parse accepts after the
//     file was decoded as UTF-8 (invalid bytes inside strings become U+FFFD,
//     lone surrogate escapes survive, the last duplicate key wins, numbers
//     that overflow float64 are kept, nesting depth is unlimited).
//   - A [Parser] reused across lines keeps its working memory, so parsing a
//     file allocates little beyond the values themselves; a line of 4 GiB or
//     more is an error (V8 cannot hold such a string either).
//   - [Scanner] walks a line without building values and accepts exactly
//     what [Parse] accepts; its callers note the members they need as
//     [Field]s (the repair classifier's and the session loader's envelopes
//     are read this way, one scan per line).
//   - [RunBatches] runs per-line work on several goroutines over batches
//     of whole lines, split exactly as [Reader] splits them, and hands the
//     batches to one consumer in input order, so the result does not
//     depend on the number of workers. The batches read ahead are
//     bounded in number and in bytes, so memory follows a few batches and
//     the longest lines in flight, not the input.
//   - [AppendJSON] writes a value the way JSON.stringify writes it (key order,
//     escaping, number form), so rewritten lines read as OpenClaw would write
//     them. Strings the parser read without escapes, integers it read in
//     JSON.stringify's form and its interned keys are copied as they are,
//     without the search for bytes to escape or the number's conversion,
//     which would give the same bytes.
//
// It does not decide what a line means: that is the session package's job.
package jsonl
