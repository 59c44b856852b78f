package jsonl

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// SyntaxError is a line that JSON.parse rejects.
type SyntaxError struct {
	Offset int    // byte offset in the line where parsing failed
	Msg    string // what was wrong, e.g. "unexpected end of input"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Parse parses one line as JavaScript's JSON.parse would after the file was
// decoded as UTF-8. data is copied first, so the caller may reuse it.
func Parse(data []byte) (Value, error) {
	return ParseOwned(bytes.Clone(data))
}

// ParseOwned is [Parse] without the copy: the returned value's strings alias
// data, which the caller must never modify afterwards.
func ParseOwned(data []byte) (Value, error) {
	p := parser{data: data}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return Value{}, p.errorf("unexpected %s after JSON", p.describe())
	}
	return v, nil
}

// Valid reports whether JSON.parse accepts data (see [Parse]). It allocates
// nothing for typical lines.
func Valid(data []byte) bool {
	return validate(data) == nil
}

// Validate returns the [SyntaxError] for data, or nil when it is valid.
func Validate(data []byte) error {
	if err := validate(data); err != nil {
		return err
	}
	return nil
}

type parser struct {
	data    []byte
	pos     int
	scratch []Member
}

func (p *parser) errorf(format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("token %q", rune(c))
	}
	if c >= 0x80 {
		return "non-ASCII character"
	}
	return fmt.Sprintf("character 0x%02x", c)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// parseFrame is one open array or object on the parse stack. The parser is
// iterative so that nesting depth is limited only by memory, as in V8.
// Members of open containers are gathered on the parser's shared scratch
// stack and copied into an exactly sized slice when the container closes:
// one allocation per container.
type parseFrame struct {
	start  int // index of the container's first member in p.scratch
	key    string
	isObj  bool
	keyIdx map[string]int // built for large objects to find duplicate keys
}

func (p *parser) value() (Value, error) {
	var stackBuf [16]parseFrame
	stack := stackBuf[:0]
	for {
		// Parse one value start.
		if p.pos >= len(p.data) {
			return Value{}, p.errorf("unexpected end of input")
		}
		var v Value
		c := p.data[p.pos]
		switch {
		case c == '{' || c == '[':
			p.pos++
			p.skipSpace()
			f := parseFrame{isObj: c == '{', start: len(p.scratch)}
			if f.isObj {
				if p.pos < len(p.data) && p.data[p.pos] == '}' {
					p.pos++
					v = Value{kind: Object, items: []Member{}}
					break
				}
				key, err := p.objectKey()
				if err != nil {
					return Value{}, err
				}
				f.key = key
			} else if p.pos < len(p.data) && p.data[p.pos] == ']' {
				p.pos++
				v = Value{kind: Array, items: []Member{}}
				break
			}
			stack = append(stack, f)
			continue
		case c == '"':
			s, err := p.str()
			if err != nil {
				return Value{}, err
			}
			v = Value{kind: String, s: s}
		case c == '-' || (c >= '0' && c <= '9'):
			s, err := p.number()
			if err != nil {
				return Value{}, err
			}
			v = Value{kind: Number, s: s}
		case c == 't':
			if err := p.literal("true"); err != nil {
				return Value{}, err
			}
			v = Value{kind: Bool, b: true}
		case c == 'f':
			if err := p.literal("false"); err != nil {
				return Value{}, err
			}
			v = Value{kind: Bool}
		case c == 'n':
			if err := p.literal("null"); err != nil {
				return Value{}, err
			}
		default:
			return Value{}, p.errorf("unexpected %s", p.describe())
		}
		// Attach v to its parent, closing finished containers.
		for {
			if len(stack) == 0 {
				return v, nil
			}
			f := &stack[len(stack)-1]
			if f.isObj {
				p.addMember(f, v)
			} else {
				p.scratch = append(p.scratch, Member{Value: v})
			}
			p.skipSpace()
			if p.pos >= len(p.data) {
				return Value{}, p.errorf("unexpected end of input")
			}
			c := p.data[p.pos]
			if c == ',' {
				p.pos++
				p.skipSpace()
				if f.isObj {
					key, err := p.objectKey()
					if err != nil {
						return Value{}, err
					}
					f.key = key
				}
				break
			}
			if (f.isObj && c == '}') || (!f.isObj && c == ']') {
				p.pos++
				v = p.closeContainer(f)
				stack = stack[:len(stack)-1]
				continue
			}
			if f.isObj {
				return Value{}, p.errorf("unexpected %s in object", p.describe())
			}
			return Value{}, p.errorf("unexpected %s in array", p.describe())
		}
	}
}

// closeContainer moves a finished container's members off the scratch stack.
func (p *parser) closeContainer(f *parseFrame) Value {
	items := make([]Member, len(p.scratch)-f.start)
	copy(items, p.scratch[f.start:])
	clear(p.scratch[f.start:]) // drop references so the GC can free them
	p.scratch = p.scratch[:f.start]
	if f.isObj {
		return Value{kind: Object, items: items}
	}
	return Value{kind: Array, items: items}
}

// addMember adds (f.key, v) with JSON.parse's duplicate rule: the first
// position, the last value.
func (p *parser) addMember(f *parseFrame, v Value) {
	items := p.scratch[f.start:]
	if f.keyIdx == nil && len(items) < 32 {
		for i := range items {
			if items[i].Key == f.key {
				items[i].Value = v
				return
			}
		}
		p.scratch = append(p.scratch, Member{Key: f.key, Value: v})
		return
	}
	if f.keyIdx == nil {
		f.keyIdx = make(map[string]int, len(items)*2)
		for i := range items {
			f.keyIdx[items[i].Key] = i
		}
	}
	if i, ok := f.keyIdx[f.key]; ok {
		items[i].Value = v
		return
	}
	f.keyIdx[f.key] = len(items)
	p.scratch = append(p.scratch, Member{Key: f.key, Value: v})
}

