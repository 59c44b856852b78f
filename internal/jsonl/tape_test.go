package jsonl

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// validityCases are the lines of TestValidityMatchesJSONParse (parse_test.go)
// plus cases that stress the tape's own paths (SWAR string scan at word
// boundaries, nesting, errors inside keys). want is what JSON.parse does.
func validityCases() []struct {
	name string
	line string
	want bool
} {
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}` }
	return []struct {
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
		// Tape-specific paths.
		{"long ASCII string", `{"a":"` + strings.Repeat("abcdefgh", 9) + `"}`, true},
		{"control char after 8 clean bytes", "{\"a\":\"abcdefgh\x01\"}", false},
		{"control char at byte 7 of a word", "{\"a\":\"abcdefg\x1f\"}", false},
		{"quote at word boundary", `{"a":"abcdefgh","b":"12345678"}`, true},
		{"backslash at word boundary", `{"a":"abcdefg\\n"}`, true},
		{"escape at end of input", `{"a":"abc\`, false},
		{"short unicode escape", `{"a":"\u12"}`, false},
		{"high bytes then control", "{\"a\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\x7f\x02\"}", false},
		{"bad key", `{"a":1,2:3}`, false},
		{"missing colon", `{"a" 1}`, false},
		{"empty containers", `{"a":{},"b":[],"c":[{}],"d":[[]]}`, true},
		{"space inside containers", "{ \"a\" : [ 1 , 2 ] , \"b\" : { } }", true},
		{"mismatched closer", `{"a":[1}`, false},
		{"literal truncated", `{"a":tru`, false},
		{"literals", `[true,false,null]`, true},
		{"unterminated array", `[1,2`, false},
		{"lone minus", `-`, false},
		{"unclosed key string", `{"abc`, false},
	}
}

// TestTapeMatchesValidate checks the tape's verdict and error against
// Validate on the validity table and on every line of the test corpora.
func TestTapeMatchesValidate(t *testing.T) {
	var tp Tape
	for _, c := range validityCases() {
		t.Run(c.name, func(t *testing.T) {
			err := tp.Parse([]byte(c.line))
			if got := err == nil; got != c.want {
				t.Errorf("Tape.Parse ok = %v, want %v (err %v)", got, c.want, err)
			}
			if want := Validate([]byte(c.line)); !reflect.DeepEqual(err, want) {
				t.Errorf("Tape.Parse err = %v, Validate err = %v", err, want)
			}
		})
	}
	for _, line := range corpusLines(t) {
		err := tp.Parse(line)
		if want := Validate(line); !reflect.DeepEqual(err, want) {
			t.Errorf("line %.80q: Tape.Parse err = %v, Validate err = %v", line, err, want)
		}
	}
}

