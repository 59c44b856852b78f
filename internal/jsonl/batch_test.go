package jsonl

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// readerLines is what Reader yields for data, and its error.
func readerLines(r io.Reader) ([]Line, error) {
	lines, err := ReadAll(r)
	for i := range lines {
		if len(lines[i].Bytes) == 0 {
			lines[i].Bytes = nil
		}
	}
	return lines, err
}

// pipelineLines runs RunBatches over r with a worker that copies every
// line and a consumer that checks batches arrive in order.
func pipelineLines(t *testing.T, r io.Reader, workers int, sizeHint int64) ([]Line, error) {
	t.Helper()
	var out []Line
	err := RunBatches(r, Pipeline[[]Line]{
		Workers:  workers,
		SizeHint: sizeHint,
		NewWorker: func() func(*Batch[[]Line]) {
			return func(b *Batch[[]Line]) {
				b.Out = b.Out[:0]
				for l := range b.Lines {
					l.Bytes = bytes.Clone(l.Bytes)
					b.Out = append(b.Out, l)
				}
			}
		},
		Consume: func(b *Batch[[]Line]) error {
			if len(b.Out) > 0 && len(out) > 0 && b.Out[0].Num != out[len(out)-1].Num+1 {
				t.Fatalf("batch starts at line %d after line %d", b.Out[0].Num, out[len(out)-1].Num)
			}
			out = append(out, b.Out...)
			return nil
		},
	})
	for i := range out {
		if len(out[i].Bytes) == 0 {
			out[i].Bytes = nil
		}
	}
	return out, err
}

// TestRunBatchesSplitsLikeReader: for any number of workers, size hint and
// read sizes, the pipeline yields Reader's lines (numbers, offsets,
// CR, final newline, blank flag), including lines longer than a batch.
func TestRunBatchesSplitsLikeReader(t *testing.T) {
	long := strings.Repeat("x", 3*batchSize+17)
	inputs := map[string]string{
		"empty":              "",
		"one line, no final": `{"a":1}`,
		"crlf and blanks":    "{\"a\":1}\r\n\r\n  \n{\"b\":2}\n",
		"long lines":         "{}\n" + long + "\r\n" + long + long + "\n{}",
		"many short lines":   strings.Repeat("{\"type\":\"message\"}\n\n", 60000),
		"lone cr at the end": "{}\r",
		"small, byte reads":  strings.Repeat("{\"a\":\"\u00e9\"}\r\n", 300),
	}
	readers := map[string]func(string) io.Reader{
		"whole": func(s string) io.Reader { return strings.NewReader(s) },
		"half":  func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"bytes": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
	}
	for name, data := range inputs {
		want, _ := readerLines(strings.NewReader(data))
		for rname, newReader := range readers {
			if rname == "bytes" && len(data) > 1<<16 {
				continue // a byte at a time is too slow for the big inputs
			}
			for _, workers := range []int{1, 2, 3} {
				for _, hint := range []int64{-1, int64(len(data))} {
					got, err := pipelineLines(t, newReader(data), workers, hint)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s, %s reads, %d workers, hint %d: %d lines, Reader has %d", name, rname, workers, hint, len(got), len(want))
					}
				}
			}
		}
	}
}

// TestRunBatchesReadError: a read error is returned after the whole lines
// read before it were consumed; the incomplete line is dropped, as
// Reader drops it.
func TestRunBatchesReadError(t *testing.T) {
	boom := errors.New("boom")
	data := strings.Repeat("{\"a\":1}\n", 1000) + `{"incomplete`
	for _, workers := range []int{1, 2} {
		r := io.MultiReader(strings.NewReader(data), iotest.ErrReader(boom))
		got, err := pipelineLines(t, r, workers, -1)
		if !errors.Is(err, boom) {
			t.Fatalf("%d workers: error %v, want boom", workers, err)
		}
		want, rerr := readerLines(io.MultiReader(strings.NewReader(data), iotest.ErrReader(boom)))
		if !errors.Is(rerr, boom) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d workers: %d lines before the error, Reader has %d (%v)", workers, len(got), len(want), rerr)
		}
	}
}

// TestRunBatchesConsumerError stops the pipeline at the consumer's error.
func TestRunBatchesConsumerError(t *testing.T) {
	stop := errors.New("stop")
	data := strings.Repeat(strings.Repeat("x", 1000)+"\n", 10*batchSize/1000)
	for _, workers := range []int{1, 2} {
		n := 0
		err := RunBatches(strings.NewReader(data), Pipeline[int]{
			Workers:   workers,
			NewWorker: func() func(*Batch[int]) { return func(*Batch[int]) {} },
			Consume: func(*Batch[int]) error {
				n++
				if n == 2 {
					return stop
				}
				return nil
			},
		})
		if !errors.Is(err, stop) || n != 2 {
			t.Fatalf("%d workers: error %v after %d batches", workers, err, n)
		}
	}
}
