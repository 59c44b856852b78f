package repair

// The first pass over a large file spreads the per-line work (scanning,
// the occasional full parse) over the CPUs on jsonl's batch pipeline:
// workers judge batches of lines in any order, and the classifier's state
// (header, result ids, pending calls) is applied in line order by one
// goroutine. The plan is identical to the sequential one.

import (
	"io"
	"runtime"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// analyzeParallel is [Analyze] with workers goroutines judging lines (1:
// on the calling goroutine).
func analyzeParallel(r io.Reader, workers int, onVerdict func(Verdict)) (Plan, error) {
	c := NewClassifier()
	err := jsonl.RunBatches(r, jsonl.Pipeline[[]LineFacts]{
		Workers:   workers,
		BatchSize: jsonl.ScanBatchSize,
		NewWorker: func() func(*jsonl.Batch[[]LineFacts]) {
			var j LineJudge
			return func(b *jsonl.Batch[[]LineFacts]) { b.Out = judgeLines(&j, b, b.Out) }
		},
		Consume: func(b *jsonl.Batch[[]LineFacts]) error {
			for i := range b.Out {
				v := c.Apply(&b.Out[i])
				if onVerdict != nil && (v.Action != Keep || v.Reserialize) {
					onVerdict(v)
				}
			}
			return nil
		},
	})
	if err != nil {
		return Plan{}, err
	}
	return c.Finish(), nil
}

// judgeLines judges every line of b into facts (reused: its old entries
// are overwritten, dropping their references to rewritten values).
func judgeLines[T any](j *LineJudge, b *jsonl.Batch[T], facts []LineFacts) []LineFacts {
	clear(facts)
	facts = facts[:0]
	for l := range b.Lines {
		facts = append(facts, LineFacts{})
		j.judge(l, &facts[len(facts)-1]) // facts never alias the line: exact-path values are parsed copies
	}
	return facts
}

// workersFor is how many goroutines judge lines.
func workersFor() int { return runtime.GOMAXPROCS(0) }
