package jsonl

// validate checks data against JSON.parse's grammar without building values.
// Invalid UTF-8 inside strings is accepted (the decoder turned it into
// U+FFFD before JSON.parse saw it); any byte >= 0x80 outside a string is
// rejected (U+FFFD or any other non-ASCII character is not a token there).
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

type validator struct {
	d     []byte
	i     int
	stack []byte // '{' or '[' per open container
}

func (v *validator) fail(msg string) *SyntaxError {
	if v.i >= len(v.d) {
		msg = "unexpected end of input"
	}
	return &SyntaxError{Offset: v.i, Msg: msg}
}

func (v *validator) space() {
	for v.i < len(v.d) {
		switch v.d[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value() *SyntaxError {
	for {
		if v.i >= len(v.d) {
			return v.fail("")
		}
		switch c := v.d[v.i]; {
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
			v.stack = append(v.stack, '{')
			continue
		case c == '[':
			v.i++
			v.space()
			if v.i < len(v.d) && v.d[v.i] == ']' {
				v.i++
				break
			}
			v.stack = append(v.stack, '[')
			continue
		case c == '"':
			if err := v.str(); err != nil {
				return err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			n, err := scanNumber(v.d, v.i)
			v.i = n
			if err != nil {
				return v.fail(err.Error())
			}
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
			if len(v.stack) == 0 {
				return nil
			}
			v.space()
			if v.i >= len(v.d) {
				return v.fail("")
			}
			top := v.stack[len(v.stack)-1]
			c := v.d[v.i]
			if c == ',' {
				v.i++
				v.space()
				if top == '{' {
					if err := v.key(); err != nil {
						return err
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				v.i++
				v.stack = v.stack[:len(v.stack)-1]
				continue
			}
			if top == '{' {
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
	if len(v.d)-v.i >= len(s) && string(v.d[v.i:v.i+len(s)]) == s {
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

func (v *validator) str() *SyntaxError {
	d := v.d
	i := v.i + 1
	for {
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
