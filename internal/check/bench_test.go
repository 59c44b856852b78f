package check

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
)

// benchInput is the file the benchmarks read: $OPENCLAW_BENCH_FILE (for
// example a gensession output), else the public session of testdata/corpus.
func benchInput(b *testing.B) []byte {
	path := os.Getenv("OPENCLAW_BENCH_FILE")
	if path == "" {
		files, _ := filepath.Glob("../../testdata/corpus/*.jsonl")
		if len(files) == 0 {
			b.Fatal("no corpus file")
		}
		path = files[0]
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReader is the floor: splitting lines only.
func BenchmarkReader(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rd := jsonl.NewReader(bytes.NewReader(data))
		for {
			if _, err := rd.Next(); err == io.EOF {
				break
			}
		}
	}
}

// BenchmarkFacts is the parallel stage alone, on one goroutine: the
// classifier's scan of every line and check's facts read from it.
func BenchmarkFacts(b *testing.B) {
	data := benchInput(b)
	sel := mustSelection(b, Options{})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		x := &extractor{maxDim: 1200, sizes: sel.Enabled(OversizedImage)}
		err := jsonl.RunBatches(bytes.NewReader(data), jsonl.Pipeline[lineFacts]{
			Workers:   1,
			NewWorker: func() func(*jsonl.Batch[lineFacts]) { return x.batch },
			Consume:   func(*jsonl.Batch[lineFacts]) error { return nil },
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is the whole check of one file, inline and with two
// workers.
func BenchmarkCheck(b *testing.B) {
	data := benchInput(b)
	sel := mustSelection(b, Options{})
	for _, c := range []struct {
		name    string
		workers int
	}{{"inline", 1}, {"workers2", 2}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				Run(context.Background(), bytes.NewReader(data), "bench", int64(len(data)), sel, Options{Workers: c.workers}) // the size is known, as for a file
			}
		})
	}
}

// BenchmarkClassifier is the repair classifier alone, the part of the
// ordered pass that fix shares.
func BenchmarkClassifier(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rd := jsonl.NewReader(bytes.NewReader(data))
		c := repair.NewClassifier()
		for {
			l, err := rd.Next()
			if err != nil {
				break
			}
			c.Line(l)
		}
		c.Finish()
	}
}
