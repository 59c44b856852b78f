package jsonl

import (
	"bytes"
	"os"
	"testing"
)

// benchLines is $OPENCLAW_BENCH_FILE's lines (for example a gensession
// output), else the real session of testdata/corpus plus the conformance
// cases: typical transcript lines (text, tool calls, usage objects).
func benchLines(b *testing.B) ([][]byte, int64) {
	lines := corpusLines(b)
	if path := os.Getenv("OPENCLAW_BENCH_FILE"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		all, err := ReadAll(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		lines = lines[:0]
		for _, l := range all {
			lines = append(lines, l.Bytes)
		}
	}
	var n int64
	for _, l := range lines {
		n += int64(len(l)) + 1
	}
	return lines, n
}

// envelope reads the fields check needs from a line: what the one-pass
// checker does for every line.
func envelope(r Node) int {
	n := 0
	if r.Get("type").StrEquals("message") {
		n++
	}
	_, _ = r.Get("id").StrRaw()
	_, _ = r.Get("parentId").StrRaw()
	_, _ = r.Get("timestamp").StrRaw()
	m := r.Get("message")
	_ = m.Get("role").StrEquals("assistant")
	_, _ = m.Get("toolCallId").StrRaw()
	_ = m.Get("stopReason").StrEquals("error")
	for blk := range m.Get("content").Elems() {
		if blk.Get("type").StrEquals("toolCall") {
			_, _ = blk.Get("id").StrRaw()
			n++
		}
	}
	return n
}

func BenchmarkTape(b *testing.B) {
	lines, size := benchLines(b)
	b.Run("Valid", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, l := range lines {
				_ = Valid(l)
			}
		}
	})
	b.Run("Parse", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				_, _ = ParseOwned(l)
			}
		}
	})
	b.Run("Tape", func(b *testing.B) {
		var tp Tape
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				_ = tp.Parse(l)
			}
		}
	})
	b.Run("TapeEnvelope", func(b *testing.B) {
		var tp Tape
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range lines {
				if tp.Parse(l) == nil {
					_ = envelope(tp.Root())
				}
			}
		}
	})
}
