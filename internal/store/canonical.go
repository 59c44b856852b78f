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
//
// canonicalText proves a row in one of two ways: a plain row (ASCII
// without escapes or control bytes, nearly all of OpenClaw's) through
// blocks (canonical_blocks.go), which finds the end of each string in the
// row's quote bits; any other row, or one blocks cannot prove, through
// tree, the same descent a byte or a word at a time. On plain rows the two
// give the same answers (FuzzCanonicalBlocks).

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
// row (its stack keeps its capacity). Its methods take the read position
// and return the next one, or -1 when the text is not proven canonical:
// the position stays in a register through the scan.
type canonScanner struct {
	d    []byte
	keys []keySpan // the keys of the open objects, outermost first
	num  []byte    // scratch for a number's canonical form
	// quotes has a bit for each quote of a row plain (see blocks), 64
	// bytes a word, and a last word 0.
	quotes []uint64
	// id and parent are the event's top-level "id" and "parentId".
	id, parent topField
}

// keySpan is a member key of an open object: d[start:end].
type keySpan struct{ start, end int }

// canonicalText reports whether d is exactly JSON.stringify(JSON.parse(d)):
// a JSON value without white space, strings escaped as JSON.stringify
// escapes them, numbers in JavaScript's shortest form, no duplicate keys
// and no integer-like keys (JavaScript would move them first), and valid
// UTF-8 (checked inside the strings, the only place JSON allows bytes
// past ASCII). A false answer only means "not proven".
func (c *canonScanner) canonicalText(d []byte) bool {
	if c.blocks(d) {
		return true
	}
	return c.tree(d)
}

// tree is canonicalText by recursive descent, a byte or a word at a
// time: the proof of the rows [canonScanner.blocks] leaves (those with
// escapes, control bytes or bytes past ASCII, and those it does not prove
// canonical, for which tree gives the same answer).
func (c *canonScanner) tree(d []byte) bool {
	c.d, c.keys = d, c.keys[:0]
	c.id, c.parent = topField{}, topField{}
	i := c.value(0, 0)
	c.d = nil
	return i == len(d)
}

// value steps over the value at i.
func (c *canonScanner) value(i, depth int) int {
	d := c.d
	if i >= len(d) {
		return -1
	}
	switch b := d[i]; {
	case b == '"':
		i, _ = c.str(i)
		return i
	case b == '{':
		if depth >= maxCanonicalDepth {
			return -1
		}
		return c.object(i, depth+1)
	case b == '[':
		if depth >= maxCanonicalDepth {
			return -1
		}
		return c.array(i, depth+1)
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number(i)
	case b == 't':
		return lit(d, i, "true")
	case b == 'f':
		return lit(d, i, "false")
	case b == 'n':
		return lit(d, i, "null")
	}
	return -1
}

func lit(d []byte, i int, l string) int {
	if len(d)-i < len(l) || string(d[i:i+len(l)]) != l {
		return -1
	}
	return i + len(l)
}

// keyBit is a key's bit in an object's set of the keys seen: a repeated
// key finds its bit set, and only then are the keys compared.
func keyBit(k []byte) uint64 {
	if len(k) == 0 {
		return 1
	}
	return 1 << ((uint(len(k)) + uint(k[0])*7 + uint(k[len(k)-1])*3) & 63)
}

func (c *canonScanner) object(i, depth int) int {
	d := c.d
	i++ // '{'
	if i < len(d) && d[i] == '}' {
		return i + 1
	}
	first := len(c.keys)
	var seen uint64 // keyBit of the keys so far
	for {
		if i >= len(d) || d[i] != '"' {
			return -1
		}
		start := i
		// The key's body up to its first byte that stops a string: the
		// closing quote for nearly every key, without a call.
		j := i + 1
		for j+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[j:])
			if m := jsonl.StringStops(w) | w&0x8080808080808080; m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
			j += 8
		}
		escaped := false
		if j < len(d) && d[j] == '"' {
			i = j + 1
		} else if i, escaped = c.strBody(j); i < 0 {
			return -1
		}
		key := d[start+1 : i-1]
		if len(key) > 0 && key[0] <= '9' && key[0] >= '0' && integerLike(key) {
			return -1
		}
		if bit := keyBit(key); seen&bit == 0 {
			seen |= bit
		} else if c.repeated(first, key) {
			return -1
		}
		c.keys = append(c.keys, keySpan{start + 1, i - 1})
		if i >= len(d) || d[i] != ':' {
			return -1
		}
		i++
		if depth == 1 && !escaped && (len(key) == 2 || len(key) == 8) {
			i = c.topMember(i, depth, key)
		} else {
			i = c.value(i, depth)
		}
		if i < 0 || i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i++
		case '}':
			c.keys = c.keys[:first]
			return i + 1
		default:
			return -1
		}
	}
}

