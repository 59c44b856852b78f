package jsonl

import "encoding/binary"

// validate checks data against JSON.parse's grammar without building values.
// Invalid UTF-8 inside strings is accepted (the decoder turned it into
// U+FFFD before JSON.parse saw it); any byte >= 0x80 outside a string is
// rejected (U+FFFD or any other non-ASCII character is not a token there).
// It allocates only for nesting deeper than 512 levels, and for the error.
func validate(data []byte) *SyntaxError {
	v := validator{d: data}
	v.space()
	if err := v.value(); err != nil {
		return err
	}
	v.space()
	if v.i < len(v.d) {
		return v.fail("unexpected non-whitespace character after JSON")
	}
	return nil
}

// validator walks one line. The open containers are a stack of bits (1 for
// an object, 0 for an array): the first 512 levels live in the validator
// itself, deeper ones in deep.
type validator struct {
	d     []byte
	i     int
	depth int
	bits  [8]uint64
	deep  []uint64
}

func (v *validator) push(isObj bool) {
	w, b := v.depth/64, uint(v.depth%64)
	if w >= len(v.bits) && w-len(v.bits) >= len(v.deep) {
		v.deep = append(v.deep, 0)
	}
	word := v.word(w)
	if isObj {
		*word |= 1 << b
	} else {
		*word &^= 1 << b
	}
	v.depth++
}

func (v *validator) word(w int) *uint64 {
	if w < len(v.bits) {
		return &v.bits[w]
	}
	return &v.deep[w-len(v.bits)]
}

// topIsObj reports whether the innermost open container is an object.
func (v *validator) topIsObj() bool {
	d := v.depth - 1
	return *v.word(d / 64)>>(uint(d%64))&1 == 1
}

func (v *validator) fail(msg string) *SyntaxError {
	if v.i >= len(v.d) {
		msg = "unexpected end of input"
	}
	return &SyntaxError{Offset: v.i, Msg: msg}
}

func (v *validator) space() {
	for v.i < len(v.d) && isSpace[v.d[v.i]] {
		v.i++
	}
}

func (v *validator) value() *SyntaxError {
	for {
		if v.i >= len(v.d) {
			return v.fail("")
		}
		switch c := v.d[v.i]; {
		case c == '"':
			if err := v.str(); err != nil {
				return err
			}
		case c == '{':
			v.i++
			v.space()
			if v.i < len(v.d) && v.d[v.i] == '}' {
				v.i++
				break
			}
			if err := v.key(); err != nil {
				return err
			}
			v.push(true)
			continue
		case c == '[':
			v.i++
			v.space()
			if v.i < len(v.d) && v.d[v.i] == ']' {
				v.i++
				break
			}
			v.push(false)
			continue
		case c == '-' || (c >= '0' && c <= '9'):
			n, ok := numberEnd(v.d, v.i)
			if !ok {
				var err error
				n, err = scanNumber(v.d, v.i)
				v.i = n
				return v.fail(err.Error())
			}
			v.i = n
		case c == 't':
			if err := v.lit("true"); err != nil {
				return err
			}
		case c == 'f':
			if err := v.lit("false"); err != nil {
				return err
			}
		case c == 'n':
			if err := v.lit("null"); err != nil {
				return err
			}
		default:
			return v.fail("unexpected token")
		}
		// After a complete value: commas and closers.
		for {
			if v.depth == 0 {
				return nil
			}
			v.space()
			if v.i >= len(v.d) {
				return v.fail("")
			}
			obj := v.topIsObj()
			c := v.d[v.i]
			if c == ',' {
				v.i++
				v.space()
				if obj {
					if err := v.key(); err != nil {
						return err
					}
				}
				break
			}
			if (obj && c == '}') || (!obj && c == ']') {
				v.i++
				v.depth--
				continue
			}
			if obj {
				return v.fail("expected ',' or '}' after property value in JSON")
			}
			return v.fail("expected ',' or ']' after array element in JSON")
		}
	}
}

func (v *validator) key() *SyntaxError {
	if v.i >= len(v.d) || v.d[v.i] != '"' {
		return v.fail("expected double-quoted property name in JSON")
	}
	if err := v.str(); err != nil {
		return err
	}
	v.space()
	if v.i >= len(v.d) || v.d[v.i] != ':' {
		return v.fail("expected ':' after property name in JSON")
	}
	v.i++
	v.space()
	return nil
}

func (v *validator) lit(s string) *SyntaxError {
	if hasLiteral(v.d, v.i, s) {
		v.i += len(s)
		return nil
	}
	return v.fail("unexpected token")
}

// strTable marks bytes that end the fast scan of a string body.
var strTable = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return t
}()

// str checks a string at its opening quote: eight bytes at a time up to the
// next quote, backslash or control character.
func (v *validator) str() *SyntaxError {
	d := v.d
	i := v.i + 1
	for {
		for i+8 <= len(d) && !stringStop(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < len(d) && !strTable[d[i]] {
			i++
		}
		if i >= len(d) {
			v.i = i
			return v.fail("unterminated string in JSON")
		}
		switch c := d[i]; {
		case c == '"':
			v.i = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(d) {
				v.i = i + 1
				return v.fail("")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					v.i = i
					return v.fail("bad Unicode escape in JSON")
				}
				i += 6
			default:
				v.i = i + 1
				return v.fail("bad escaped character in JSON")
			}
		default:
			v.i = i
			return v.fail("bad control character in string literal in JSON")
		}
	}
}
