package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/openclaw-doctor/openclaw-doctor/internal/cputime"
)

// firstPassInputs are the session cases, the conformance cases, a
// generated transcript and lines that exercise every verdict (blank lines,
// CRs, a byte order mark and spaces before the first line, invalid lines,
// a last line valid only once trimmed).
func firstPassInputs(t *testing.T) map[string][]byte {
	t.Helper()
	inputs := map[string][]byte{}
	for _, pattern := range []string{"testdata/cases/*.jsonl", "../../testdata/conformance/cases/*.jsonl"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			inputs[name] = data
		}
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeBenchTranscript(w, 256<<10)
	w.Flush()
	inputs["generated"] = buf.Bytes()
	inputs["edges"] = []byte("\ufeff  {\"type\":\"session\",\"version\":3,\"id\":\"h\"}\r\n\n   \n" +
		`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}` + "\n" +
		"not json\n\t\n" +
		`{"type":"message","id":"b","parentId":"a","message":{"role":"assistant","content":[]}}` + " \u00a0\n" +
		`{"type":"message","id":"c","parentId":"b","message":{"role":"user","content":"y"}}` + "\u2028\n\n")
	return inputs
}

// TestParallelFirstPass: judging lines on several workers, in batches of
// any size, gives exactly the records, line count and malformed count of
// the sequential first pass.
func TestParallelFirstPass(t *testing.T) {
	saved := firstPassBatch
	defer func() { firstPassBatch = saved }()
	for name, data := range firstPassInputs(t) {
		seq := loader{ids: newArena(64 << 10), header: -1}
		if err := seq.read(bytes.NewReader(data)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, batch := range []int{1, 300, 1 << 20} {
			firstPassBatch = batch
			par := loader{ids: newArena(64 << 10), header: -1}
			if err := par.readWith(bytes.NewReader(data), 3); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if par.lines != seq.lines || par.malformed != seq.malformed || len(par.recs) != len(seq.recs) {
				t.Fatalf("%s, batch %d: lines %d/%d malformed %d/%d records %d/%d", name, batch,
					par.lines, seq.lines, par.malformed, seq.malformed, len(par.recs), len(seq.recs))
			}
			if !reflect.DeepEqual(par.recs, seq.recs) {
				for i := range seq.recs {
					if !reflect.DeepEqual(par.recs[i], seq.recs[i]) {
						t.Fatalf("%s, batch %d: record %d differs:\n%+v\n%+v", name, batch, i, par.recs[i], seq.recs[i])
					}
				}
			}
		}
	}
}

// TestParallelFirstPassReadError: a read error stops the parallel pass
// with the error the sequential pass gives.
func TestParallelFirstPassReadError(t *testing.T) {
	saved := firstPassBatch
	defer func() { firstPassBatch = saved }()
	firstPassBatch = 64
	data := []byte(strings.Repeat(`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`+"\n", 200))
	boom := errors.New("boom")
	input := func() io.Reader { return io.MultiReader(bytes.NewReader(data[:5000]), iotest.ErrReader(boom)) }
	seq := loader{ids: newArena(64 << 10), header: -1}
	seqErr := seq.read(input())
	par := loader{ids: newArena(64 << 10), header: -1}
	parErr := par.readWith(input(), 2)
	if !errors.Is(parErr, boom) || seqErr == nil || parErr.Error() != seqErr.Error() {
		t.Fatalf("parallel error %v, sequential %v", parErr, seqErr)
	}
}

// BenchmarkFirstPass compares the sequential first pass with the parallel
// one on one and two workers (the generated transcript, OCD_BENCH_MIB).
func BenchmarkFirstPass(b *testing.B) {
	data, err := os.ReadFile(benchFile(b, benchMiB()))
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, read func(l *loader) error) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			l := loader{ids: newArena(64 << 10), header: -1, size: int64(len(data))}
			if err := read(&l); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("sequential", func(b *testing.B) {
		saved := firstPassWorkers
		defer func() { firstPassWorkers = saved }()
		firstPassWorkers = func() int { return 1 }
		run(b, func(l *loader) error { return l.read(bytes.NewReader(data)) })
	})
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallel-%d", w), func(b *testing.B) {
			run(b, func(l *loader) error { return l.readWith(bytes.NewReader(data), w) })
		})
	}
}