// repeated reports whether key is one of the open object's keys so far
// (those from first on).
func (c *canonScanner) repeated(first int, key []byte) bool {
	for _, k := range c.keys[first:] {
		if bytes.Equal(c.d[k.start:k.end], key) {
			return true
		}
	}
	return false
}

// topMember steps over the value at i of a top-level member whose key
// (without escapes) may be "id" or "parentId", and keeps it.
func (c *canonScanner) topMember(i, depth int, key []byte) int {
	var field *topField
	switch string(key) {
	case "id":
		field = &c.id
	case "parentId":
		field = &c.parent
	default:
		return c.value(i, depth)
	}
	if i < len(c.d) && c.d[i] == '"' {
		s := i
		i, esc := c.str(i)
		if i < 0 {
			return -1
		}
		*field = topField{present: true, isString: true, escaped: esc, text: c.d[s+1 : i-1]}
		return i
	}
	*field = topField{present: true}
	return c.value(i, depth)
}

func (c *canonScanner) array(i, depth int) int {
	d := c.d
	i++ // '['
	if i < len(d) && d[i] == ']' {
		return i + 1
	}
	for {
		if i = c.value(i, depth); i < 0 || i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i++
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// str steps over the string at i whose escapes are the ones JSON.stringify
// writes: \" \\ \b \f \n \r \t, and \u00xx (lower-case hex) for the other
// control characters; its bytes past ASCII must be strict UTF-8 (no
// surrogate halves, which JSON.stringify would escape).
func (c *canonScanner) str(i int) (next int, escaped bool) { return c.strBody(i + 1) }

// strBody is str from i, a position in the string's body: the bytes
// before it are known to be plain ASCII, without quote or escape.
func (c *canonScanner) strBody(i int) (next int, escaped bool) {
	d := c.d
	for i < len(d) {
		if i+8 <= len(d) {
			// Eight bytes at a time up to the first that ends the string,
			// escapes, is a control character or is not ASCII.
			w := binary.LittleEndian.Uint64(d[i:])
			m := jsonl.StringStops(w) | w&0x8080808080808080
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		b := d[i]
		switch {
		case b == '"':
			return i + 1, escaped
		case b >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && n <= 1 {
				return -1, false
			}
			i += n
			continue
		case b < 0x20:
			return -1, false
		case b != '\\':
			i++
			continue
		}
		escaped = true
		if i+1 >= len(d) {
			return -1, false
		}
		switch d[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(d) || !shortControlEscape(d[i+2:i+6]) {
				return -1, false
			}
			i += 6
		default:
			return -1, false
		}
	}
	return -1, false
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

// number steps over the number at i, already in JavaScript's shortest
// form.
func (c *canonScanner) number(i int) int {
	d := c.d
	s := i
	// Most numbers are short integers, which JavaScript prints unchanged:
	// digits, not "-0", no leading zero, at most 15 of them, then a byte
	// that is not part of a number.
	if d[i] == '-' {
		i++
	}
	j := digitsEnd(d, i)
	if n := j - i; n > 0 && n <= 15 && (d[i] != '0' || n == 1 && i == s) &&
		(j == len(d) || d[j] != '.' && d[j] != 'e' && d[j] != 'E' && d[j] != '+' && d[j] != '-') {
		return j
	}
	i = s
	for i < len(d) {
		b := d[i]
		if (b >= '0' && b <= '9') || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E' {
			i++
			continue
		}
		break
	}
	text := d[s:i]
	if jsonl.Validate(text) != nil {
		return -1
	}
	c.num = jsonl.AppendJSNumber(c.num[:0], string(text))
	if !bytes.Equal(c.num, text) {
		return -1
	}
	return i
}

// digitsEnd returns the end of the run of decimal digits at i, eight
// bytes at a time: a byte x^'0' is a digit when it is at most 9, which
// adding 0x76 to its low seven bits tells in bit 7 without a carry into
// the next byte.
func digitsEnd(d []byte, i int) int {
	for i+8 <= len(d) {
		x := binary.LittleEndian.Uint64(d[i:]) ^ 0x3030303030303030
		if m := ((x &^ 0x8080808080808080) + 0x7676767676767676 | x) & 0x8080808080808080; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
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
