package jsonl

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The member walk (Enter, Key, More) takes a minified line's names,
// commas and closers on fast paths, off the general ones (keyAny,
// memberKeyAny, moreAny). These tests hold each fast step to its general
// path at every offset of every test line, and the whole walk to
// JSON.parse.

// walkLines is every line of the conformance cases, the corpus and the
// examples, and damaged copies of each (see damagedCopies).
func walkLines(t testing.TB) [][]byte {
	var lines [][]byte
	for _, name := range sessionFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ls, _ := ReadAll(bytesReader(data))
		for _, l := range ls {
			lines = append(lines, l.Bytes)
			lines = append(lines, damagedCopies(l.Bytes)...)
		}
	}
	return lines
}

// damagedCopies are copies of line with the damage the member walk's
// fast steps must notice: white space around names, colons and commas,
// a name cut short, an escape or a control character or a byte that is
// not ASCII in a name, and the line cut at each of its first quotes.
func damagedCopies(line []byte) [][]byte {
	var out [][]byte
	for _, r := range [][2]string{
		{`":`, `" :`}, {`":`, `": `}, {`,"`, `, "`}, {`,"`, ",\n\""}, {`}`, ` }`}, {`]`, "\t]"},
		{`"type"`, `"ty\u0070e"`}, {`"role"`, "\"ro\x01le\""}, {`"id"`, "\"id\xc3\xa9\""}, {`"id"`, "\"i\xff\""},
		{`":`, `"`}, {`,"`, `,`}, {`":"`, `":`},
	} {
		if bytes.Contains(line, []byte(r[0])) {
			out = append(out, bytes.Replace(line, []byte(r[0]), []byte(r[1]), 3))
		}
	}
	for i, n := 0, 0; i < len(line) && n < 6; i++ {
		if line[i] == '"' {
			out = append(out, bytes.Clone(line[:i+1+n%3]))
			n++
		}
	}
	return out
}

// scanOutcome is everything one scanner step decides.
type scanOutcome struct {
	result  string
	err     error
	end     int
	badUTF8 bool
}

// stepBoth runs an fast step and its general path from offset at of line.
func stepBoth(line []byte, at int, fast, general func(*Scanner) (string, error)) (got, want scanOutcome) {
	run := func(f func(*Scanner) (string, error)) scanOutcome {
		s := Scanner{d: line, i: at}
		r, err := f(&s)
		o := scanOutcome{result: r, err: err}
		if err == nil {
			o.end, o.badUTF8 = s.i, s.badUTF8
		}
		return o
	}
	return run(fast), run(general)
}

// enterReference is Enter as it was before the member walk: the white
// space after the opening byte always goes through the loop.
func (s *Scanner) enterReference() (f Field, empty bool) {
	f = Field{kind: Object, present: true}
	if s.d[s.i] == '[' {
		f.kind = Array
	}
	close := s.d[s.i] + 2
	s.i++
	s.space()
	if s.i < len(s.d) && s.d[s.i] == close {
		s.i++
		return f, true
	}
	return f, false
}

// memberSteps are the fast steps and their general paths.
var memberSteps = []struct {
	name          string
	at            func(c byte) bool // the offsets to try: where the byte is c
	fast, general func(*Scanner) (string, error)
}{
	{"Key", isQuote, (*Scanner).Key, (*Scanner).keyAny},
	{"memberKey", isQuote, keyText((*Scanner).memberKey), keyText((*Scanner).memberKeyAny)},
	{"More}", isAfterValue, moreText('}', (*Scanner).More), moreText('}', (*Scanner).moreAny)},
	{"More]", isAfterValue, moreText(']', (*Scanner).More), moreText(']', (*Scanner).moreAny)},
	{"Enter", isOpening, enterText((*Scanner).Enter), enterText((*Scanner).enterReference)},
}

func isQuote(c byte) bool      { return c == '"' }
func isOpening(c byte) bool    { return c == '{' || c == '[' }
func isAfterValue(c byte) bool { return c == ',' || c == '}' || c == ']' || isSpace[c] }

func keyText(f func(*Scanner) ([]byte, bool, error)) func(*Scanner) (string, error) {
	return func(s *Scanner) (string, error) {
		k, esc, err := f(s)
		return fmt.Sprintf("%q %v", k, esc), err
	}
}

