package jsonl

import (
	"unicode/utf8"
)

// IsBlank reports whether b, decoded as UTF-8, is empty after JavaScript's
// String.prototype.trim(). That set is wider than JSON's whitespace: it
// includes U+00A0, U+FEFF, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F,
// U+205F and U+3000. An invalid byte decodes to U+FFFD, which is not blank.
func IsBlank(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if !isASCIISpaceJS(c) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !IsJSSpace(r) || (r == utf8.RuneError && n == 1) {
			return false
		}
		i += n
	}
	return true
}

// TrimJS trims s the way JavaScript's String.prototype.trim() does.
// ASCII bytes, which most text starts and ends with, are judged without
// decoding.
func TrimJS(s string) string {
	start, end := 0, len(s)
	for start < end {
		if c := s[start]; c < utf8.RuneSelf {
			if !isASCIISpaceJS(c) {
				break
			}
			start++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[start:])
		if !IsJSSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		start += n
	}
	for end > start {
		if c := s[end-1]; c < utf8.RuneSelf {
			if !isASCIISpaceJS(c) {
				break
			}
			end--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !IsJSSpace(r) || (r == utf8.RuneError && n == 1) {
			break
		}
		end -= n
	}
	return s[start:end]
}

// IsBlankJS reports whether TrimJS(s) is empty.
func IsBlankJS(s string) bool { return TrimJS(s) == "" }

func isASCIISpaceJS(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// IsJSSpace reports whether r is WhiteSpace or LineTerminator in ECMAScript.
func IsJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x00A0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// ToValidUTF8 replaces invalid UTF-8 in b the way the WHATWG UTF-8 decoder
// (Node's TextDecoder and Buffer.toString) does: one U+FFFD per maximal
// subpart of an ill-formed sequence. "E2 82" followed by ASCII gives one
// U+FFFD, where a byte-by-byte loop gives two. It returns b itself when b is
// already valid.
func ToValidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return appendValidUTF8(make([]byte, 0, len(b)+8), b)
}

// appendValidUTF8 appends b to dst with WHATWG replacement.
func appendValidUTF8(dst, b []byte) []byte {
	const repl = "\uFFFD"
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			dst = append(dst, c)
			i++
			continue
		}
		n := wellFormedLen(b[i:])
		if n > 0 {
			dst = append(dst, b[i:i+n]...)
			i += n
			continue
		}
		dst = append(dst, repl...)
		i += maximalSubpart(b[i:])
	}
	return dst
}

// wellFormedLen returns the length of the well-formed UTF-8 sequence at the
// start of b, or 0 when it is ill-formed.
func wellFormedLen(b []byte) int {
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n <= 1 {
		return 0
	}
	return n
}

// maximalSubpart returns how many bytes of the ill-formed sequence at the
// start of b one U+FFFD replaces (at least 1), following the WHATWG decoder:
// a valid lead byte swallows the continuation bytes that are allowed after
// it until one is not.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lower, upper := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
		if c == 0xE0 {
			lower = 0xA0
		} else if c == 0xED {
			upper = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		need = 3
		if c == 0xF0 {
			lower = 0x90
		} else if c == 0xF4 {
			upper = 0x8F
		}
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(b); i++ {
		if b[i] < lower || b[i] > upper {
			return i
		}
		lower, upper = 0x80, 0xBF
	}
	return i
}
