package repair

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// benchData is $OPENCLAW_BENCH_FILE (for example a gensession output),
// else every conformance case.
func benchData(b *testing.B) []byte {
	if path := os.Getenv("OPENCLAW_BENCH_FILE"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	cases := sessiontest.ConformanceCases(b)
	var all bytes.Buffer
	for _, c := range cases {
		data, err := os.ReadFile(c)
		if err != nil {
			b.Fatal(err)
		}
		all.Write(data)
		all.WriteString("\n")
	}
	return all.Bytes()
}

// BenchmarkJudge is the per-line work on one goroutine: the scan alone,
// and the judge (scan, fast-path facts, the rare full parse).
func BenchmarkJudge(b *testing.B) {
	data := benchData(b)
	lines := sessiontest.Lines(data)
	b.Run("scan", func(b *testing.B) {
		var s envelopeReader
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for _, l := range lines {
				_ = s.scan(l.Bytes)
			}
		}
	})
	b.Run("judge", func(b *testing.B) {
		var j LineJudge
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				_ = j.Judge(l)
			}
		}
	})
}

// BenchmarkStrings is the string scanner on text without escapes and on
// text dense with them (code quoted in prose, as transcripts are).
func BenchmarkStrings(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"plain", strings.Repeat("abcdefghij klmnopqrst uvwxyz ", 400)},
		{"escapes", strings.Repeat(`x := f(\"a\", 42)\n\tabc `, 400)},
		{"cjk", strings.Repeat("日本語のテキスト and some ASCII ", 200)},
	} {
		line := []byte(`{"a":"` + c.body + `"}`)
		b.Run(c.name, func(b *testing.B) {
			var s envelopeReader
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if s.scan(line) != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkAnalyze is fix's first pass (all CPUs).
func BenchmarkAnalyze(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Analyze(bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
	}
}