func moreText(close byte, f func(*Scanner, byte) (bool, error)) func(*Scanner) (string, error) {
	return func(s *Scanner) (string, error) {
		more, err := f(s, close)
		return fmt.Sprint(more), err
	}
}

func enterText(f func(*Scanner) (Field, bool)) func(*Scanner) (string, error) {
	return func(s *Scanner) (string, error) {
		fl, empty := f(s)
		return fmt.Sprint(fl.kind, empty), nil
	}
}

// checkSteps holds every fast step to its general path at every
// offset of line where it applies.
func checkSteps(t *testing.T, line []byte) {
	t.Helper()
	for at, c := range line {
		for _, st := range memberSteps {
			if !st.at(c) {
				continue
			}
			if got, want := stepBoth(line, at, st.fast, st.general); got != want {
				t.Fatalf("%s at %d of %q: fast %+v, general path %+v", st.name, at, line, got, want)
			}
		}
	}
}

// walk scans the value at the cursor with the member walk, describing
// what it notes: names and strings as they decode, other values' text. It
// sets *dup when an object has a name twice (JSON.parse keeps one).
func walk(s *Scanner, out *strings.Builder, dup *bool) error {
	c := s.Peek()
	if c != '{' && c != '[' {
		f, err := s.Value()
		if err != nil {
			return err
		}
		if str, ok := f.Str(); ok {
			fmt.Fprintf(out, "%q", str)
		} else {
			out.Write(f.text)
		}
		return nil
	}
	_, empty := s.Enter()
	out.WriteByte(c)
	seen := map[string]bool{}
	for more := !empty; more; {
		if c == '{' {
			k, err := s.Key()
			if err != nil {
				return err
			}
			*dup = *dup || seen[k]
			seen[k] = true
			fmt.Fprintf(out, "%q:", k)
		}
		if err := walk(s, out, dup); err != nil {
			return err
		}
		var err error
		if more, err = s.More(c + 2); err != nil {
			return err
		}
		if more {
			out.WriteByte(',')
		}
	}
	out.WriteByte(c + 2)
	return nil
}

// describe is walk's description of a parsed value.
func describe(v *Value, out *strings.Builder) {
	switch v.Kind() {
	case Object, Array:
		open := byte('{')
		if v.Kind() == Array {
			open = '['
		}
		out.WriteByte(open)
		for i, m := range v.Items() {
			if i > 0 {
				out.WriteByte(',')
			}
			if open == '{' {
				fmt.Fprintf(out, "%q:", m.Key)
			}
			describe(&m.Value, out)
		}
		out.WriteByte(open + 2)
	case String:
		s, _ := v.Str()
		fmt.Fprintf(out, "%q", s)
	case Number:
		text, _ := v.NumberText()
		out.WriteString(text)
	default:
		out.WriteString(MarshalString(*v))
	}
}

// checkWalk: the member walk accepts exactly what JSON.parse accepts, and
// on a line without duplicate names notes the names and strings
// JSON.parse decodes.
func checkWalk(t *testing.T, line []byte) {
	t.Helper()
	var s Scanner
	s.Reset(line)
	var got strings.Builder
	dup := false
	err := walk(&s, &got, &dup)
	if err == nil {
		err = s.End()
	}
	v, perr := Parse(line)
	if (err == nil) != (perr == nil) {
		t.Fatalf("%q: walk error %v, JSON.parse error %v", line, err, perr)
	}
	if err != nil || dup {
		return
	}
	var want strings.Builder
	describe(&v, &want)
	if got.String() != want.String() {
		t.Fatalf("%q: walk notes %s, JSON.parse %s", line, got.String(), want.String())
	}
}

// TestMemberWalk: on every test line and its damaged copies, each fast
// step decides as its general path does, and the walk as JSON.parse.
func TestMemberWalk(t *testing.T) {
	for _, line := range walkLines(t) {
		checkSteps(t, line)
		checkWalk(t, line)
	}
}

// FuzzMemberWalk is TestMemberWalk on any line.
func FuzzMemberWalk(f *testing.F) {
	for _, l := range []string{`{"a":1,"bb":"x" , "c" :[1, 2 ,{}],"d":{ }}`, `{"ab\u0063":"\u00e9"}`, "{\"a\x01\":1}", `{"a":1,}`, `{"abcdefghijklmnopqrstuvwxyz":true}`} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkSteps(t, line)
		checkWalk(t, line)
	})
}
