package repair

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Envelope is what the scan of one line noted besides the repair's
// verdict: the navigation fields of the entry, the members of its message
// that the checks read, and the notable blocks of the message's content.
// It lets a caller that needs more than the verdict (check) read the same
// single parse instead of parsing the line again.
//
// Member values follow JSON.parse: a duplicated key keeps its last value,
// keys match after their escapes are decoded, and a duplicated "message" or
// "content" replaces everything noted for the earlier one. Fields alias the
// judged line: an Envelope is valid until the next [LineJudge.Judge] and
// only while the line's bytes are unchanged.
type Envelope struct {
	// Object reports that the line is a JSON object (the other fields are
	// absent otherwise).
	Object bool
	// Top-level members.
	Type, ID, ParentID, Timestamp, AppendMode, TargetID, AppendParentID, FirstKeptEntryID Field
	// Message is the top-level "message" member.
	Message Message
}

// Message is an entry's "message" member. Its members are noted only when
// it is an object.
type Message struct {
	Field
	Role, Content, StopReason, API, Provider, Model Field
	// ResultIDs are the members named by session.ToolResultIDKeys, in that
	// order.
	ResultIDs [6]Field
	// Blocks are the notable object blocks of an array content, in order:
	// those whose type is a tool-call type (session.IsExtendedToolCallType),
	// a thinking type (session.IsThinkingType) or "image".
	Blocks []Block

	contentLen    int  // elements of an array content
	blankText     bool // a text block whose text is blank
	corruptImages int  // corrupted image blocks in an array content
}

// Block is one notable content block.
type Block struct {
	Index int // position in content
	Type  Field
	// Tool calls.
	ID, Name, Input, Arguments Field
	// Thinking: signature, thinkingSignature, thought_signature; redacted
	// thinking may carry its payload in Data.
	Signatures [3]Field
	// Images (and redacted thinking).
	Data, Text Field
	mime       [len(imageMimeKeys)]Field
}

// Field is one member the scan noted. The zero Field is an absent member.
type Field struct {
	text    []byte // a string's body between the quotes, or the value's raw text
	kind    jsonl.Kind
	present bool
	escaped bool // a string body with a backslash
}

// Exists reports whether the member is present.
func (f Field) Exists() bool { return f.present }

// Kind is the member's JSON kind (meaningful only when it exists).
func (f Field) Kind() jsonl.Kind { return f.kind }

// IsNull reports a present null.
func (f Field) IsNull() bool { return f.present && f.kind == jsonl.Null }

// IsString reports a present string.
func (f Field) IsString() bool { return f.present && f.kind == jsonl.String }

// IsObject reports a present object.
func (f Field) IsObject() bool { return f.present && f.kind == jsonl.Object }

// Str returns the decoded string, as JSON.parse decodes it (invalid UTF-8
// replaced, lone surrogates kept as WTF-8), and whether the member is a
// string. Without escapes and with valid UTF-8 it aliases the line.
func (f Field) Str() (string, bool) {
	if !f.IsString() {
		return "", false
	}
	return decodeBody(f.text, f.escaped), true
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
	if !f.escaped {
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
	if !f.escaped {
		return jsonl.IsBlank(f.text)
	}
	return blankEscaped(f.text)
}

// NonEmptyString reports a string that decodes to a non-empty string (any
// non-empty body does).
func (f Field) NonEmptyString() bool { return f.IsString() && len(f.text) > 0 }

// decodeBody decodes a validated JSON string body as JSON.parse does.
func decodeBody(body []byte, escaped bool) string {
	if !escaped {
		if utf8.Valid(body) {
			return unsafe.String(unsafe.SliceData(body), len(body))
		}
		return string(jsonl.ToValidUTF8(body))
	}
	quoted := make([]byte, 0, len(body)+2)
	quoted = append(append(append(quoted, '"'), body...), '"')
	v, err := jsonl.Parse(quoted)
	if err != nil {
		return "" // unreachable: the scanner validated the string
	}
	s, _ := v.Str()
	return s
}

// blankEscaped is [jsonl.IsBlank] of the string a validated JSON string
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
			if r < 0 || !jsonl.IsJSSpace(r) {
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
			if r == utf8.RuneError && n == 1 || !jsonl.IsJSSpace(r) {
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

// clone returns a copy of s that does not alias the line.
func clone(s string) string { return strings.Clone(s) }