// TestTapeValueMatchesParse checks that converting the root (and every
// subtree) gives what Parse gives for the same text.
func TestTapeValueMatchesParse(t *testing.T) {
	lines := corpusLines(t)
	for _, c := range validityCases() {
		if c.want {
			lines = append(lines, []byte(c.line))
		}
	}
	var tp Tape
	for _, line := range lines {
		if tp.Parse(line) != nil {
			continue
		}
		want, err := Parse(line)
		if err != nil {
			t.Fatalf("Parse(%.80q): %v", line, err)
		}
		got := tp.Root().Value()
		if len(line) > 4096 { // deep nesting: DeepEqual's recursion is slow there
			if MarshalString(got) != MarshalString(want) {
				t.Errorf("Value(%.80q) differs from Parse", line)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Value(%.80q) = %.200s, want %.200s", line, MarshalString(got), MarshalString(want))
		}
		if len(line) < 4096 { // subtree checks are quadratic in depth
			checkSubtrees(t, tp.Root())
		}
	}
}

// checkSubtrees compares every nested value with a parse of its raw text.
func checkSubtrees(t *testing.T, n Node) {
	t.Helper()
	want, err := Parse(n.Raw())
	if err != nil {
		t.Fatalf("raw subtree %.80q does not parse: %v", n.Raw(), err)
	}
	if got := n.Value(); !reflect.DeepEqual(got, want) {
		t.Fatalf("subtree %.80q: Value = %s, want %s", n.Raw(), MarshalString(got), MarshalString(want))
	}
	if n.Kind() == Object || n.Kind() == Array {
		if n.Len() != want.Len() && n.Kind() == Array {
			t.Fatalf("Len = %d, want %d", n.Len(), want.Len())
		}
		for c := range n.Elems() {
			checkSubtrees(t, c)
		}
		for _, c := range n.Members() {
			checkSubtrees(t, c)
		}
	}
}

func TestTapeLookups(t *testing.T) {
	line := []byte(`{"type":"message","id":"a1","parentId":null,"n":-1.50,"ok":true,"no":false,` +
		`"message":{"role":"user","role":"assistant","content":[{"type":"text","text":"hi\nthere"},` +
		`{"type":"image","data":"x` + "\xff" + `y"},7]},"\u0074ype":"session","esc\u00e9":"v","e\u0301":1,"s":""}`)
	var tp Tape
	if err := tp.Parse(line); err != nil {
		t.Fatal(err)
	}
	r := tp.Root()
	str := func(n Node) string { s, _ := n.Str(); return s }
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"escaped duplicate key wins", str(r.Get("type")), "session"},
		{"StrEquals decodes escaped key", r.Get("type").StrEquals("session"), true},
		{"plain string", str(r.Get("id")), "a1"},
		{"null exists", r.Get("parentId").Exists() && r.Get("parentId").IsNull(), true},
		{"missing member", r.Get("nope").Exists(), false},
		{"chained missing", r.Get("nope").Get("x").Get("y").Exists(), false},
		{"number text", func() string { s, _ := r.Get("n").NumberText(); return s }(), "-1.50"},
		{"float", func() float64 { f, _ := r.Get("n").Float(); return f }(), -1.5},
		{"bool true", r.Get("ok").IsTrue(), true},
		{"bool false", r.Get("no").IsTrue(), false},
		{"last duplicate role", str(r.Path("message", "role")), "assistant"},
		{"content length", r.Path("message", "content").Len(), 3},
		{"members count dups", r.Get("message").Len(), 3},
		{"escaped text", str(r.Path("message", "content").Index(0).Get("text")), "hi\nthere"},
		{"invalid UTF-8 replaced", str(r.Path("message", "content").Index(1).Get("data")), "x\uFFFDy"},
		{"index out of range", r.Path("message", "content").Index(3).Exists(), false},
		{"non-object Get", r.Path("message", "content").Index(2).Get("type").Exists(), false},
		{"escaped non-ASCII key", str(r.Get("esc\u00e9")), "v"},
		{"combining key not NFC-equal", r.Get("\u00e9").Exists(), false},
		{"empty string falsy", r.Get("s").Truthy(), false},
		{"object truthy", r.Get("message").Truthy(), true},
		{"undefined falsy", r.Get("zzz").Truthy(), false},
		{"offset of id", r.Get("id").Offset(), strings.Index(string(line), `"a1"`)},
		{"raw of n", string(r.Get("n").Raw()), "-1.50"},
		{"str len raw", r.Path("message", "content").Index(0).Get("text").StrLen(), len(`hi\nthere`)},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	var keys []string
	for k := range r.Members() {
		keys = append(keys, str(k))
	}
	if len(keys) != 11 || keys[0] != "type" || keys[7] != "type" || keys[9] != "e\u0301" {
		t.Errorf("Members keys = %q", keys)
	}
}

func TestTapeFailedParseHasNoRoot(t *testing.T) {
	var tp Tape
	if err := tp.Parse([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	var se *SyntaxError
	if err := tp.Parse([]byte(`{"a":`)); !errors.As(err, &se) {
		t.Fatalf("err = %v, want a SyntaxError", err)
	}
	if tp.Root().Exists() {
		t.Error("root exists after a failed parse")
	}
}

func TestTapeSteadyStateDoesNotAllocate(t *testing.T) {
	// Valid lines only: a rejected line allocates its *SyntaxError.
	var lines [][]byte
	var tp Tape
	for _, l := range corpusLines(t) {
		if tp.Parse(l) == nil {
			lines = append(lines, l)
		}
	}
	allocs := testing.AllocsPerRun(5, func() {
		for _, l := range lines {
			if tp.Parse(l) != nil {
				t.Fatal("valid line rejected")
			}
			r := tp.Root()
			_ = r.Get("type").StrEquals("message")
			_ = r.Path("message", "role").StrEquals("assistant")
			_, _ = r.Get("id").StrRaw()
			for b := range r.Path("message", "content").Elems() {
				_ = b.Get("type").StrEquals("toolCall")
			}
		}
	})
	if allocs > 0 {
		t.Errorf("%v allocations per pass over %d lines, want 0", allocs, len(lines))
	}
}

// FuzzTapeMatchesValid checks that the tape and Validate agree on every
// input (verdict and error), and that a valid tape converts to Parse's value.
func FuzzTapeMatchesValid(f *testing.F) {
	seedLines(f)
	for _, c := range validityCases() {
		if len(c.line) < 4096 {
			f.Add([]byte(c.line))
		}
	}
	var tp Tape
	f.Fuzz(func(t *testing.T, data []byte) {
		err := tp.Parse(data)
		if want := Validate(data); !reflect.DeepEqual(err, want) {
			t.Fatalf("Tape.Parse err = %v, Validate err = %v", err, want)
		}
		if err != nil {
			return
		}
		want, _ := Parse(data)
		if got := tp.Root().Value(); !reflect.DeepEqual(got, want) {
			t.Fatalf("Value = %s, Parse = %s", MarshalString(got), MarshalString(want))
		}
	})
}

// corpusLines returns every line of the conformance cases and the corpus.
func corpusLines(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for _, pattern := range []string{"../../testdata/conformance/cases/*.jsonl", "../../testdata/corpus/*.jsonl"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			lines, err := ReadAll(bytesReader(data))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				out = append(out, l.Bytes)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no test lines found")
	}
	return out
}
