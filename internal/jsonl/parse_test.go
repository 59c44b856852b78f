package jsonl

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestValidityMatchesJSONParse pins the cases where Go's standard library and
// JavaScript's JSON.parse (after UTF-8 decoding) disagree, plus the ordinary
// rejections. want is what JSON.parse does.
func TestValidityMatchesJSONParse(t *testing.T) {
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}` }
	cases := []struct {
		name string
		line string
		want bool
	}{
		{"baseline", `{"a":"x"}`, true},
		{"invalid UTF-8 byte in string", "{\"a\":\"x\xffy\"}", true},
		{"truncated UTF-8 sequence in string", "{\"a\":\"x\xe2\x82\"}", true},
		{"invalid UTF-8 in key", "{\"a\xff\":1}", true},
		{"invalid UTF-8 outside string", "{\"a\":1}\xff", false},
		{"lone high surrogate", `{"a":"\ud83d"}`, true},
		{"lone low surrogate", `{"a":"\ude00x"}`, true},
		{"duplicate keys", `{"a":1,"a":2}`, true},
		{"number overflow", `{"a":1e400}`, true},
		{"big integer", `{"a":12345678901234567890}`, true},
		{"negative zero", `{"a":-0}`, true},
		{"nesting 10001", deep(10001), true},
		{"nesting 100000", deep(100000), true},
		{"BOM prefix", "\xef\xbb\xbf{\"type\":\"session\"}", false},
		{"raw TAB in string", "{\"a\":\"x\ty\"}", false},
		{"raw NUL in string", "{\"a\":\"x\x00y\"}", false},
		{"raw DEL in string", "{\"a\":\"x\x7fy\"}", true},
		{"escaped NUL", `{"a":"\u0000"}`, true},
		{"invalid escape", `{"a":"\x"}`, false},
		{"NaN", `{"a":NaN}`, false},
		{"leading zero", `{"a":01}`, false},
		{"trailing comma object", `{"a":1,}`, false},
		{"trailing comma array", `[1,]`, false},
		{"two values", `{"a":1} {"b":2}`, false},
		{"trailing garbage", `{"a":1}x`, false},
		{"whitespace around", " \t{\"a\":1}\r ", true},
		{"form feed whitespace", "\f{\"a\":1}", false},
		{"non-breaking space around", "\u00a0{\"a\":1}", false},
		{"top-level number", `42`, true},
		{"top-level null", `null`, true},
		{"top-level array", `[1]`, true},
		{"truncated object", `{"type":"message"`, false},
		{"empty", ``, false},
		{"fraction without digits", `1.`, false},
		{"exponent without digits", `1e`, false},
		{"plus sign", `+1`, false},
		{"single quotes", `{'a':1}`, false},
		{"unquoted key", `{a:1}`, false},
		{"raw U+2028 in string", "{\"a\":\"x\u2028y\"}", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Valid([]byte(c.line)); got != c.want {
				t.Errorf("Valid = %v, want %v (err %v)", got, c.want, Validate([]byte(c.line)))
			}
			_, err := Parse([]byte(c.line))
			if got := err == nil; got != c.want {
				t.Errorf("Parse ok = %v, want %v (err %v)", got, c.want, err)
			}
		})
	}
}

// TestRoundTripMatchesJSONStringify pins JSON.stringify(JSON.parse(line)).
func TestRoundTripMatchesJSONStringify(t *testing.T) {
	cases := []struct{ in, want string }{
		{"{\"a\":\"x\xffy\"}", "{\"a\":\"x\uFFFDy\"}"},
		{"{\"a\":\"x\xe2\x82\"}", "{\"a\":\"x\uFFFD\"}"},
		{"{\"a\":\"\xed\xa0\xbd\"}", "{\"a\":\"\uFFFD\uFFFD\uFFFD\"}"},
		{"{\"a\":\"\xc0\xaf\"}", "{\"a\":\"\uFFFD\uFFFD\"}"},
		{`{"a":"\ud83d"}`, `{"a":"\ud83d"}`},
		{`{"a":"\ude00\ud83d"}`, `{"a":"\ude00\ud83d"}`},
		{`{"a":"\ud83d\ude00"}`, "{\"a\":\"\U0001F600\"}"},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`{"b":1,"a":2,"b":3}`, `{"b":3,"a":2}`},
		{`{"b":1,"2":2,"1":3,"01":4}`, `{"1":3,"2":2,"b":1,"01":4}`},
		{`{"a":{"x":["y",{"z":1}]},"5":"v","b":[{"c":2,"3":1}]}`, `{"5":"v","a":{"x":["y",{"z":1}]},"b":[{"3":1,"c":2}]}`},
		{`{"a":1e400,"b":-1e400}`, `{"a":null,"b":null}`},
		{`{"a":12345678901234567890}`, `{"a":12345678901234567000}`},
		{`{"a":-0,"b":-0.0}`, `{"a":0,"b":0}`},
		{`{"a":1.0,"b":1E2,"c":1E+21,"d":1e21,"e":1e-7,"f":0.000001,"g":123e-20}`, `{"a":1,"b":100,"c":1e+21,"d":1e+21,"e":1e-7,"f":0.000001,"g":1.23e-18}`},
		{`{"a":100000000000000000000}`, `{"a":100000000000000000000}`},
		{`{"a":0.1,"b":-2.5,"c":1e-6}`, `{"a":0.1,"b":-2.5,"c":0.000001}`},
		{`{"a":"\u00e9\/\u0041"}`, "{\"a\":\"\u00e9/A\"}"},
		{`{"a":"<b>&amp;</b>"}`, `{"a":"<b>&amp;</b>"}`},
		{"{\"a\":\"x\u2028y\"}", "{\"a\":\"x\u2028y\"}"},
		{`{"a":"\u0000\u001f\b\f\n\r\t\"\\"}`, `{"a":"\u0000\u001f\b\f\n\r\t\"\\"}`},
		{` [ 1 , { } , [ ] ] `, `[1,{},[]]`},
		{`{"__proto__":{"x":1}}`, `{"__proto__":{"x":1}}`},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in))
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := MarshalString(v); got != c.want {
			t.Errorf("stringify(parse(%q)) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestToValidUTF8(t *testing.T) {
	cases := []struct{ in, want string }{
		{"abc", "abc"},
		{"x\xe2\x82y", "x\uFFFDy"},
		{"\xe2\x82", "\uFFFD"},
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"\xf0\x9f\x98", "\uFFFD"},
		{"\xf0\x9f\x98\x80", "\U0001F600"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xe0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
	}
	for _, c := range cases {
		if got := string(ToValidUTF8([]byte(c.in))); got != c.want {
			t.Errorf("ToValidUTF8(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestIsBlank(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"", true}, {"  \t\r", true}, {"\ufeff", true}, {"\u00a0\u2028\u2029\u3000\u200a", true},
		{"\u200b", false}, {"\xff", false}, {" x ", false}, {"\v\f", true},
	}
	for _, c := range cases {
		if got := IsBlank([]byte(c.in)); got != c.want {
			t.Errorf("IsBlank(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestShortIntMatchesParseFloat checks the integer fast path of
// parseJSNumber against strconv.ParseFloat, sign of zero included.
func TestShortIntMatchesParseFloat(t *testing.T) {
	texts := []string{"0", "-0", "7", "-7", "10", "1767225600001", "999999999999999", "-999999999999999",
		"1000000000000000", "9007199254740993", "1.5", "1e3", "-", "", "12a", "007", "-00"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		n := rng.Int64N(1_000_000_000_000_000)
		texts = append(texts, strconv.FormatInt(n>>(rng.IntN(50)), 10), "-"+strconv.FormatInt(n, 10))
	}
	for _, s := range texts {
		want, err := strconv.ParseFloat(s, 64)
		f, ok := shortInt(s)
		if !ok {
			continue
		}
		if err != nil || math.Float64bits(f) != math.Float64bits(want) {
			t.Errorf("shortInt(%q) = %v, ParseFloat gives %v (%v)", s, f, want, err)
		}
	}
	for _, s := range []string{"0", "-0", "42", "1767225600001"} {
		if _, ok := shortInt(s); !ok {
			t.Errorf("shortInt(%q) takes the slow path", s)
		}
	}
}
