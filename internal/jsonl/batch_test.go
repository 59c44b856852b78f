package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
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
	return pipelineLinesSized(t, r, workers, sizeHint, 0)
}

// pipelineLinesSized is pipelineLines with batches of batchSize bytes (0:
// the default).
func pipelineLinesSized(t *testing.T, r io.Reader, workers int, sizeHint int64, batchSize int) ([]Line, error) {
	t.Helper()
	var out []Line
	err := RunBatches(r, Pipeline[[]Line]{
		Workers:   workers,
		SizeHint:  sizeHint,
		BatchSize: batchSize,
		NewWorker: copyLines,
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

// copyLines is a worker that copies every line of its batch into b.Out.
func copyLines() func(*Batch[[]Line]) {
	return func(b *Batch[[]Line]) {
		b.Out = b.Out[:0]
		for l := range b.Lines {
			l.Bytes = bytes.Clone(l.Bytes)
			b.Out = append(b.Out, l)
		}
	}
}

// splitInputs are inputs whose splitting into lines the pipeline tests
// compare with Reader's.
func splitInputs() map[string]string {
	long := strings.Repeat("x", 3*batchSize+17)
	return map[string]string{
		"empty":              "",
		"one line, no final": `{"a":1}`,
		"crlf and blanks":    "{\"a\":1}\r\n\r\n  \n{\"b\":2}\n",
		"long lines":         "{}\n" + long + "\r\n" + long + long + "\n{}",
		"many short lines":   strings.Repeat("{\"type\":\"message\"}\n\n", 60000),
		// more lines than a batch notes the ends of, the rest found by Lines
		"past the noted ends": strings.Repeat("\n{}\r\n", 3*maxNotedEnds) + "{}",
		"lone cr at the end":  "{}\r",
	}
}

// TestRunBatchesSplitsLikeReader: for any number of workers, size hint and
// read sizes, the pipeline yields Reader's lines (numbers, offsets,
// CR, final newline, blank flag), including lines longer than a batch.
func TestRunBatchesSplitsLikeReader(t *testing.T) {
	inputs := splitInputs()
	inputs["small, byte reads"] = strings.Repeat("{\"a\":\"\u00e9\"}\r\n", 300)
	readers := map[string]func(string) io.Reader{
		"whole": func(s string) io.Reader { return strings.NewReader(s) },
		"half":  func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"bytes": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		// read ahead at offsets (a long line's buffer is sized from its end),
		// from a position other than 0
		"positioned": func(s string) io.Reader { return positionedReader(s) },
	}
	for name, data := range inputs {
		want, _ := readerLines(strings.NewReader(data))
		if got, _ := readerLines(positionedReader(data)); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Reader on a positioned input: %d lines, on a plain one %d", name, len(got), len(want))
		}
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

// FuzzRunBatches: over any input, batch size and number of workers, the
// pipeline's lines (split by the reader's one pass over each batch) are
// Reader's.
func FuzzRunBatches(f *testing.F) {
	for _, seed := range []string{"", "{}", "{}\n", "\n\n\r\n{\"a\":1}\r", "{}\r\n  \n{\"b\":\"\u00e9\"}"} {
		f.Add([]byte(seed), uint16(7), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint16, workers uint8) {
		want, wantErr := readerLines(bytes.NewReader(data))
		got, err := pipelineLinesSized(t, iotest.HalfReader(bytes.NewReader(data)), int(workers%4), -1, 1+int(size%4096))
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("error %v, Reader's %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d lines, Reader has %d", len(got), len(want))
		}
	})
}

// positionedReader reads s from a section of a larger input: it can be
// read at offsets and tell its position, which is not the larger input's.
func positionedReader(s string) *io.SectionReader {
	const prefix = "not part of the input\n"
	return io.NewSectionReader(strings.NewReader(prefix+s), int64(len(prefix)), int64(len(s)))
}

// TestLongLineBufferSize: on an input that can be read at offsets, a line
// longer than two batches gets a buffer of its own size (the line, its
// "\n" and one byte; up to keptBatchBytes, rounded up to whole MiB so that
// it can serve the next long line), not a doubled one.
func TestLongLineBufferSize(t *testing.T) {
	for _, n := range []int{batchSize + 1, 3*batchSize + 17, 5 * batchSize} {
		for _, final := range []string{"\n{}\n", "\n", ""} {
			data := "{}\n" + strings.Repeat("x", n) + final
			biggest := 0
			err := RunBatches(positionedReader(data), Pipeline[int]{
				Workers:   1,
				NewWorker: func() func(*Batch[int]) { return func(b *Batch[int]) { biggest = max(biggest, cap(b.data)) } },
				Consume:   func(*Batch[int]) error { return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			if biggest > max(lineBufferRoom(n+2), 2*batchSize) { // a batch starts at twice its carried piece of line
				t.Errorf("RunBatches, line of %d bytes ending %q: buffer of %d bytes", n, final, biggest)
			}
			r := NewReader(positionedReader(data))
			_, err = r.Next()
			l, err2 := r.Next()
			if err != nil || err2 != nil || len(l.Bytes) != n || cap(r.spill) > n+2 {
				t.Errorf("Reader, line of %d bytes ending %q: %d bytes in a buffer of %d (%v, %v)", n, final, len(l.Bytes), cap(r.spill), err, err2)
			}
		}
	}
}

// lineSizer is an input that cannot be read at offsets but knows how much
// of the current line is left (as a store's export does); it returns at
// most 4 KiB a Read, like a pipe.
type lineSizer struct{ rest string }

func (r *lineSizer) Read(p []byte) (int, error) {
	if r.rest == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 4096)], r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

func (r *lineSizer) LineRest() (int, bool) {
	if i := strings.IndexByte(r.rest, '\n'); i >= 0 {
		return i + 1, true
	}
	return len(r.rest), true
}

// TestLongLineBufferSizeLineSizer: an input that tells the rest of its
// line (directly or through WithContext) gets a buffer of the line's size
// for a long line, as an input read at offsets does, and the same batches.
func TestLongLineBufferSizeLineSizer(t *testing.T) {
	for _, n := range []int{batchSize + 1, 3*batchSize + 17, 5 * batchSize} {
		for _, final := range []string{"\n{}\n", "\n", ""} {
			data := "{}\n" + strings.Repeat("x", n) + final
			for _, wrap := range []bool{false, true} {
				var in io.Reader = &lineSizer{rest: data}
				if wrap {
					in = WithContext(context.Background(), in)
				}
				biggest, lines := 0, 0
				err := RunBatches(in, Pipeline[int]{
					Workers: 1,
					NewWorker: func() func(*Batch[int]) {
						return func(b *Batch[int]) {
							biggest = max(biggest, cap(b.data))
							for range b.Lines {
								lines++
							}
						}
					},
					Consume: func(*Batch[int]) error { return nil },
				})
				if err != nil {
					t.Fatal(err)
				}
				if want := strings.Count(data, "\n") + map[bool]int{true: 1}[!strings.HasSuffix(data, "\n")]; lines != want {
					t.Errorf("line of %d bytes ending %q (wrapped %v): %d lines, want %d", n, final, wrap, lines, want)
				}
				if biggest > max(lineBufferRoom(n+2), 2*batchSize) {
					t.Errorf("line of %d bytes ending %q (wrapped %v): buffer of %d bytes", n, final, wrap, biggest)
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

// zeros is an endless input without a newline, counting what was read.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// TestLineLimit: a line longer than the limit stops Reader and RunBatches
// alike with a *LineTooLongError naming it, after the lines before it, and
// an endless line is not read much past the limit.
func TestLineLimit(t *testing.T) {
	defer func(old int) { maxLineBytes = old }(maxLineBytes)
	maxLineBytes = 3 << 20
	long := strings.Repeat("x", maxLineBytes)
	head := strings.Repeat("{\"a\":1}\n", 1000) // 8000 bytes: the long line starts at byte 8000
	cases := []struct {
		name     string
		input    string
		wantLine int // 0: no error
	}{
		{"at the limit", head + long + "\r\n" + "{}\n", 0},
		{"at the limit, last line", head + long, 0},
		{"one byte over", head + long + "x\n{}\n", 1001},
		{"one byte over, last line", head + long + "x", 1001},
		{"far over", head + long + long + "\n", 1001},
		{"first line", long + "x\n", 1},
	}
	for _, c := range cases {
		for _, workers := range []int{0, 1, 2} { // 0: Reader
			t.Run(fmt.Sprintf("%s/%d", c.name, workers), func(t *testing.T) {
				var got []Line
				var err error
				if workers == 0 {
					got, err = readerLines(strings.NewReader(c.input))
				} else {
					got, err = pipelineLines(t, strings.NewReader(c.input), workers, -1)
				}
				var tl *LineTooLongError
				if c.wantLine == 0 {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if !errors.As(err, &tl) || tl.Line != c.wantLine || tl.Limit != maxLineBytes {
					t.Fatalf("error %v, want line %d too long", err, c.wantLine)
				}
				if want := int64(8000); c.wantLine == 1001 && tl.Offset != want {
					t.Errorf("offset %d, want %d", tl.Offset, want)
				}
				if len(got) != c.wantLine-1 {
					t.Errorf("%d lines before the error, want %d", len(got), c.wantLine-1)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("line %d ", c.wantLine)) || !strings.Contains(err.Error(), "3 MiB") {
					t.Errorf("message %q does not name the line and the limit", err)
				}
			})
		}
	}
	for _, workers := range []int{0, 1, 2} {
		z := &zeros{}
		var err error
		if workers == 0 {
			_, err = readerLines(z)
		} else {
			_, err = pipelineLines(t, z, workers, -1)
		}
		var tl *LineTooLongError
		if !errors.As(err, &tl) || tl.Line != 1 {
			t.Fatalf("%d workers: endless line: error %v", workers, err)
		}
		if max := int64(3*maxLineBytes + 2*readBufferSize); z.n > max {
			t.Errorf("%d workers: endless line: read %d bytes, more than %d", workers, z.n, max)
		}
	}
}

// TestLastNewline: lastNewline finds what bytes.LastIndexByte finds, for
// newlines at every offset of buffers of every length up to a few words.
func TestLastNewline(t *testing.T) {
	for n := 0; n <= 40; n++ {
		b := bytes.Repeat([]byte{'x'}, n)
		if got := lastNewline(b); got != -1 {
			t.Fatalf("no newline in %d bytes: %d", n, got)
		}
		for i := range n {
			for j := i; j < n; j++ {
				b[i], b[j] = '\n', '\n'
				c := append([]byte(nil), b...)
				c[max(0, j-1)] ^= 0x80 // a byte that is not a newline beside one
				c[i], c[j] = '\n', '\n'
				if got, want := lastNewline(c), bytes.LastIndexByte(c, '\n'); got != want {
					t.Fatalf("%q: %d, want %d", c, got, want)
				}
				b[i], b[j] = 'x', 'x'
			}
		}
	}
}

// TestRunBatchesLongLinesInFlight: on an input whose long lines come in
// clusters (as inline images do), of lengths from half a batch to past
// keptBatchBytes, the pipeline yields Reader's lines with any number of
// workers and any reads, and the buffers of the batches read ahead hold at
// most readAheadBytes plus the batch being read (without that bound,
// eight batches of a long line each would be in flight).
func TestRunBatchesLongLinesInFlight(t *testing.T) {
	var sb strings.Builder
	sizes := []int{batchSize / 2, batchSize/2 + 1, 700 << 10, batchSize, 3 * batchSize / 2, 2*batchSize + 5, 5 * batchSize}
	for i := range 60 {
		for range 1 + i%7 { // short lines between the clusters
			sb.WriteString("{\"short\":\"line\"}\n")
		}
		for k := range 1 + i%3 {
			n := sizes[(i+k)%len(sizes)]
			if n == 5*batchSize && i%10 != 0 {
				n = 2 * batchSize // few lines past keptBatchBytes
			}
			sb.WriteString("{\"image\":\"" + strings.Repeat("A", n) + "\"}\n")
		}
	}
	data := sb.String()
	want, _ := readerLines(strings.NewReader(data))
	for rname, newReader := range map[string]func(string) io.Reader{
		"whole":      func(s string) io.Reader { return strings.NewReader(s) },
		"half":       func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"positioned": func(s string) io.Reader { return positionedReader(s) },
	} {
		for _, workers := range []int{1, 2, 3} {
			var lines []Line
			var mu sync.Mutex
			inFlight, most := 0, 0
			err := RunBatches(newReader(data), Pipeline[[]Line]{
				Workers: workers,
				NewWorker: func() func(*Batch[[]Line]) {
					work := copyLines()
					return func(b *Batch[[]Line]) {
						mu.Lock()
						inFlight += cap(b.data)
						most = max(most, inFlight)
						mu.Unlock()
						work(b)
					}
				},
				Consume: func(b *Batch[[]Line]) error {
					mu.Lock()
					inFlight -= cap(b.data)
					mu.Unlock()
					lines = append(lines, b.Out...)
					return nil
				},
			})
			if err != nil {
				t.Fatalf("%s, %d workers: %v", rname, workers, err)
			}
			for i := range lines {
				if len(lines[i].Bytes) == 0 {
					lines[i].Bytes = nil
				}
			}
			if !reflect.DeepEqual(lines, want) {
				t.Fatalf("%s, %d workers: %d lines, Reader has %d", rname, workers, len(lines), len(want))
			}
			if bound := readAheadBytes + 6*batchSize; workers > 1 && most > bound {
				t.Errorf("%s, %d workers: %d bytes in flight, bound %d", rname, workers, most, bound)
			}
		}
	}
}
