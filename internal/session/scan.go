package session

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// scanner walks a line that JSON.parse accepts (checked beforehand with
// [jsonl.Valid]) without building values: it only finds token boundaries.
// On input that is not valid JSON it never panics; it just stops early.
type scanner struct {
	b []byte
	i int
}

// ws skips JSON whitespace.
func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// token is one scanned string: raw is its bytes between the quotes.
type token struct {
	raw     []byte
	escaped bool // raw holds a backslash escape
}

// shortString is how far str looks byte by byte before searching.
const shortString = 32

// str scans a string starting at the opening quote. Each byte is looked
// at a bounded number of times, however many escapes the string holds.
func (s *scanner) str() token {
	s.i++ // opening quote
	start := s.i
	// Most strings (keys, ids, roles) are short: a byte loop finds their
	// end sooner than two searches. A backslash leaves it to the searches.
	for end := min(len(s.b), s.i+shortString); s.i < end && s.b[s.i] != '\\'; s.i++ {
		if s.b[s.i] == '"' {
			t := token{raw: s.b[start:s.i]}
			s.i++
			return t
		}
	}
	escaped := false
	quote := -1 // index of the next '"' at or after s.i, -1 = not searched yet
	for s.i < len(s.b) {
		if quote < s.i {
			j := bytes.IndexByte(s.b[s.i:], '"')
			if j < 0 {
				s.i = len(s.b)
				break
			}
			quote = s.i + j
		}
		k := bytes.IndexByte(s.b[s.i:quote], '\\')
		if k < 0 { // no escape before the quote: the string ends there
			s.i = quote
			t := token{raw: s.b[start:s.i], escaped: escaped}
			s.i++
			return t
		}
		escaped = true
		s.i += k + 2 // the backslash and the escaped byte (\uXXXX's digits need no care)
	}
	return token{raw: s.b[start:min(s.i, len(s.b))], escaped: escaped}
}

// text decodes a string token as JSON.parse would (escapes resolved,
// invalid UTF-8 replaced).
func (t token) text() string {
	if !t.escaped && utf8.Valid(t.raw) {
		return string(t.raw)
	}
	return t.slowText()
}

// slowText decodes through the full parser.
func (t token) slowText() string {
	buf := make([]byte, 0, len(t.raw)+2)
	buf = append(append(append(buf, '"'), t.raw...), '"')
	v, err := jsonl.ParseOwned(buf)
	if err != nil {
		return ""
	}
	return v.StrOr("")
}

// is reports whether the decoded string equals lit, without allocating in
// the common case.
func (t token) is(lit string) bool {
	if !t.escaped {
		return string(t.raw) == lit // invalid UTF-8 never equals an ASCII literal
	}
	return t.slowText() == lit
}

// skip skips one value of any kind.
func (s *scanner) skip() {
	switch s.peek() {
	case '"':
		s.str()
	case '{', '[':
		s.skipContainer()
	default:
		s.scalar()
	}
}

// scalar scans a number or literal and returns its bytes.
func (s *scanner) scalar() []byte {
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return s.b[start:s.i]
		}
		s.i++
	}
	return s.b[start:]
}

// skipContainer skips an object or array, strings included.
func (s *scanner) skipContainer() {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.str()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return
			}
		}
		s.i++
	}
}

// members iterates an object's members starting at '{'. For each key it
// calls f, which must consume the member's value (skip it or scan it).
func (s *scanner) members(f func(key token)) {
	if s.peek() != '{' {
		s.skip()
		return
	}
	s.i++
	for {
		switch s.peek() {
		case '}':
			s.i++
			return
		case ',':
			s.i++
			continue
		case '"':
			key := s.str()
			if s.peek() != ':' {
				return
			}
			s.i++
			before := s.i
			f(key)
			s.progress(before)
		default:
			return // not valid JSON: stop
		}
	}
}

// elements iterates an array's elements starting at '['. f must consume
// each element.
func (s *scanner) elements(f func()) {
	if s.peek() != '[' {
		s.skip()
		return
	}
	s.i++
	for {
		switch s.peek() {
		case ']':
			s.i++
			return
		case ',':
			s.i++
			continue
		case 0:
			return
		}
		before := s.i
		f()
		s.progress(before)
	}
}

// progress makes sure a loop step consumed input: on invalid JSON a value
// may stop at a stray delimiter, which is then skipped.
func (s *scanner) progress(before int) {
	if s.i == before {
		s.skip()
	}
	if s.i == before {
		s.i++
	}
}

// Kind of a scanned JSON value, as far as the session schemas care.
type valKind uint8

const (
	kAbsent valKind = iota // the member is not there (JavaScript undefined)
	kNull
	kFalse
	kTrue
	kNumber
	kString
	kArray
	kObject
)

// field is one scanned member value: its kind, and for strings the token.
type field struct {
	kind valKind
	tok  token
	num  []byte // number text
}

// scanField scans any value, remembering what the schemas need.
func (s *scanner) scanField() field {
	switch c := s.peek(); c {
	case '"':
		return field{kind: kString, tok: s.str()}
	case '{':
		s.skipContainer()
		return field{kind: kObject}
	case '[':
		s.skipContainer()
		return field{kind: kArray}
	case 'n':
		s.scalar()
		return field{kind: kNull}
	case 't':
		s.scalar()
		return field{kind: kTrue}
	case 'f':
		s.scalar()
		return field{kind: kFalse}
	case 0:
		return field{}
	default:
		return field{kind: kNumber, num: s.scalar()}
	}
}

// isStr reports a string value.
func (f field) isStr() bool { return f.kind == kString }

// nonEmptyStr reports a string value of length > 0 (zod's string().min(1)
// counts UTF-16 units; any non-empty raw token decodes to a non-empty string).
func (f field) nonEmptyStr() bool { return f.kind == kString && len(f.tok.raw) > 0 }

// falsy reports JavaScript falsiness of a present value.
func (f field) falsy() bool {
	switch f.kind {
	case kAbsent, kNull, kFalse:
		return true
	case kString:
		return len(f.tok.raw) == 0
	case kNumber:
		v, _ := strconv.ParseFloat(string(f.num), 64)
		return v == 0
	}
	return false
}
