package hygiene

import (
	"regexp"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// JavaScript string semantics the rules need: JavaScript's \s in regular
// expressions, String.prototype.indexOf/trimStart/trimEnd and .length.

// jsSpaceClass is the body of a character class matching what JavaScript's
// \s matches (Go's \s is ASCII only).
const jsSpaceClass = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// jsRegexp compiles a JavaScript pattern whose \s means JavaScript
// whitespace: every `\s` is rewritten to the JavaScript class (inside a
// class as its body, outside as a class). Other escapes are left as they are.
func jsRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			if pattern[i+1] == 's' {
				if inClass {
					b.WriteString(jsSpaceClass)
				} else {
					b.WriteString("[" + jsSpaceClass + "]")
				}
			} else {
				b.WriteByte(c)
				b.WriteByte(pattern[i+1])
			}
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return regexp.MustCompile(b.String())
}

// indexFrom is String.prototype.indexOf(sub, from).
func indexFrom(s, sub string, from int) int {
	if from < 0 {
		from = 0
	}
	if from > len(s) {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return i + from
}

// trimStartJS and trimEndJS are String.prototype.trimStart / trimEnd.
func trimStartJS(s string) string { return strings.TrimLeftFunc(s, jsonl.IsJSSpace) }
func trimEndJS(s string) string   { return strings.TrimRightFunc(s, jsonl.IsJSSpace) }

// utf16Len is a string's JavaScript length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
