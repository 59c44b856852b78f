package session

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/cputime"
)

// reportCPU reports the process's CPU time (user plus system, every
// goroutine's, the collector's included) since start, per operation: what
// a busy machine disturbs least.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// benchFile returns a generated transcript of about mib MiB in the shape of
// a generated benchmark session of small entries: a v3 header, then a single chain of small
// entries cycling user / assistant with thinking and a tool call / tool
// result / assistant, every 50,000th line truncated (and skipped by the
// chain). It is cached in the temp directory between runs.
func benchFile(b *testing.B, mib int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("ocd-session-bench-%dMiB.jsonl", mib))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	writeBenchTranscript(w, int64(mib)<<20)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

func writeBenchTranscript(w *bufio.Writer, target int64) {
	rng := rand.New(rand.NewSource(7))
	w.WriteString(`{"type":"session","version":3,"id":"0199bbbb-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	const asst = `"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15}`
	parent := "null"
	var size int64
	for i := 1; size < target; i++ {
		ts := 1767225600000 + i
		var msg string
		switch i % 4 {
		case 0:
			msg = fmt.Sprintf(`{"role":"user","content":"question %d %s","timestamp":%d}`, i, strings.Repeat("x", 10+rng.Intn(111)), ts)
		case 1:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"%s","thinkingSignature":"c2ln"},{"type":"text","text":"ok"},{"type":"toolCall","id":"toolu_%010d","name":"exec","arguments":{"command":"echo %d"}}],%s,"stopReason":"toolUse","timestamp":%d}`,
				strings.Repeat("t", 10+rng.Intn(71)), i, i, asst, ts)
		case 2:
			msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"toolu_%010d","toolName":"exec","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":%d}`,
				i-1, strings.Repeat("y", 20+rng.Intn(181)), ts)
		default:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"answer %d"}],%s,"stopReason":"stop","timestamp":%d}`, i, asst, ts)
		}
		id := fmt.Sprintf("%08x", i)
		line := `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-01-01T00:00:00.000Z","message":` + msg + `}`
		if i%50000 == 0 {
			line = line[:len(line)/2]
		} else {
			parent = strconv.Quote(id)
		}
		w.WriteString(line)
		w.WriteByte('\n')
		size += int64(len(line) + 1)
	}
}

// benchMiB is the size of the benchmark transcript (OCD_BENCH_MIB, default 200).
func benchMiB() int {
	if n, err := strconv.Atoi(os.Getenv("OCD_BENCH_MIB")); err == nil && n > 0 {
		return n
	}
	return 200
}

// BenchmarkReadContext loads the generated transcript and builds the
// context of its branch (nearly the whole file).
func BenchmarkReadContext(b *testing.B) {
	path := benchFile(b, benchMiB())
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	defer reportCPU(b, cputime.Process())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		ctx, err := ReadContext(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(ctx.Messages) < 1000 {
			b.Fatalf("only %d messages", len(ctx.Messages))
		}
	}
}

// BenchmarkLoad is the first pass alone (envelopes and navigation).
func BenchmarkLoad(b *testing.B) {
	path := benchFile(b, benchMiB())
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	defer reportCPU(b, cputime.Process())
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		t, err := Load(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := t.Tree().Leaf(); !ok {
			b.Fatal("no leaf")
		}
	}
}
