package jsonl_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// samePlainWrite fails t when data parses to a value whose JSON, written
// with the shortcuts for plain strings and numbers and interned keys,
// differs from the JSON written with every string and key searched for
// bytes to escape and every number converted. Both parsing modes are
// checked: copying (Parse) and aliasing (ParseOwned).
func samePlainWrite(t *testing.T, data []byte) {
	t.Helper()
	var p jsonl.Parser
	for _, parse := range []func([]byte) (jsonl.Value, error){p.Parse, p.ParseOwned} {
		v, err := parse(bytes.Clone(data))
		if err != nil {
			return
		}
		got, want := jsonl.Marshal(v), jsonl.Marshal(jsonl.Searched(v))
		if !bytes.Equal(got, want) {
			t.Fatalf("line %q:\nshortcut %q\nsearched %q", data, got, want)
		}
	}
}

// TestPlainValues checks which parsed strings and numbers are marked
// plain, and that the marked ones are written byte for byte as the full
// search and conversion write them.
func TestPlainValues(t *testing.T) {
	cases := []struct {
		line  string
		plain int // strings and numbers marked plain
	}{
		{`"abc"`, 1},
		{`""`, 1},
		{`"a\"b"`, 0},
		{`"a\\b"`, 0},
		{`"a\nb"`, 0},
		{`"\u0041"`, 0}, // escapes are never marked, even when they decode to plain text
		{`"\ud83d"`, 0},
		{`"\ud83d\ude00"`, 0},
		{"\"\xed\xa0\xbd\"", 1}, // a surrogate's raw bytes are invalid UTF-8: U+FFFD
		{"\"\xff\xfe tail\"", 1},
		{"\"caf\xc3\xa9 \xe2\x80\xa8 \x7f\"", 1},
		{`{"type":"text","text":"hello world, a string longer than eight bytes"}`, 2},
		{`["a","b\"",{"c":["d"]},1,true,null]`, 3}, // keys are not values: "c" is not counted
		// Numbers: integers of up to 15 digits without a leading zero.
		{`[1767225600001,-42,123456789012345]`, 3},
		{`[0,-0,1234567890123456,1.0,1e3,1E3,-1.5,0.1,10,100000000000000000000]`, 1},
	}
	for _, c := range cases {
		v, err := jsonl.Parse([]byte(c.line))
		if err != nil {
			t.Fatalf("%q: %v", c.line, err)
		}
		if n := jsonl.PlainValues(&v); n != c.plain {
			t.Errorf("%q: %d strings marked plain, want %d", c.line, n, c.plain)
		}
		samePlainWrite(t, []byte(c.line))
	}
}

// TestPlainValuesSessions compares the shortcuts with the full search on
// every line of the conformance cases, the examples and the damaged
// sessions generated from them.
func TestPlainValuesSessions(t *testing.T) {
	files := append(sessiontest.Glob(t, "testdata/examples/*.jsonl"), sessiontest.ConformanceCases(t)...)
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range sessiontest.Lines(data) {
			samePlainWrite(t, l.Bytes)
		}
	}
	for _, s := range sessiontest.DamagedSeeds(t) {
		for _, l := range sessiontest.Lines(sessiontest.Damaged(s.Base, s.Program)) {
			samePlainWrite(t, l.Bytes)
		}
	}
}

// FuzzPlainValues compares the plain-value shortcuts with the full search
// on arbitrary lines.
func FuzzPlainValues(f *testing.F) {
	for _, name := range sessiontest.ConformanceCases(f) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range sessiontest.Lines(data) {
			f.Add(l.Bytes)
		}
	}
	f.Add([]byte("[\"\\ud83d\",\"\xed\xa0\xbd\",\"\\u0000\",\"\x7f\"]"))
	f.Add([]byte(`[0,-0,1,-1,999999999999999,1000000000000000,1.50,1e21,-0.0]`))
	f.Fuzz(func(t *testing.T, data []byte) { samePlainWrite(t, data) })
}
