package check

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestSizedRunsAgree: the findings do not depend on whether the size is
// known (it sizes the tree and the pairing after the first batch) nor on
// the number of workers, on an input of several batches with every
// conformance case in it.
func TestSizedRunsAgree(t *testing.T) {
	files := sessiontest.ConformanceCases(t)
	corpus := sessiontest.Glob(t, "testdata/corpus/*.jsonl")
	var data bytes.Buffer
	for data.Len() < 5<<20 {
		for _, name := range append(corpus, files...) {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			data.Write(b)
			data.WriteString("\n")
		}
	}
	sel := mustSelection(t, Options{})
	want := Run(context.Background(), bytes.NewReader(data.Bytes()), "all", -1, sel, Options{Workers: 1})
	if len(want.Findings) == 0 {
		t.Fatal("no findings")
	}
	for _, workers := range []int{1, 2, 3} {
		for _, size := range []int64{-1, int64(data.Len())} {
			got := Run(context.Background(), bytes.NewReader(data.Bytes()), "all", size, sel, Options{Workers: workers})
			if !equalFindings(got.Findings, want.Findings) || got.Lines != want.Lines || got.Bytes != want.Bytes {
				t.Errorf("%d workers, size %d: %d findings over %d lines, want %d over %d", workers, size, len(got.Findings), got.Lines, len(want.Findings), want.Lines)
			}
		}
	}
}
