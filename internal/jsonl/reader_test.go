package jsonl

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderSplitsLikeOpenClaw(t *testing.T) {
	type want struct {
		num     int
		offset  int64
		text    string
		blank   bool
		cr      bool
		newline bool
	}
	cases := []struct {
		name  string
		input string
		want  []want
	}{
		{"empty input", "", nil},
		{"single newline", "\n", []want{{1, 0, "", true, false, true}}},
		{"LF", "a\nb\n", []want{{1, 0, "a", false, false, true}, {2, 2, "b", false, false, true}}},
		{"CRLF", "a\r\nb\r\n", []want{{1, 0, "a", false, true, true}, {2, 3, "b", false, true, true}}},
		{"no final newline", "a\nb", []want{{1, 0, "a", false, false, true}, {2, 2, "b", false, false, false}}},
		{"blank lines count", "a\n\n  \nb\n", []want{{1, 0, "a", false, false, true}, {2, 2, "", true, false, true}, {3, 3, "  ", true, false, true}, {4, 6, "b", false, false, true}}},
		{"bare CR stays inside the line", "a\rb\n", []want{{1, 0, "a\rb", false, false, true}}},
		{"unicode blank", "\u00a0\ufeff\n", []want{{1, 0, "\u00a0\ufeff", true, false, true}}},
		{"CR only at the end of a last line", "a\r", []want{{1, 0, "a", false, true, false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines, err := ReadAll(strings.NewReader(c.input))
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != len(c.want) {
				t.Fatalf("got %d lines, want %d: %+v", len(lines), len(c.want), lines)
			}
			var total int64
			for i, l := range lines {
				w := c.want[i]
				if l.Num != w.num || l.Offset != w.offset || string(l.Bytes) != w.text || l.Blank != w.blank || l.CR != w.cr || l.Newline != w.newline {
					t.Errorf("line %d = {%d %d %q blank=%v cr=%v nl=%v}, want %+v", i, l.Num, l.Offset, l.Bytes, l.Blank, l.CR, l.Newline, w)
				}
				total += l.Size()
			}
			if total != int64(len(c.input)) {
				t.Errorf("sizes add up to %d, input has %d bytes", total, len(c.input))
			}
		})
	}
}

// TestReaderHugeLine reads a 100 MiB line between two short ones: no length
// limit, and the following lines keep their numbers and offsets.
func TestReaderHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MiB line skipped in -short mode")
	}
	const size = 100 << 20
	huge := bytes.Repeat([]byte{'x'}, size)
	var input bytes.Buffer
	input.WriteString("{\"a\":1}\n\"")
	input.Write(huge)
	input.WriteString("\"\n{\"b\":2}\n")
	r := NewReader(&input)
	var got []Line
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if l.Num == 2 {
			if len(l.Bytes) != size+2 || !Valid(l.Bytes) {
				t.Fatalf("huge line: %d bytes, valid=%v", len(l.Bytes), Valid(l.Bytes))
			}
			l.Bytes = nil
		} else {
			l.Bytes = bytes.Clone(l.Bytes)
		}
		got = append(got, l)
	}
	if len(got) != 3 || string(got[2].Bytes) != `{"b":2}` || got[2].Num != 3 || got[2].Offset != int64(8+size+3) {
		t.Fatalf("lines after the huge one are wrong: %+v", got)
	}
}

type errReader struct{ after int }

func (e *errReader) Read(p []byte) (int, error) {
	if e.after <= 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, strings.Repeat("a\n", e.after))
	e.after = 0
	return n, nil
}

func TestReaderReportsReadErrors(t *testing.T) {
	r := NewReader(&errReader{after: 2})
	var err error
	for err == nil {
		_, err = r.Next()
	}
	if errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("got %v, want the read error", err)
	}
}

func BenchmarkReader(b *testing.B) {
	line := `{"type":"message","id":"a1b2c3d4","parentId":"00ff00ff","timestamp":"2026-03-14T09:26:53.589Z","message":{"role":"user","content":"` + strings.Repeat("hello world ", 40) + `","timestamp":1773480423626}}` + "\n"
	data := []byte(strings.Repeat(line, 20000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(data))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

func BenchmarkValid(b *testing.B) {
	line := []byte(`{"type":"message","id":"a1b2c3d4","parentId":"00ff00ff","timestamp":"2026-03-14T09:26:53.589Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("hello world ", 40) + `"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"/tmp/x"}}],"usage":{"input":100,"output":20,"totalTokens":120},"stopReason":"toolUse","timestamp":1773480423626}}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if !Valid(line) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkParse(b *testing.B) {
	line := []byte(`{"type":"message","id":"a1b2c3d4","parentId":"00ff00ff","timestamp":"2026-03-14T09:26:53.589Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("hello world ", 40) + `"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"/tmp/x"}}],"usage":{"input":100,"output":20,"totalTokens":120},"stopReason":"toolUse","timestamp":1773480423626}}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseOwned(line); err != nil {
			b.Fatal(err)
		}
	}
}

// ReadAll is every line of rd, with Bytes copied.
func ReadAll(rd io.Reader) ([]Line, error) {
	r := NewReader(rd)
	var out []Line
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		l.Bytes = bytes.Clone(l.Bytes)
		out = append(out, l)
	}
}
