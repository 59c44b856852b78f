package jsonl

import (
	"os"
	"path/filepath"
	"testing"
)

// seedLines adds every line of the conformance cases as fuzz seeds.
func seedLines(f *testing.F) {
	for _, l := range conformanceLines(f) {
		f.Add(l)
	}
	f.Add([]byte(`{"a":"\ud83d","b":1e400,"a":2}`))
}

// conformanceLines are the lines of the conformance cases. Package
// sessiontest's ConformanceCases reads lines with this package, so this
// package globs the cases itself, and fails on none as it does.
func conformanceLines(tb testing.TB) [][]byte {
	files, _ := filepath.Glob("../../testdata/conformance/cases/*.jsonl")
	if len(files) == 0 {
		tb.Fatal("no conformance cases found under ../../testdata/conformance/cases")
	}
	var out [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		lines, _ := ReadAll(bytesReader(data))
		for _, l := range lines {
			out = append(out, l.Bytes)
		}
	}
	return out
}

// FuzzParse checks that Parse and Valid agree, that stringify(parse(x)) is
// valid JSON, and that stringify(parse(stringify(parse(x)))) is the same text.
func FuzzParse(f *testing.F) {
	seedLines(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if (err == nil) != Valid(data) {
			t.Fatalf("Parse err=%v but Valid=%v", err, Valid(data))
		}
		if err != nil {
			return
		}
		out := Marshal(v)
		v2, err := Parse(out)
		if err != nil {
			t.Fatalf("stringify output %q does not parse: %v", out, err)
		}
		if out2 := Marshal(v2); string(out2) != string(out) {
			t.Fatalf("stringify not stable: %q then %q", out, out2)
		}
	})
}

// FuzzParserReuse checks that a Parser that has already parsed other lines
// gives the same value as a fresh Parse, and leaves the earlier values
// unchanged.
func FuzzParserReuse(f *testing.F) {
	seedLines(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Parser
		first, err := p.Parse([]byte(`{"warm":["up",1,{"x":"\u00e9"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		firstText := MarshalString(first)
		v, err := p.Parse(data)
		fresh, ferr := Parse(data)
		if (err == nil) != (ferr == nil) {
			t.Fatalf("reused parser err=%v, fresh err=%v", err, ferr)
		}
		if err == nil && MarshalString(v) != MarshalString(fresh) {
			t.Fatalf("reused parser gave %q, fresh %q", MarshalString(v), MarshalString(fresh))
		}
		if err != nil && err.Error() != Validate(data).Error() {
			t.Fatalf("error %v, Validate %v", err, Validate(data))
		}
		again, err := p.Parse(data)
		if (err == nil) != (ferr == nil) || err == nil && MarshalString(again) != MarshalString(fresh) {
			t.Fatalf("third parse differs")
		}
		if MarshalString(first) != firstText {
			t.Fatalf("earlier value changed: %q", MarshalString(first))
		}
	})
}

// FuzzParserPool checks a parser that carves from a pool against a fresh
// Parse: after a released line's blocks went back to the pool uncleared
// (so the input is carved from them), and across a later parse while the
// input's own blocks are still held.
func FuzzParserPool(f *testing.F) {
	seedLines(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var pool BlockPool
		var p Parser
		p.UsePool(&pool)
		// Twice: the second line's blocks go back uncleared (the first
		// line's text is allocated alone), so the input is carved from
		// blocks that still hold the warm-up's members.
		for range 2 {
			if _, err := p.ParseMember([]byte(`{"warm":["up",1,{"x":[{"y":"\u00e9"}]}]}`)); err != nil {
				t.Fatal(err)
			}
			pool.Put(p.TakeBlocks())
		}
		v, err := p.ParseMember(data)
		fresh, ferr := Parse(data)
		if (err == nil) != (ferr == nil) {
			t.Fatalf("pooled parser err=%v, fresh err=%v", err, ferr)
		}
		if err != nil {
			return
		}
		want := MarshalString(fresh)
		if got := MarshalString(v); got != want {
			t.Fatalf("pooled parser gave %q, fresh %q", got, want)
		}
		held := p.TakeBlocks()
		if _, err := p.ParseMember(data); err != nil {
			t.Fatal(err)
		}
		pool.Put(p.TakeBlocks())
		if got := MarshalString(v); got != want {
			t.Fatalf("a held value changed to %q, want %q", got, want)
		}
		pool.Put(held)
	})
}
