package jsonl

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Field is one value a [Scanner] noted, as JSON.parse reads it. The zero
// Field is an absent member. A Field aliases the scanned line: it is valid
// only while the line's bytes are unchanged.
type Field struct {
	text    []byte // a string's body between the quotes, or the value's raw text
	kind    Kind
	present bool
	form    bodyForm // a string body's escapes and UTF-8 (one field: a Field of four stays in registers)
}

// bodyForm describes a string body.
type bodyForm uint8

const (
	escapedBody bodyForm = 1 << iota // the body has a backslash
	utf8Body                         // the body is known to be valid UTF-8: the scan had met no invalid UTF-8 by its end
)

// escaped reports a string body with a backslash.
func (f *Field) escaped() bool { return f.form&escapedBody != 0 }

// Exists reports whether the member is present.
func (f Field) Exists() bool { return f.present }

// Kind is the member's JSON kind (meaningful only when it exists).
func (f Field) Kind() Kind { return f.kind }

// IsNull reports a present null.
func (f Field) IsNull() bool { return f.present && f.kind == Null }

// IsString reports a present string.
func (f Field) IsString() bool { return f.present && f.kind == String }

// IsObject reports a present object.
func (f Field) IsObject() bool { return f.present && f.kind == Object }

// Str returns the decoded string, as JSON.parse decodes it (invalid UTF-8
// replaced, lone surrogates kept as WTF-8), and whether the member is a
// string. Without escapes and with valid UTF-8 it aliases the line.
func (f Field) Str() (string, bool) {
	if !f.IsString() {
		return "", false
	}
	return f.decoded(), true
}

// StrOr returns the decoded string, or def when the member is not a string.
func (f Field) StrOr(def string) string {
	if s, ok := f.Str(); ok {
		return s
	}
	return def
}

// StrEquals reports whether the member is the string lit.
func (f Field) StrEquals(lit string) bool {
	if !f.IsString() {
		return false
	}
	if !f.escaped() {
		return string(f.text) == lit
	}
	return decodeBody(f.text, true) == lit
}

// IsBlankString reports a string that is empty after JavaScript's trim().
// It stops at the first character that is not white space, without
// decoding: a long text costs no more than a short one.
func (f Field) IsBlankString() bool {
	if !f.IsString() {
		return false
	}
	if !f.escaped() {
		return IsBlank(f.text)
	}
	return blankEscaped(f.text)
}

// NonEmptyString reports a string that decodes to a non-empty string (any
// non-empty body does).
func (f Field) NonEmptyString() bool { return f.IsString() && len(f.text) > 0 }

// decoded is the string body decoded (Str without the kind test), kept
// out of line so that Str inlines.
//
//go:noinline
func (f *Field) decoded() string {
	if f.form == utf8Body { // no escapes, valid UTF-8
		return unsafe.String(unsafe.SliceData(f.text), len(f.text))
	}
	return decodeBody(f.text, f.escaped())
}

// decodeBody decodes a validated JSON string body as JSON.parse does.
func decodeBody(body []byte, escaped bool) string {
	if !escaped {
		if utf8.Valid(body) {
			return unsafe.String(unsafe.SliceData(body), len(body))
		}
		return string(ToValidUTF8(body))
	}
	quoted := make([]byte, 0, len(body)+2)
	quoted = append(append(append(quoted, '"'), body...), '"')
	v, err := ParseOwned(quoted) // quoted is this function's own
	if err != nil {
		return "" // unreachable: the scanner validated the string
	}
	s, _ := v.Str()
	return s
}

// blankEscaped is [IsBlank] of the string a validated JSON string
// body with escapes decodes to. Escapes that stand for white space are \t,
// \n, \f, \r and \u of a JavaScript white-space code point; a surrogate
// (paired or not) never is.
func blankEscaped(body []byte) bool {
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			n, r := 2, rune(-1)
			switch body[i+1] {
			case 't':
				r = '\t'
			case 'n':
				r = '\n'
			case 'f':
				r = '\f'
			case 'r':
				r = '\r'
			case 'u':
				n, r = 6, hexRune(body[i+2:i+6])
			}
			if r < 0 || !IsJSSpace(r) {
				return false
			}
			i += n
		case c < utf8.RuneSelf:
			if c != ' ' {
				return false // raw control characters are not valid in a string
			}
			i++
		default:
			r, n := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && n == 1 || !IsJSSpace(r) {
				return false
			}
			i += n
		}
	}
	return true
}

// hexRune decodes the four hex digits of a validated \u escape.
func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= 'a':
			c -= 'a' - 10
		case c >= 'A':
			c -= 'A' - 10
		default:
			c -= '0'
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Raw is a string's body between the quotes (escapes not decoded), or the
// raw text of a number, literal or a container noted with Value.
func (f Field) Raw() []byte { return f.text }

// Escaped reports a string whose body holds a backslash escape.
func (f Field) Escaped() bool { return f.escaped() }

// IsNumber reports a present number.
func (f Field) IsNumber() bool { return f.present && f.kind == Number }

// IsBool reports a present boolean.
func (f Field) IsBool() bool { return f.present && f.kind == Bool }

// Falsy reports JavaScript's falsiness of the member: absent, null, false,
// "", 0 and -0.
func (f Field) Falsy() bool {
	switch {
	case !f.present || f.kind == Null:
		return true
	case f.kind == Bool:
		return f.text[0] == 'f'
	case f.kind == String:
		return len(f.text) == 0
	case f.kind == Number:
		v, _ := strconv.ParseFloat(string(f.text), 64)
		return v == 0
	}
	return false
}
