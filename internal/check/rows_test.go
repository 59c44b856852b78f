package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// exportRows is [Rows] over lines held as a store holds rows: Export is
// JSON.stringify(JSON.parse(line)), as the store's export writes it; it
// records what the pass hands it.
type exportRows struct {
	mu       sync.Mutex // Export runs on the workers
	exported int
	entries  []string // "line id parentId", in the order handed on
	rejected []int
}

func (r *exportRows) Export(dst, line []byte) ([]byte, error) {
	r.mu.Lock()
	r.exported++
	r.mu.Unlock()
	v, err := jsonl.Parse(line)
	if err != nil {
		return dst, err
	}
	return jsonl.AppendJSON(dst, &v), nil
}

func (r *exportRows) Entry(line int, id, parent jsonl.Field) {
	r.entries = append(r.entries, fmt.Sprint(line, " ", field(id), " ", field(parent)))
}

func (r *exportRows) Reject(line int, err error) {
	if err == nil {
		panic("a rejected row without JSON.parse's error")
	}
	r.rejected = append(r.rejected, line)
}

// field shows a member as JSON.parse reads it: absent, a string, or
// another kind.
func field(f jsonl.Field) string {
	if s, ok := f.Str(); ok {
		return fmt.Sprintf("%q", s)
	}
	if f.Exists() {
		return "other"
	}
	return "absent"
}

// exportOf is what the store's export writes for rows: each row's
// JSON.stringify(JSON.parse(row)) and "\n", up to the first row
// JSON.parse rejects (its number, 0 if none); and the entries Rows is
// to be handed.
func exportOf(t *testing.T, rows [][]byte) (export []byte, rejected int, entries []string) {
	t.Helper()
	for i, row := range rows {
		v, err := jsonl.Parse(row)
		if err != nil {
			return export, i + 1, entries
		}
		line := jsonl.AppendJSON(nil, &v)
		export = append(append(export, line...), '\n')
		id, parent := "absent", "absent"
		if v.IsObject() {
			id, parent = member(v.Get("id")), member(v.Get("parentId"))
		}
		entries = append(entries, fmt.Sprint(i+1, " ", id, " ", parent))
	}
	return export, 0, entries
}

func member(v *jsonl.Value) string {
	if v == nil {
		return "absent"
	}
	if s, ok := v.Str(); ok {
		return fmt.Sprintf("%q", s)
	}
	return "other"
}

// TestStoredRowsSameAsExport: a pass over rows as stored ([Options.Rows])
// finds what a pass over their export finds, on one goroutine and on
// several, on an input of several batches: rows in forms the export
// writes otherwise (numbers, invalid UTF-8) are judged as their export,
// the ids are handed on in line order as JSON.parse reads them, and a row
// JSON.parse rejects in the middle of a batch ends the input there.
func TestStoredRowsSameAsExport(t *testing.T) {
	var base [][]byte
	for _, name := range append(sessiontest.Glob(t, "testdata/corpus/*.jsonl"), sessiontest.ConformanceCases(t)...) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			// A store's row is one line: what the export writes for it.
			if v, err := jsonl.Parse(l); err == nil && len(l) <= 10<<10 {
				base = append(base, jsonl.AppendJSON(nil, &v))
			}
		}
	}
	// Forms the export writes otherwise, each replacing a member of a
	// row; the tool call's arguments among them (1e999 becomes null).
	forms := []struct{ old, new string }{
		{`"arguments":{`, `"arguments":1e999,"was":{`},
		{`"timestamp":`, `"n":[-0,1.0,1E2,0.5e-6,1e21,123456789012345678901,-0.0],"timestamp":`},
		{`"text":"`, "\"text\":\"\xff\xfe \xc3"},
		{`"id":"`, `"id": "`},
		{`"role":"assistant"`, `"r\u006fle":"assist\u0061nt"`},
	}
	var rows [][]byte
	for size := 0; size < 2<<20; { // four batches of ScanBatchSize
		for i, row := range base {
			size += len(row) + 1
			f := forms[(len(rows)+i)%len(forms)]
			if i%3 == 0 && bytes.Contains(row, []byte(f.old)) {
				row = bytes.Replace(row, []byte(f.old), []byte(f.new), 1)
			}
			rows = append(rows, row)
		}
	}
	sel := mustSelection(t, Options{})
	for _, tc := range []struct {
		name   string
		reject []byte // a row JSON.parse rejects, put in the middle; nil: none
	}{
		{"every row read", nil},
		{"not JSON", []byte(`{"type":"message",`)},
		{"blank", []byte(" ")},
		{"empty", []byte("")},
		{"a byte order mark", []byte("\xef\xbb\xbf{}")},
	} {
		input := rows
		if tc.reject != nil {
			input = append(append(append([][]byte{}, rows[:len(rows)/2+7]...), tc.reject), rows[len(rows)/2+7:]...)
		}
		export, rejected, entries := exportOf(t, input)
		if (rejected > 0) != (tc.reject != nil) {
			t.Fatalf("%s: the export stops at %d", tc.name, rejected)
		}
		want := Run(context.Background(), bytes.NewReader(export), "s", -1, sel, Options{Workers: 1})
		if len(want.Findings) == 0 {
			t.Fatal("no findings")
		}
		stored := append(bytes.Join(input, []byte("\n")), '\n')
		for _, workers := range []int{1, 2} {
			rs := &exportRows{}
			got := Run(context.Background(), bytes.NewReader(stored), "s", -1, sel, Options{Workers: workers, Rows: rs})
			if !equalFindings(got.Findings, want.Findings) || got.Lines != want.Lines {
				t.Errorf("%s, %d workers: %d findings over %d lines, want %d over %d", tc.name, workers, len(got.Findings), got.Lines, len(want.Findings), want.Lines)
			}
			if strings.Join(rs.entries, "\n") != strings.Join(entries, "\n") {
				t.Errorf("%s, %d workers: %d entries handed on, want %d", tc.name, workers, len(rs.entries), len(entries))
			}
			if wantRejected := []int{rejected}; rejected > 0 && fmt.Sprint(rs.rejected) != fmt.Sprint(wantRejected) || rejected == 0 && len(rs.rejected) > 0 {
				t.Errorf("%s, %d workers: rejected %v, want line %d", tc.name, workers, rs.rejected, rejected)
			}
			if rs.exported == 0 || rs.exported > len(input)/2 {
				t.Errorf("%s, %d workers: %d of %d rows judged again as their export", tc.name, workers, rs.exported, len(input))
			}
		}
	}
}
