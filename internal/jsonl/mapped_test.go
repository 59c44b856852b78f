package jsonl

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// mappedLines runs RunBatches with MapFiles over the file at path (through
// a ContextReader when viaContext), copying every line, and reports
// whether any batch was a view of a mapping. consume, when set, runs
// after each batch is consumed.
func mappedLines(t *testing.T, path string, workers, batchSize int, viaContext bool, consume func(n int)) (lines []Line, mapped bool, err error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if viaContext {
		r = WithContext(context.Background(), f)
	}
	batches := 0
	err = RunBatches(r, Pipeline[[]Line]{
		Workers:   workers,
		BatchSize: batchSize,
		MapFiles:  true,
		NewWorker: copyLines,
		Consume: func(b *Batch[[]Line]) error {
			mapped = mapped || b.mapped
			for _, l := range b.Out {
				if len(l.Bytes) == 0 {
					l.Bytes = nil // as readerLines has them
				}
				lines = append(lines, l)
			}
			if batches++; consume != nil {
				consume(batches)
			}
			return nil
		},
	})
	return lines, mapped, err
}

func writeFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunBatchesMappedSplitsLikeReader: a mapped file yields Reader's
// lines, whatever the workers and batch size, and the file is mapped
// where the platform maps files.
func TestRunBatchesMappedSplitsLikeReader(t *testing.T) {
	for name, data := range splitInputs() {
		path := writeFile(t, data)
		want, _ := readerLines(strings.NewReader(data))
		for _, workers := range []int{1, 2, 3} {
			for _, size := range []int{0, 1000, 4096} {
				got, mapped, err := mappedLines(t, path, workers, size, size == 1000, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %d workers, batch %d: %d lines, Reader has %d", name, workers, size, len(got), len(want))
				}
				if wantMapped := runtime.GOOS == "linux" && data != "" && strings.Contains(data, "\n"); mapped != wantMapped {
					t.Errorf("%s: mapped %v, want %v", name, mapped, wantMapped)
				}
			}
		}
	}
}

// TestRunBatchesMappedLineLimit: a line over the limit in a mapped file
// ends the reading as it ends a read one.
func TestRunBatchesMappedLineLimit(t *testing.T) {
	defer func(old int) { maxLineBytes = old }(maxLineBytes)
	maxLineBytes = 1 << 20
	long := strings.Repeat("x", maxLineBytes)
	head := strings.Repeat("{\"a\":1}\n", 1000)
	for _, input := range []string{head + long + "\r\n{}\n", head + long, head + long + "x\n{}\n", head + long + "x", head + long + long + "\n"} {
		path := writeFile(t, input)
		want, wantErr := readerLines(strings.NewReader(input))
		for _, workers := range []int{1, 2} {
			got, _, err := mappedLines(t, path, workers, 0, false, nil)
			if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
				t.Fatalf("%d workers, %d bytes: %d lines and %v, Reader has %d and %v", workers, len(input), len(got), err, len(want), wantErr)
			}
		}
	}
}

// TestRunBatchesMappedAppended: lines appended to a mapped file while it
// is read are read too, as reading would have them.
func TestRunBatchesMappedAppended(t *testing.T) {
	data := strings.Repeat("{\"type\":\"message\"}\n", 20000) + `{"last":`
	path := writeFile(t, data)
	for _, workers := range []int{1, 2} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := mappedLines(t, path, workers, 4096, false, func(n int) {
			if n != 1 {
				return
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("1}\n{\"z\":2}"); err != nil {
				t.Fatal(err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := readerLines(strings.NewReader(data + "1}\n{\"z\":2}"))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d workers: %d lines, want %d (last %q)", workers, len(got), len(want), got[len(got)-1].Bytes)
		}
	}
}

// TestRunBatchesMappedTruncated: a mapped file truncated while it is read
// ends the pipeline with an error naming the file, never a crash; the
// lines before stand.
func TestRunBatchesMappedTruncated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	data := strings.Repeat("{\"type\":\"message\",\"id\":\"0123456789\"}\n", 200000) // 7.6 MB
	for _, workers := range []int{1, 2} {
		path := writeFile(t, data)
		got, mapped, err := mappedLines(t, path, workers, 64<<10, false, func(n int) {
			if n == 2 {
				if err := os.Truncate(path, 0); err != nil {
					t.Fatal(err)
				}
			}
		})
		var pe *fs.PathError
		if !mapped || !errors.Is(err, ErrFileShrank) || !errors.As(err, &pe) || pe.Path != path {
			t.Fatalf("%d workers: mapped %v, error %v, want %v naming %s", workers, mapped, err, ErrFileShrank, path)
		}
		if len(got) == 0 || len(got) >= 200000 {
			t.Errorf("%d workers: %d lines before the error", workers, len(got))
		}
	}
}

// TestRunBatchesMappedStopsEarly: a consumer's error ends a mapped
// pipeline with that error, after the workers are done with the mapping.
func TestRunBatchesMappedStopsEarly(t *testing.T) {
	path := writeFile(t, strings.Repeat("{\"type\":\"message\"}\n", 100000))
	stop := errors.New("stop")
	for _, workers := range []int{1, 2, 3} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		batches := 0
		err = RunBatches(f, Pipeline[[]Line]{Workers: workers, BatchSize: 4096, MapFiles: true, NewWorker: copyLines,
			Consume: func(b *Batch[[]Line]) error {
				if batches++; batches == 2 {
					return stop
				}
				return nil
			}})
		f.Close()
		if err != stop {
			t.Errorf("%d workers: error %v, want %v", workers, err, stop)
		}
	}
}

// TestMappedAcrossPasses: a caller's mapping serves a pipeline and stays
// mapped after it for a second pass; Release hands back whole pages only
// and says where the next release starts.
func TestMappedAcrossPasses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	data := strings.Repeat("{\"type\":\"message\",\"id\":\"0123456789\"}\n", 20000)
	path := writeFile(t, data)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := MapFile(f)
	if m == nil {
		t.Fatal("a regular file was not mapped")
	}
	defer m.Close()
	lines, mappedBatch := 0, false
	err = RunBatches(f, Pipeline[[]Line]{Workers: 2, BatchSize: 64 << 10, Mapping: m, NewWorker: copyLines,
		Consume: func(b *Batch[[]Line]) error {
			lines, mappedBatch = lines+len(b.Out), mappedBatch || b.mapped
			return nil
		}})
	if err != nil || lines != 20000 || !mappedBatch {
		t.Fatalf("pipeline: %d lines, mapped %v, error %v", lines, mappedBatch, err)
	}
	if string(m.Bytes()) != data { // still mapped, pages handed back or not
		t.Fatal("the mapping no longer holds the file after the pipeline")
	}
	page := os.Getpagesize()
	for _, tc := range []struct{ from, to, want int }{
		{0, page - 1, 0},
		{0, 3*page + 5, 3 * page},
		{3 * page, 3*page + 1, 3 * page},
		{page + 1, 2 * page, 2 * page},
	} {
		if got := m.Release(tc.from, tc.to); got != tc.want {
			t.Errorf("Release(%d, %d) = %d, want %d", tc.from, tc.to, got, tc.want)
		}
	}
	if string(m.Bytes()) != data {
		t.Fatal("released pages do not read back from the page cache")
	}
}
