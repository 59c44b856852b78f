package jsonl

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/cputime"
)

// reportCPU reports the CPU time since start per operation.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// parseBenchLines returns the lines of $OPENCLAW_BENCH_FILE (for example
// a large generated session of small entries), else those of the conformance cases
// and the corpus, with their total size.
func parseBenchLines(b *testing.B) ([][]byte, int64) {
	var files []string
	if path := os.Getenv("OPENCLAW_BENCH_FILE"); path != "" {
		files = []string{path}
	} else {
		for _, pattern := range []string{"../../testdata/conformance/cases/*.jsonl", "../../testdata/corpus/*.jsonl"} {
			m, _ := filepath.Glob(pattern)
			files = append(files, m...)
		}
	}
	var lines [][]byte
	var size int64
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		all, err := ReadAll(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range all {
			lines = append(lines, l.Bytes)
			size += int64(len(l.Bytes)) + 1
		}
	}
	if len(lines) == 0 {
		b.Fatal("no lines")
	}
	return lines, size
}

// BenchmarkLines measures validation and parsing over whole files: the
// package-level functions and a reused Parser.
func BenchmarkLines(b *testing.B) {
	lines, size := parseBenchLines(b)
	b.Run("Valid", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			for _, l := range lines {
				_ = Valid(l)
			}
		}
	})
	b.Run("ParseOwned", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			for _, l := range lines {
				_, _ = ParseOwned(l)
			}
		}
	})
	b.Run("Parser", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			var p Parser
			for _, l := range lines {
				_, _ = p.ParseOwned(l)
			}
		}
	})
	b.Run("ParserCopy", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			var p Parser
			for _, l := range lines {
				_, _ = p.Parse(l)
			}
		}
	})
	b.Run("Marshal", func(b *testing.B) {
		var p Parser
		vals := make([]Value, 0, len(lines))
		for _, l := range lines {
			if v, err := p.ParseOwned(l); err == nil {
				vals = append(vals, v)
			}
		}
		b.SetBytes(size)
		b.ReportAllocs()
		var out []byte
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			for i := range vals {
				out = AppendJSON(out[:0], &vals[i])
			}
		}
	})
}