// objectKey parses `"key" :` and leaves the position at the value.
func (p *parser) objectKey() (string, error) {
	if p.pos >= len(p.data) {
		return "", p.errorf("unexpected end of input")
	}
	if p.data[p.pos] != '"' {
		return "", p.errorf("expected property name, got %s", p.describe())
	}
	key, err := p.str()
	if err != nil {
		return "", err
	}
	p.skipSpace()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return "", p.errorf("expected ':' after property name, got %s", p.describe())
	}
	p.pos++
	p.skipSpace()
	return key, nil
}

func (p *parser) literal(lit string) error {
	if len(p.data)-p.pos >= len(lit) && string(p.data[p.pos:p.pos+len(lit)]) == lit {
		p.pos += len(lit)
		return nil
	}
	return p.errorf("unexpected %s", p.describe())
}

// number scans a JSON number and returns its text.
func (p *parser) number() (string, error) {
	n, err := scanNumber(p.data, p.pos)
	if err != nil {
		p.pos = n
		return "", p.errorf("%s", err.Error())
	}
	s := bytesString(p.data[p.pos:n])
	p.pos = n
	return s, nil
}

type numErr string

func (e numErr) Error() string { return string(e) }

// scanNumber returns the end of the number starting at i.
func scanNumber(d []byte, i int) (int, error) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i >= len(d) {
		return i, numErr("no number after minus sign")
	}
	switch {
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		for i++; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	default:
		return i, numErr("no number after minus sign")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return i, numErr("unterminated fractional number")
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return i, numErr("exponent part is missing a number")
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	return i, nil
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, error) {
	start := p.pos + 1
	i := start
	d := p.data
	ascii := true
	for i < len(d) {
		c := d[i]
		if c == '"' {
			seg := d[start:i]
			p.pos = i + 1
			if ascii || utf8.Valid(seg) {
				return bytesString(seg), nil
			}
			return string(appendValidUTF8(nil, seg)), nil
		}
		if c == '\\' {
			return p.strSlow(start, i)
		}
		if c < 0x20 {
			p.pos = i
			return "", p.errorf("bad control character in string literal")
		}
		if c >= 0x80 {
			ascii = false
		}
		i++
	}
	p.pos = i
	return "", p.errorf("unterminated string")
}

// strSlow decodes a string with escapes; i is the first backslash.
func (p *parser) strSlow(start, i int) (string, error) {
	d := p.data
	buf := make([]byte, 0, i-start+16)
	buf = appendValidUTF8(buf, d[start:i])
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(buf), nil
		case c == '\\':
			if i+1 >= len(d) {
				p.pos = i + 1
				return "", p.errorf("unterminated string")
			}
			e := d[i+1]
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(d, i+2)
				if !ok {
					p.pos = i
					return "", p.errorf("bad Unicode escape")
				}
				i += 6
				if r >= 0xD800 && r <= 0xDBFF {
					if r2, ok := hex4(d, i+2); ok && i+1 < len(d) && d[i] == '\\' && d[i+1] == 'u' && r2 >= 0xDC00 && r2 <= 0xDFFF {
						buf = utf8.AppendRune(buf, 0x10000+(r-0xD800)<<10+(r2-0xDC00))
						i += 6
						continue
					}
				}
				buf = appendWTF8(buf, r)
				continue
			default:
				p.pos = i + 1
				return "", p.errorf("bad escaped character")
			}
			i += 2
		case c < 0x20:
			p.pos = i
			return "", p.errorf("bad control character in string literal")
		case c < 0x80:
			j := i + 1
			for j < len(d) && d[j] >= 0x20 && d[j] < 0x80 && d[j] != '"' && d[j] != '\\' {
				j++
			}
			buf = append(buf, d[i:j]...)
			i = j
		default:
			j := i + 1
			for j < len(d) && d[j] >= 0x80 {
				j++
			}
			buf = appendValidUTF8(buf, d[i:j])
			i = j
		}
	}
	p.pos = i
	return "", p.errorf("unterminated string")
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// appendWTF8 appends r, encoding a lone surrogate as its generalized UTF-8
// form (ED A0..BF xx) so that the encoder can write it back as "\udXXX".
func appendWTF8(buf []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(buf, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(buf, r)
}

func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseJSNumber converts JSON number text as JavaScript does (overflow gives
// ±Inf rather than an error).
func parseJSNumber(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// frame builds one container value member by member with JSON.parse's
// duplicate-key rule (used by the tape's conversion to Value).
type frame struct {
	v      Value
	key    string
	isObj  bool
	keyIdx map[string]int
}

// addMember adds (f.key, v): the first position, the last value.
func (f *frame) addMember(v Value) {
	items := f.v.items
	if f.keyIdx == nil && len(items) < 32 {
		for i := range items {
			if items[i].Key == f.key {
				items[i].Value = v
				return
			}
		}
		f.v.items = append(items, Member{Key: f.key, Value: v})
		return
	}
	if f.keyIdx == nil {
		f.keyIdx = make(map[string]int, len(items)*2)
		for i := range items {
			f.keyIdx[items[i].Key] = i
		}
	}
	if i, ok := f.keyIdx[f.key]; ok {
		items[i].Value = v
		return
	}
	f.keyIdx[f.key] = len(items)
	f.v.items = append(items, Member{Key: f.key, Value: v})
}
