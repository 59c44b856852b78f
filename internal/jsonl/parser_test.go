package jsonl

import (
	"strings"
	"testing"
)

// TestParserReuse parses lines one after another with one Parser and checks
// every value against a fresh parse after all of them: later lines, failed
// ones included, must not change what earlier ones returned.
func TestParserReuse(t *testing.T) {
	lines := []string{
		`{"type":"message","message":{"role":"user","content":"hi \u00e9\ud83d","n":[1,2.5e3,-0]}}`,
		`{"a":` + strings.Repeat(`{"b":[`, 40) + `"deep"` + strings.Repeat(`]}`, 40) + `}`,
		`{"broken":[1,2`,
		"{\"bad utf8\":\"x\xffy\",\"esc\":\"tab\\tquote\\\"\"}",
		`[` + strings.Repeat(`{"k":"v","w":[true,false,null]},`, 300) + `{}]`,
		`{"dup":1,"x":2,"dup":3}`,
		`"top-level string with \\ escape"`,
		`{"big":"` + strings.Repeat("z", 100000) + `"}`,
		`{"` + strings.Repeat("k", 40) + `":` + strings.Repeat("[", 3) + strings.Repeat("]", 2) + `}`,
	}
	var p Parser
	got := make([]string, len(lines))
	for i, l := range lines {
		buf := []byte(l)
		v, err := p.Parse(buf)
		for j := range buf { // Parse copies: scribbling over the input is harmless
			buf[j] = 'X'
		}
		if err != nil {
			got[i] = "error: " + err.Error()
			continue
		}
		got[i] = MarshalString(v)
	}
	for i, l := range lines {
		want := ""
		if v, err := Parse([]byte(l)); err != nil {
			want = "error: " + Validate([]byte(l)).Error()
		} else {
			want = MarshalString(v)
		}
		if got[i] != want {
			t.Errorf("line %d: reused parser gave %.80q, fresh parse %.80q", i, got[i], want)
		}
	}
}

// TestParserErrorsMatchValidate pins that a rejected line reports the
// validator's error (text and offset), whichever path rejects it.
func TestParserErrorsMatchValidate(t *testing.T) {
	for _, l := range []string{``, `{`, `{"a"`, `{"a":}`, `[1,]`, `{"a":1}x`, `"\x"`, "\"a\tb\"", `01`, `-`, `1.`, `1e`, `tru`, `{"a":"\u12"}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `]`} {
		var p Parser
		_, err := p.ParseOwned([]byte(l))
		want := Validate([]byte(l))
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%q: Parser error %v, Validate %v", l, err, want)
		}
	}
}

// TestParserAllocatesInBlocks checks that a reused Parser allocates
// only the blocks its values live in: many small lines cost far fewer
// allocations than lines.
func TestParserAllocatesInBlocks(t *testing.T) {
	line := []byte(`{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"a\nb"},{"type":"toolCall","id":"c1","arguments":{"x":1}}]}}`)
	var p Parser
	for range 100 { // warm up: blocks reach their full size
		if _, err := p.ParseOwned(line); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := p.ParseOwned(line); err != nil {
			t.Fatal(err)
		}
	})
	// One top-level member list per line, plus a share of a block.
	if allocs > 1.1 {
		t.Errorf("%.2f allocations per line, want at most 1.1", allocs)
	}
}

// TestValidDoesNotAllocate covers nesting within the validator's fixed
// stack (512 levels) and beyond it.
func TestValidDoesNotAllocate(t *testing.T) {
	shallow := []byte(`{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`)
	if n := testing.AllocsPerRun(100, func() { _ = Valid(shallow) }); n != 0 {
		t.Errorf("Valid allocates %.1f times for 501 levels", n)
	}
	deep := []byte(`{"a":` + strings.Repeat("[{\"b\":", 5000) + `1` + strings.Repeat("}]", 5000) + `}`)
	if !Valid(deep) || Valid(deep[:len(deep)-1]) {
		t.Error("verdicts on 10001 levels")
	}
}
