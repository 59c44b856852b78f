package store

import (
	"math/bits"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// blocks is canonicalText for the rows that are plain: ASCII without
// escapes or control bytes, nearly all of OpenClaw's. Without backslashes
// every quote opens or closes a string, and without control bytes or
// bytes past ASCII every string is canonical as it is, so the descent
// finds the end of each string (each key) in the row's quote bits alone,
// which jsonl.AppendPlainQuotes reads 64 bytes at a time. It returns false
// when it cannot prove the row canonical (then [canonScanner.tree]
// decides): a row that is not plain, or any form tree would reject.
//
// The descent (plainValue, plainObject, plainTopMember, plainArray) is
// tree's, written again with plainString for the strings: one descent for
// both, choosing at each string, took 11 % more instructions on plain rows
// and 7 % more on the others. FuzzCanonicalBlocks holds the two to the
// same answers.
func (c *canonScanner) blocks(d []byte) bool {
	if !c.plain(d) {
		return false
	}
	c.d, c.keys = d, c.keys[:0]
	c.id, c.parent = topField{}, topField{}
	i := c.plainValue(0, 0)
	c.d = nil
	return i == len(d)
}

// plain sets c.quotes to the quote bits of d, and a last word 0, and
// reports whether d is plain: no backslash, control byte or byte past
// ASCII.
func (c *canonScanner) plain(d []byte) bool {
	var ok bool
	if c.quotes, ok = jsonl.AppendPlainQuotes(c.quotes[:0], d); !ok {
		return false
	}
	c.quotes = append(c.quotes, 0)
	return true
}

// plainString returns the position after the string whose opening quote
// is at i: after its next quote.
func (c *canonScanner) plainString(i int) int {
	i++
	k := i >> 6
	if k >= len(c.quotes) {
		return -1
	}
	if w := c.quotes[k] >> (uint(i) & 63); w != 0 {
		return i + bits.TrailingZeros64(w) + 1
	}
	for k++; k < len(c.quotes); k++ {
		if w := c.quotes[k]; w != 0 {
			return k<<6 + bits.TrailingZeros64(w) + 1
		}
	}
	return -1
}

// plainValue is [canonScanner.value] for a plain row.
func (c *canonScanner) plainValue(i, depth int) int {
	d := c.d
	if i >= len(d) {
		return -1
	}
	switch b := d[i]; {
	case b == '"':
		return c.plainString(i)
	case b == '{':
		if depth >= maxCanonicalDepth {
			return -1
		}
		return c.plainObject(i, depth+1)
	case b == '[':
		if depth >= maxCanonicalDepth {
			return -1
		}
		return c.plainArray(i, depth+1)
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

// plainObject is [canonScanner.object] for a plain row.
func (c *canonScanner) plainObject(i, depth int) int {
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
		start := i + 1
		if i = c.plainString(i); i < 0 {
			return -1
		}
		key := d[start : i-1]
		if len(key) > 0 && key[0] <= '9' && key[0] >= '0' && integerLike(key) {
			return -1
		}
		if bit := keyBit(key); seen&bit == 0 {
			seen |= bit
		} else if c.repeated(first, key) {
			return -1
		}
		c.keys = append(c.keys, keySpan{start, i - 1})
		if i >= len(d) || d[i] != ':' {
			return -1
		}
		i++
		if depth == 1 && (len(key) == 2 || len(key) == 8) {
			i = c.plainTopMember(i, depth, key)
		} else {
			i = c.plainValue(i, depth)
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

// plainTopMember is [canonScanner.topMember] for a plain row.
func (c *canonScanner) plainTopMember(i, depth int, key []byte) int {
	var field *topField
	switch string(key) {
	case "id":
		field = &c.id
	case "parentId":
		field = &c.parent
	default:
		return c.plainValue(i, depth)
	}
	if i < len(c.d) && c.d[i] == '"' {
		s := i
		if i = c.plainString(i); i < 0 {
			return -1
		}
		*field = topField{present: true, isString: true, text: c.d[s+1 : i-1]}
		return i
	}
	*field = topField{present: true}
	return c.plainValue(i, depth)
}

// plainArray is [canonScanner.array] for a plain row.
func (c *canonScanner) plainArray(i, depth int) int {
	d := c.d
	i++ // '['
	if i < len(d) && d[i] == ']' {
		return i + 1
	}
	for {
		if i = c.plainValue(i, depth); i < 0 || i >= len(d) {
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
