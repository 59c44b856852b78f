package store

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// The export writes JSON.stringify(JSON.parse(text)) of each row. OpenClaw
// writes its rows in exactly that form, so for nearly every row the export
// is the stored text: canonicalText proves it without building the value,
// and the export copies the row. A row it cannot prove canonical (spaces,
// escapes JSON.stringify would not write, a number in another form, a
// duplicate or integer-like key, invalid UTF-8, very deep nesting) takes
// the parse-and-write path, which gives the same bytes for a canonical row;
// the fuzz target FuzzCanonicalText holds canonicalText to that.

// maxCanonicalDepth bounds the nesting canonicalText follows; deeper rows
// take the parse-and-write path.
const maxCanonicalDepth = 512

// topField is a top-level member of the event that the index checks read
// (id, parentId): whether it is present, whether it is a string, and the
// string's text (canonical text without escapes, so its raw bytes).
type topField struct {
	present, isString, escaped bool
	text                       []byte
}

// bytes is the field's string as [jsonl.Field.Str] reports it; ok is
// false (and the text empty) for a missing or non-string member.
func (f topField) bytes() ([]byte, bool) {
	if !f.present || !f.isString {
		return nil, false
	}
	return f.text, true
}

// canonScanner checks rows for canonical form; it is reused from row to
// row (its stacks keep their capacity).
type canonScanner struct {
	d    []byte
	i    int
	keys [][]byte // the keys of the open objects, outermost first
	num  []byte   // scratch for a number's canonical form
	// id and parent are the event's top-level "id" and "parentId".
	id, parent topField
}

// canonicalText reports whether d is exactly JSON.stringify(JSON.parse(d)):
// a JSON value without white space, strings escaped as JSON.stringify
// escapes them, numbers in JavaScript's shortest form, no duplicate keys
// and no integer-like keys (JavaScript would move them first). A false
// answer only means "not proven".
func (c *canonScanner) canonicalText(d []byte) bool {
	c.d, c.i, c.keys = d, 0, c.keys[:0]
	c.id, c.parent = topField{}, topField{}
	if !utf8.Valid(d) || !c.value(0) {
		return false
	}
	return c.i == len(d)
}

func (c *canonScanner) value(depth int) bool {
	if c.i >= len(c.d) {
		return false
	}
	switch b := c.d[c.i]; {
	case b == '{':
		return depth < maxCanonicalDepth && c.object(depth+1)
	case b == '[':
		return depth < maxCanonicalDepth && c.array(depth+1)
	case b == '"':
		_, ok := c.str()
		return ok
	case b == 't':
		return c.lit("true")
	case b == 'f':
		return c.lit("false")
	case b == 'n':
		return c.lit("null")
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	}
	return false
}

func (c *canonScanner) lit(l string) bool {
	if !bytes.HasPrefix(c.d[c.i:], []byte(l)) {
		return false
	}
	c.i += len(l)
	return true
}

func (c *canonScanner) object(depth int) bool {
	c.i++ // '{'
	first := len(c.keys)
	defer func() { c.keys = c.keys[:first] }()
	if c.i < len(c.d) && c.d[c.i] == '}' {
		c.i++
		return true
	}
	for {
		if c.i >= len(c.d) || c.d[c.i] != '"' {
			return false
		}
		start := c.i
		escaped, ok := c.str()
		if !ok {
			return false
		}
		key := c.d[start+1 : c.i-1]
		if len(key) > 0 && key[0] >= '0' && key[0] <= '9' && integerLike(key) {
			return false
		}
		for _, k := range c.keys[first:] {
			if bytes.Equal(k, key) {
				return false
			}
		}
		c.keys = append(c.keys, key)
		if c.i >= len(c.d) || c.d[c.i] != ':' {
			return false
		}
		c.i++
		var field *topField
		if depth == 1 && !escaped {
			switch string(key) {
			case "id":
				field = &c.id
			case "parentId":
				field = &c.parent
			}
		}
		if field != nil && c.i < len(c.d) && c.d[c.i] == '"' {
			s := c.i
			esc, ok := c.str()
			if !ok {
				return false
			}
			*field = topField{present: true, isString: true, escaped: esc, text: c.d[s+1 : c.i-1]}
		} else {
			if field != nil {
				*field = topField{present: true}
			}
			if !c.value(depth) {
				return false
			}
		}
		if more, ok := c.after('}'); !more {
			return ok
		}
	}
}

