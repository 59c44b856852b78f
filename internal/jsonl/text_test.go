package jsonl

import (
	"testing"
	"unicode/utf8"
)

// trimJSRunes is TrimJS rune by rune, without its ASCII fast path: the
// reference TrimJS is checked against.
func trimJSRunes(s string) string {
	start, end := 0, len(s)
	for start < end {
		r, n := utf8.DecodeRuneInString(s[start:])
		if !IsJSSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !IsJSSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		end -= n
	}
	return s[start:end]
}

var trimInputs = []string{
	"", " ", "a", " a ", "\t\n\v\f\r a b \r\n", "\u00a0x\u3000", "\ufeff\u2028\u2029",
	"\xff ", " \xff", "\xe2\x80", " \xe2\x80\xa8", "x\u202f", "\u1680\u205f", "toolu_01 ",
	"\x00 a \x00", "中文 ", " é",
}

func TestTrimJS(t *testing.T) {
	for _, s := range trimInputs {
		if got, want := TrimJS(s), trimJSRunes(s); got != want {
			t.Errorf("TrimJS(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzTrimJS(f *testing.F) {
	for _, s := range trimInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := TrimJS(s), trimJSRunes(s); got != want {
			t.Errorf("TrimJS(%q) = %q, want %q", s, got, want)
		}
	})
}
