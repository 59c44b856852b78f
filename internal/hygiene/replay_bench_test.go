package hygiene

import (
	"os"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/cputime"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// BenchmarkReplayFile is the whole of `replay --format json` on the file
// named by $OPENCLAW_BENCH_FILE (e.g. a large generated session of small entries):
// load the branch's context, replay it for Anthropic, serialise every
// message. Skipped without the variable.
func BenchmarkReplayFile(b *testing.B) {
	path := os.Getenv("OPENCLAW_BENCH_FILE")
	if path == "" {
		b.Skip("set OPENCLAW_BENCH_FILE to a transcript")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		ctx, err := session.ReadContext(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		r := &Run{Config: NewConfig(Target{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"})}
		msgs, err := ReplayContext(r, ctx)
		if err != nil {
			b.Fatal(err)
		}
		for i := range msgs {
			buf = jsonl.AppendJSON(buf[:0], &msgs[i].V)
		}
	}
}

// BenchmarkReplayFilePhases measures the CPU time (user plus system, all
// goroutines, the collector's included) of the three phases of
// BenchmarkReplayFile separately, in ms per phase: CPU time is what a busy
// machine disturbs least.
func BenchmarkReplayFilePhases(b *testing.B) {
	path := os.Getenv("OPENCLAW_BENCH_FILE")
	if path == "" {
		b.Skip("set OPENCLAW_BENCH_FILE to a transcript")
	}
	var load, replay, marshal time.Duration
	var buf []byte
	for b.Loop() {
		t0 := cputime.Process()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		ctx, err := session.ReadContext(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		t1 := cputime.Process()
		r := &Run{Config: NewConfig(Target{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"})}
		msgs, err := ReplayContext(r, ctx)
		if err != nil {
			b.Fatal(err)
		}
		t2 := cputime.Process()
		for i := range msgs {
			buf = jsonl.AppendJSON(buf[:0], &msgs[i].V)
		}
		t3 := cputime.Process()
		load += t1 - t0
		replay += t2 - t1
		marshal += t3 - t2
	}
	n := float64(b.N) * 1e6
	b.ReportMetric(float64(load)/n, "load-cpu-ms")
	b.ReportMetric(float64(replay)/n, "replay-cpu-ms")
	b.ReportMetric(float64(marshal)/n, "marshal-cpu-ms")
}