func (c *canonScanner) array(depth int) bool {
	c.i++ // '['
	if c.i < len(c.d) && c.d[c.i] == ']' {
		c.i++
		return true
	}
	for {
		if !c.value(depth) {
			return false
		}
		if more, ok := c.after(']'); !more {
			return ok
		}
	}
}

// after steps over what follows a member: a comma (more is true) or the
// container's closing byte (ok is true).
func (c *canonScanner) after(closing byte) (more, ok bool) {
	if c.i >= len(c.d) {
		return false, false
	}
	switch c.d[c.i] {
	case ',':
		c.i++
		return true, true
	case closing:
		c.i++
		return false, true
	}
	return false, false
}

// str steps over a string whose escapes are the ones JSON.stringify
// writes: \" \\ \b \f \n \r \t, and \u00xx (lower-case hex) for the other
// control characters. The text is known to be valid UTF-8, so it holds no
// lone surrogate that JSON.stringify would escape.
func (c *canonScanner) str() (escaped, ok bool) {
	d := c.d
	for i := c.i + 1; i < len(d); {
		if i+8 <= len(d) {
			// Eight bytes at a time up to the first that ends the string,
			// escapes or is a control character.
			m := jsonl.StringStops(binary.LittleEndian.Uint64(d[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		b := d[i]
		switch {
		case b == '"':
			c.i = i + 1
			return escaped, true
		case b < 0x20:
			return false, false
		case b != '\\':
			i++
			continue
		}
		escaped = true
		if i+1 >= len(d) {
			return false, false
		}
		switch d[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(d) || !shortControlEscape(d[i+2:i+6]) {
				return false, false
			}
			i += 6
		default:
			return false, false
		}
	}
	return false, false
}

// shortControlEscape reports the hex digits h of a \u escape that
// JSON.stringify writes: a control character without a short escape, in
// lower case.
func shortControlEscape(h []byte) bool {
	if h[0] != '0' || h[1] != '0' || (h[2] != '0' && h[2] != '1') {
		return false
	}
	x := h[3]
	var v byte
	switch {
	case x >= '0' && x <= '9':
		v = x - '0'
	case x >= 'a' && x <= 'f':
		v = x - 'a' + 10
	default:
		return false
	}
	if h[2] == '1' {
		v += 16
	}
	switch v {
	case '\b', '\f', '\n', '\r', '\t':
		return false
	}
	return true
}

// number steps over a number already in JavaScript's shortest form.
func (c *canonScanner) number() bool {
	s := c.i
	i := s
	for i < len(c.d) {
		b := c.d[i]
		if (b >= '0' && b <= '9') || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E' {
			i++
			continue
		}
		break
	}
	text := c.d[s:i]
	c.i = i
	if shortInt(text) {
		return true
	}
	if jsonl.Validate(text) != nil {
		return false
	}
	c.num = jsonl.AppendJSNumber(c.num[:0], string(text))
	return bytes.Equal(c.num, text)
}

// shortInt is an integer of at most 15 digits without leading zeros, not
// "-0": JavaScript prints it unchanged.
func shortInt(t []byte) bool {
	neg := len(t) > 0 && t[0] == '-'
	if neg {
		t = t[1:]
	}
	if len(t) == 0 || len(t) > 15 || (t[0] == '0' && (len(t) > 1 || neg)) {
		return false
	}
	for _, b := range t {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// integerLike reports a key JavaScript enumerates before the others: a
// canonical array index (0 to 2^32-2).
func integerLike(k []byte) bool {
	if len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	var n uint64
	for _, b := range k {
		if b < '0' || b > '9' {
			return false
		}
		n = n*10 + uint64(b-'0')
	}
	return n <= 1<<32-2
}
