package jsonl

import (
	"math"
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

// TestInternTable checks that every common word is found, that lookups
// stay short, and that interned text equals the input.
func TestInternTable(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range internWords {
		if seen[w] {
			t.Errorf("%q listed twice", w)
		}
		seen[w] = true
		s, ok := intern([]byte(w))
		if !ok || s != w {
			t.Errorf("intern(%q) = %q, %v", w, s, ok)
		}
	}
	for _, w := range []string{"", "typ", "types", "Type", "rolex", "anthropic-messages2", strings.Repeat("x", 40)} {
		if s, ok := intern([]byte(w)); ok {
			t.Errorf("intern(%q) = %q, want no entry", w, s)
		}
	}
	for _, w := range internWords {
		s, _ := intern([]byte(w))
		if !isInterned(s) || isInterned(strings.Clone(s)) {
			t.Errorf("isInterned wrong about %q", w)
		}
		if string(AppendJSString(nil, s)) != `"`+s+`"` {
			t.Errorf("%q needs escaping: it cannot be written as it is", w)
		}
	}
	longest := 0
	for h := range internTable {
		n := 0
		for k := h; internTable[k].s != ""; k = (k + 1) % internSize {
			n++
		}
		longest = max(longest, n)
	}
	if longest > 6 {
		t.Errorf("a lookup can probe %d slots", longest)
	}
}

// TestParserCopiesStrings checks that Parser.Parse values do not alias the
// input, and that ParseOwned values do.
func TestParserCopiesStrings(t *testing.T) {
	line := []byte(`{"role":"user","content":"some text here","n":12,"k":"assistant"}`)
	var p Parser
	v, err := p.Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	want := MarshalString(v)
	for i := range line {
		line[i] = '#'
	}
	if got := MarshalString(v); got != want {
		t.Errorf("after the input changed: %s, want %s", got, want)
	}
	line = []byte(`{"text":"some text here"}`)
	o, err := p.ParseOwned(line)
	if err != nil {
		t.Fatal(err)
	}
	copy(line[9:], "SOME")
	if s, _ := o.GetStr("text"); s != "SOME text here" {
		t.Errorf("ParseOwned string %q does not alias its input", s)
	}
}

// TestFloatValue pins Number.prototype.toString's forms (what
// JSON.stringify writes) for the fast integer path and the general one.
func TestFloatValue(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {7, "7"}, {255, "255"}, {256, "256"}, {-3, "-3"}, {1.5, "1.5"}, {-0.25, "-0.25"},
		{123456789012345, "123456789012345"}, {1e15, "1000000000000000"}, {-1e15, "-1000000000000000"},
		{1e21, "1e+21"}, {1.5e300, "1.5e+300"}, {1e-7, "1e-7"}, {0.000001, "0.000001"},
		{0.30000000000000004, "0.30000000000000004"}, {9007199254740993, "9007199254740992"},
	}
	for _, c := range cases {
		v := FloatValue(c.f)
		if got := MarshalString(v); got != c.want {
			t.Errorf("FloatValue(%v) = %s, want %s", c.f, got, c.want)
		}
		if got := string(AppendFloat(nil, c.f)); got != c.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", c.f, got, c.want)
		}
	}
	if v := FloatValue(math.Inf(1)); !v.IsNull() {
		t.Errorf("FloatValue(+Inf) = %s, want null", MarshalString(v))
	}
	if n := testing.AllocsPerRun(100, func() { _ = FloatValue(42) }); n != 0 {
		t.Errorf("FloatValue(42) allocates %.0f times", n)
	}
}

// TestParseTop checks that ParseTop's nested values survive the next call
// while its top-level list is reused.
func TestParseTop(t *testing.T) {
	var p Parser
	a, err := p.ParseTop([]byte(`{"type":"message","message":{"role":"user","content":[{"type":"text","text":"one"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	msg := *a.Get("message")
	if _, err := p.ParseTop([]byte(`{"type":"x","message":{"role":"assistant"},"more":[1,2,3]}`)); err != nil {
		t.Fatal(err)
	}
	if got := MarshalString(msg); got != `{"role":"user","content":[{"type":"text","text":"one"}]}` {
		t.Errorf("nested value after the next ParseTop: %s", got)
	}
	line := []byte(`{"message":{"k":"v"}}`)
	for range 10 {
		_, _ = p.ParseTop(line)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = p.ParseTop(line) }); n > 0.1 {
		t.Errorf("ParseTop allocates %.2f times per line", n)
	}
}

// TestParseMember checks that ParseMember's values equal Parse's and stay
// unchanged across later calls, and that values parsed one after another
// share blocks (no allocation of their own once the blocks are large).
func TestParseMember(t *testing.T) {
	inputs := []string{
		`{"role":"user","content":[{"type":"text","text":"one"}]}`,
		`{"role":"assistant","content":[],"usage":{"input":1,"output":2}}`,
		`[1,{"a":[2,3]},"s"]`, `"text"`, `null`, `42`, `{}`, `[]`,
	}
	var p Parser
	var kept []Value
	for _, in := range inputs {
		want, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.ParseMember([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if MarshalString(got) != MarshalString(want) {
			t.Errorf("ParseMember(%s) = %s", in, MarshalString(got))
		}
		kept = append(kept, got)
	}
	for i, v := range kept {
		if got := MarshalString(v); got != inputs[i] {
			t.Errorf("value %d after later calls: %s, want %s", i, got, inputs[i])
		}
	}
	if _, err := p.ParseMember([]byte(`{"a":1`)); err == nil {
		t.Error("ParseMember accepted an unterminated object")
	}
	obj := []byte(`{"k":"v","n":[1]}`)
	for range 1000 {
		_, _ = p.ParseMember(obj)
	}
	if n := testing.AllocsPerRun(1000, func() { _, _ = p.ParseMember(obj) }); n > 0.1 {
		t.Errorf("ParseMember allocates %.2f times per value", n)
	}
}

// intern looks b up in the parser's intern table, as the string scan does.
func intern(b []byte) (string, bool) { return internWord(b, word8(b)) }
