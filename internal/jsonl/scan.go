package jsonl

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Scanner is the one envelope scanner: it walks a line token by token,
// accepting exactly what JSON.parse accepts, without building values. Its
// callers walk the objects and arrays they care about (Object, Array),
// note the values they want as [Field]s (Value) and skip the rest (Skip):
// the repair classifier notes the fields its rules read, the session
// loader the envelope of each entry. A Scanner is reused from line to line
// (its stack keeps its capacity).
//
// Where a value is expected the cursor rests on its first byte (white
// space is stepped over), so a caller can Peek at its kind.
type Scanner struct {
	d        []byte
	i        int
	stack    []byte
	overflow bool // a number outside float64's range
	badUTF8  bool // a string holds invalid UTF-8
	// numberForms: a number JSON.stringify may write otherwise (see
	// NumberForms).
	numberForms bool
}

// ErrScan is the Scanner's only error: JSON.parse rejects the line. Ask
// [Validate] for the precise complaint.
var ErrScan = errors.New("invalid JSON")

// Reset starts the scan of d.
func (s *Scanner) Reset(d []byte) {
	*s = Scanner{d: d, stack: s.stack[:0]}
	s.space()
}

// End checks that only white space follows the value just scanned.
func (s *Scanner) End() error {
	s.space()
	if s.i < len(s.d) {
		return ErrScan
	}
	return nil
}

// Overflow reports a number outside float64's range in what was scanned
// (JSON.stringify would write it as null).
func (s *Scanner) Overflow() bool { return s.overflow }

// BadUTF8 reports a string with invalid UTF-8 in what was scanned (only
// strings can hold bytes that are not ASCII, so the line is valid UTF-8
// otherwise).
func (s *Scanner) BadUTF8() bool { return s.badUTF8 }

// NumberForms reports a number in what was scanned that JSON.stringify
// may write in another form: one with a fraction or an exponent, of more
// than 15 characters, or -0. Any other number (an integer of at most 15
// digits, -0 aside) is exactly its double, which JSON.stringify writes
// as it stands.
func (s *Scanner) NumberForms() bool { return s.numberForms }

// Peek is the byte at the cursor, 0 at the end of the line.
func (s *Scanner) Peek() byte {
	if s.i < len(s.d) {
		return s.d[s.i]
	}
	return 0
}

// Pos is the cursor's offset in the line.
func (s *Scanner) Pos() int { return s.i }

func (s *Scanner) space() {
	for s.i < len(s.d) && isSpace[s.d[s.i]] {
		s.i++
	}
}

// Object scans the object at the cursor (a '{'), calling member for each
// member with the cursor on its value; member must consume the value
// (Value, Skip, Object or Array). It returns the object as a Field.
func (s *Scanner) Object(member func(key string) error) (Field, error) {
	obj, empty := s.Enter()
	if empty {
		return obj, nil
	}
	for {
		key, err := s.Key()
		if err != nil {
			return obj, err
		}
		if err := member(key); err != nil {
			return obj, err
		}
		if more, err := s.More('}'); !more || err != nil {
			return obj, err
		}
	}
}

// Array scans the array at the cursor (a '['), calling elem for each
// element with the cursor on it; elem must consume the element. It returns
// the array as a Field.
func (s *Scanner) Array(elem func() error) (Field, error) {
	arr, empty := s.Enter()
	if empty {
		return arr, nil
	}
	for {
		if err := elem(); err != nil {
			return arr, err
		}
		if more, err := s.More(']'); !more || err != nil {
			return arr, err
		}
	}
}

// Enter steps into the object or array at the cursor (a '{' or '[') and
// returns it as a Field. empty reports a container without members or
// elements (its closing byte is then consumed too); otherwise a key (an
// object: [Scanner.Key]) or the first element (an array) comes next, and
// after each member or element [Scanner.More]. It is [Scanner.Object] and
// [Scanner.Array] for a caller that walks the container in its own loop,
// without a callback per member.
func (s *Scanner) Enter() (f Field, empty bool) {
	d, i := s.d, s.i
	f = Field{kind: Object, present: true}
	if d[i] == '[' {
		f.kind = Array
	}
	close := d[i] + 2 // '}' and ']' are '{'+2 and '['+2
	i++
	if i < len(d) && d[i] <= ' ' {
		s.i = i
		s.space()
		i = s.i
	}
	if i < len(d) && d[i] == close {
		s.i = i + 1
		return f, true
	}
	s.i = i
	return f, false
}

// More steps over what follows a member or element of the container being
// scanned: a comma (true: another one comes) or the closing byte close,
// '}' or ']' (false). A minified line's comma or closer is taken at the
// first test; moreAny takes white space and the end of the line.
func (s *Scanner) More(close byte) (bool, error) {
	d, i := s.d, s.i
	if i+1 < len(d) {
		b := d[i : i+2 : i+2]
		if c := b[0]; c == ',' && b[1] > ' ' {
			s.i = i + 1
			return true, nil
		} else if c == close {
			s.i = i + 1
			return false, nil
		}
	}
	return s.moreAny(close)
}

// moreAny is More after white space, or at the end of the line.
func (s *Scanner) moreAny(close byte) (bool, error) {
	s.space()
	d, i := s.d, s.i
	if i >= len(d) {
		return false, ErrScan
	}
	switch d[i] {
	case ',':
		s.i = i + 1
		s.space()
		return true, nil
	case close:
		s.i = i + 1
		return false, nil
	}
	return false, ErrScan
}

// Key scans a member's name and its colon, leaving the cursor on the
// member's value, and returns the name as JSON.parse decodes it; it
// aliases the line unless the name has escapes.
//
// Most names are short ASCII words followed at once by the colon and a
// value: those are taken here with one or two word tests; keyAny takes
// the others.
func (s *Scanner) Key() (string, error) {
	d, i := s.d, s.i
	if i+20 <= len(d) {
		b := d[i : i+20 : i+20] // constant bounds: no checks below
		if b[0] == '"' {
			e, end := firstStop(binary.LittleEndian.Uint64(b[1:9])), uint(1)
			if e == 0 {
				e, end = firstStop(binary.LittleEndian.Uint64(b[9:17])), 9
			}
			end = (end + uint(bits.TrailingZeros64(e))>>3) & 31 // at most 17 (e == 0: past the two words)
			if e != 0 && end < 18 && b[end] == '"' && b[end+1] == ':' && b[end+2] > ' ' {
				s.i = i + int(end) + 2
				return unsafe.String(&b[1], end-1), nil
			}
		}
	}
	return s.keyAny()
}

// keyAny is Key for any name.
func (s *Scanner) keyAny() (string, error) {
	body, escaped, err := s.memberKey()
	if err != nil {
		return "", err
	}
	if !escaped && !s.badUTF8 { // no invalid UTF-8 on the line so far
		return unsafe.String(unsafe.SliceData(body), len(body)), nil
	}
	return decodeBody(body, escaped), nil
}

// Value scans any value at the cursor and returns it as a Field. A caller
// noting members keeps the last of duplicate keys, as JSON.parse does.
func (s *Scanner) Value() (Field, error) {
	start := s.i
	if start < len(s.d) && s.d[start] == '"' { // most noted values: straight to the string scan
		escaped, err := s.str()
		if err != nil {
			return Field{}, err
		}
		f := Field{text: s.d[start+1 : s.i-1], kind: String, present: true}
		if escaped {
			f.form |= escapedBody
		}
		if !s.badUTF8 {
			f.form |= utf8Body
		}
		return f, nil
	}
	kind, err := s.skipAny()
	if err != nil {
		return Field{}, err
	}
	return Field{text: s.d[start:s.i], kind: kind, present: true}, nil
}

// Skip validates one value of any kind at the cursor (nesting limited
// only by memory) and returns its kind.
func (s *Scanner) Skip() (Kind, error) {
	if s.i < len(s.d) && s.d[s.i] == '"' { // most skipped values: straight to the string scan
		if _, err := s.str(); err != nil {
			return 0, err
		}
		return String, nil
	}
	return s.skipAny()
}

// skipAny is Skip for a value of any kind.
func (s *Scanner) skipAny() (Kind, error) {
	base := len(s.stack)
	var kind Kind
	first := true
	for {
		if s.i >= len(s.d) {
			return 0, ErrScan
		}
		var k Kind
		switch c := s.d[s.i]; {
		case c == '{' || c == '[':
			k = Object
			if c == '[' {
				k = Array
			}
			if first {
				kind, first = k, false
			}
			s.i++
			s.space()
			if s.i < len(s.d) && s.d[s.i] == c+2 { // '}' and ']' are '{'+2 and '['+2
				s.i++
				break
			}
			s.stack = append(s.stack, c)
			if c == '{' {
				if _, _, err := s.memberKey(); err != nil {
					return 0, err
				}
			}
			continue
		case c == '"':
			k = String
			if _, err := s.str(); err != nil {
				return 0, err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			k = Number
			if err := s.number(); err != nil {
				return 0, err
			}
		case c == 't':
			k = Bool
			if err := s.lit("true"); err != nil {
				return 0, err
			}
		case c == 'f':
			k = Bool
			if err := s.lit("false"); err != nil {
				return 0, err
			}
		case c == 'n':
			k = Null
			if err := s.lit("null"); err != nil {
				return 0, err
			}
		default:
			return 0, ErrScan
		}
		if first {
			kind, first = k, false
		}
		// After a complete value: closers and at most one comma.
		for {
			if len(s.stack) == base {
				return kind, nil
			}
			s.space()
			if s.i >= len(s.d) {
				return 0, ErrScan
			}
			top := s.stack[len(s.stack)-1]
			c := s.d[s.i]
			if c == ',' {
				s.i++
				s.space()
				if top == '{' {
					if _, _, err := s.memberKey(); err != nil {
						return 0, err
					}
				}
				break
			}
			if c != top+2 {
				return 0, ErrScan
			}
			s.i++
			s.stack = s.stack[:len(s.stack)-1]
		}
	}
}

// memberKey scans `"key" :` and returns the key's raw text and whether it
// holds an escape.
//
// Most keys are short ASCII names without escapes, followed at once by
// the colon and the value, in a line with more to come: those are found
// here in one or two word tests, on locals, without the general string
// scan or a white-space loop; memberKeyAny takes the others.
func (s *Scanner) memberKey() (key []byte, escaped bool, err error) {
	d, i := s.d, s.i
	if i+20 > len(d) {
		return s.memberKeyAny()
	}
	b := d[i : i+20 : i+20] // constant bounds: no checks below
	if b[0] != '"' {
		return s.memberKeyAny()
	}
	e, end := firstStop(binary.LittleEndian.Uint64(b[1:9])), uint(1)
	if e == 0 {
		e, end = firstStop(binary.LittleEndian.Uint64(b[9:17])), 9
	}
	end = (end + uint(bits.TrailingZeros64(e))>>3) & 31 // at most 17 (e == 0: past the two words)
	if e == 0 || end >= 18 || b[end] != '"' || b[end+1] != ':' {
		return s.memberKeyAny()
	}
	s.i = i + int(end) + 2
	if b[end+2] <= ' ' {
		s.space()
	}
	return b[1:end], false, nil
}

// memberKeyAny is memberKey for any key: long, escaped, not ASCII, spaced
// from its colon, or near the end of the line.
func (s *Scanner) memberKeyAny() (key []byte, escaped bool, err error) {
	d, i := s.d, s.i
	if i >= len(d) || d[i] != '"' {
		return nil, false, ErrScan
	}
	start := i + 1
	if escaped, err = s.str(); err != nil {
		return nil, false, err
	}
	end := s.i - 1
	key, i = d[start:end], end+1
	for i < len(d) && d[i] != ':' {
		if !isSpace[d[i]] {
			return nil, false, ErrScan
		}
		i++
	}
	if i >= len(d) {
		return nil, false, ErrScan
	}
	for i++; i < len(d) && isSpace[d[i]]; i++ {
	}
	s.i = i
	return key, escaped, nil
}

func (s *Scanner) lit(l string) error {
	if len(s.d)-s.i >= len(l) && string(s.d[s.i:s.i+len(l)]) == l {
		s.i += len(l)
		return nil
	}
	return ErrScan
}

// number scans a JSON number and notes one that overflows float64, and
// one JSON.stringify may write in another form (NumberForms): those
// tests sit on the paths of the rare forms, and the common integer costs
// one length test.
func (s *Scanner) number() error {
	d := s.d
	start, i := s.i, s.i
	if d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		return ErrScan
	case d[i] == '0':
		i++
		if i-start == 2 { // -0
			s.numberForms = true
		}
	case d[i] >= '1' && d[i] <= '9':
		i = digitsEnd(d, i+1)
	default:
		return ErrScan
	}
	if i < len(d) && d[i] == '.' {
		s.numberForms = true
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return ErrScan
		}
		i = digitsEnd(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		s.numberForms = true
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return ErrScan
		}
		for ; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
		s.i = i
		s.noteOverflow(start)
		return nil
	}
	s.i = i
	if i-start > 15 {
		s.numberForms = true
		if i-start > 308 { // only an exponent or more than 308 digits can leave float64's range
			s.noteOverflow(start)
		}
	}
	return nil
}

// noteOverflow notes a number, d[start:s.i], outside float64's range.
func (s *Scanner) noteOverflow(start int) {
	if !s.overflow {
		f, _ := strconv.ParseFloat(string(s.d[start:s.i]), 64)
		s.overflow = math.IsInf(f, 0)
	}
}

// digitsEnd is the end of the run of ASCII digits at d[i:], eight bytes
// at a time (long integers are mostly timestamps and counts). In a word,
// a byte below '0' borrows and one above '9' carries into its high bit,
// as does a byte that is not ASCII; borrows and carries only move up, so
// the lowest flagged byte is exactly the first that is not a digit.
func digitsEnd(d []byte, i int) int {
	for i+8 <= len(d) {
		w := binary.LittleEndian.Uint64(d[i : i+8])
		if stop := ((w - lsb*'0') | (w + lsb*0x46) | w) & msb; stop != 0 {
			return i + bits.TrailingZeros64(stop)>>3
		}
		i += 8
	}
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// SWAR constants for the string scan: a word has a byte < 0x20, '"' or '\\'.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// StringStops flags (bit 7 of the byte) the bytes of w, eight bytes of a
// JSON string body in little-endian order, that end its fast part: '"',
// '\\' and control characters. Bytes above the lowest flagged one may be
// flagged wrongly (borrows), so only the lowest flag is exact: its byte is
// the first such byte, which is all a string scan needs.
func StringStops(w uint64) uint64 {
	ctl := (w - lsb*0x20) &^ w
	q := w ^ (lsb * '"')
	q = (q - lsb) &^ q
	b := w ^ (lsb * '\\')
	b = (b - lsb) &^ b
	return (ctl | q | b) & msb
}

// firstStop flags (bit 7 of the byte) the first byte of w that is '"',
// '\\', a control character or not ASCII, and maybe some after it: the
// lowest flag is exact, which is all a search for the end of a short
// string needs, at a few operations less than exactStops.
func firstStop(w uint64) uint64 { return StringStops(w) | w&msb }

// stopByte marks the bytes that end the fast part of a string scan.
var stopByte = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// exactStops flags (bit 7 of the byte) exactly the bytes of w that are
// '"', '\\', control characters or not ASCII.
func exactStops(w uint64) uint64 {
	ctlOrHigh := (^(w&^msb + lsb*0x60) | w) & msb
	return eqMask(w, '"') | eqMask(w, '\\') | ctlOrHigh
}

// eqMask flags (bit 7) exactly the bytes of w equal to c.
func eqMask(w uint64, c byte) uint64 {
	x := w ^ (lsb * uint64(c))
	return ^(x&^msb + lsb*0x7F | x) & msb
}

// simpleEscape marks the bytes that make a two-byte escape.
var simpleEscape = func() (t [256]bool) {
	for _, c := range `"\\/bfnrt` {
		t[c] = true
	}
	return t
}()

// escapeLen is the length of a valid escape by the byte after the
// backslash (0: invalid; \u is followed by four hex digits).
var escapeLen = func() (t [256]uint8) {
	for _, c := range `"\\/bfnrt` {
		t[c] = 2
	}
	t['u'] = 6
	return t
}()

// str scans a string at s.i (its opening quote) and leaves s.i after the
// closing quote; escaped reports a backslash in the body. A body with
// invalid UTF-8 sets s.badUTF8 (non-ASCII bytes can only appear inside
// strings, so the strings decide whether the whole line is valid UTF-8).
//
// Most strings (keys, ids, short values) end within their first two words
// and cost one test per word. Longer text is dense with escapes (one
// every twenty-odd bytes) and has some non-ASCII characters: strBlocks
// takes it 64 bytes at a time, finding every quote, backslash and special
// byte of the block with bit operations; strTail finishes the last bytes
// of the line and anything strBlocks leaves.
func (s *Scanner) str() (escaped bool, err error) {
	d := s.d
	i := s.i + 1
	if i+16 <= len(d) {
		b := d[i : i+16 : i+16] // constant bounds: no checks below
		e, k := firstStop(binary.LittleEndian.Uint64(b[:8])), uint(0)
		if e == 0 {
			e, k = firstStop(binary.LittleEndian.Uint64(b[8:])), 8
		}
		if e == 0 {
			i += 16
		} else if k = (k + uint(bits.TrailingZeros64(e))>>3) & 15; b[k] == '"' {
			s.i = i + int(k) + 1
			return false, nil
		}
		i, escaped, done, err := s.strBlocks(i)
		if done || err != nil {
			return escaped, err
		}
		return s.strTail(i, escaped)
	}
	for n := 0; n < 2 && i+8 <= len(d); n++ {
		e := firstStop(binary.LittleEndian.Uint64(d[i:]))
		if e == 0 {
			i += 8
			continue
		}
		if k := bits.TrailingZeros64(e) >> 3; d[i+k] == '"' {
			s.i = i + k + 1
			return false, nil
		}
		break
	}
	i, escaped, done, err := s.strBlocks(i)
	if done || err != nil {
		return escaped, err
	}
	return s.strTail(i, escaped)
}

// strBlocks scans the string body from i, which is not inside an escape or
// a UTF-8 sequence, in blocks of 64 bytes. It returns done with s.i after
// the closing quote, or the position (again outside any escape or
// sequence) where strTail must go on because fewer than 64 bytes are left.
//
// After the first block, runs of blocks that need no closer look (no end
// of the string, only two-byte escapes, simple UTF-8) are stepped over by
// plainBlocks without leaving its vector loop. In the others the masks decide most things
// without a loop: the bytes a backslash escapes are checked all at once
// against the two-byte escapes, and a control byte in the body ends the
// scan; only \u escapes and the bytes that are not ASCII outside simple
// sequences are visited one by one.
func (s *Scanner) strBlocks(i int) (next int, escaped, done bool, err error) {
	d := s.d
	var m blockMask
	for first := true; i+64 <= len(d); first = false {
		if !first { // the first block usually holds the end of the string
			n, esc := plainBlocks(d[i:])
			i, escaped = i+n, escaped || esc
			if i+64 > len(d) {
				break
			}
		}
		blockMasks(d[i:i+64], &m)
		if m.quotes|m.backslashes|m.ctl|m.high == 0 {
			i += 64
			continue
		}
		esc, carry := escapedBytes(m.backslashes)
		end := bits.TrailingZeros64(m.quotes &^ esc) // 64: the string goes on
		body := uint64(1)<<end - 1
		next = i + 64
		if e := esc & body; e != 0 {
			escaped = true
			for e &= m.notSimple; e != 0; e &= e - 1 { // \u escapes and invalid ones
				if next, err = escapeEnd(d, i+bits.TrailingZeros64(e), next); err != nil {
					return 0, false, false, err
				}
			}
		}
		if carry && end == 64 { // the block's last byte escapes the next one
			escaped = true
			if next, err = escapeEnd(d, i+64, next); err != nil {
				return 0, false, false, err
			}
		}
		if m.ctl&body != 0 {
			return 0, false, false, ErrScan // a raw control character
		}
		if h := m.high & body; h != 0 && !validSimpleUTF8(&m, h, body) {
			next = max(next, s.utf8Block(i, h))
		}
		if end < 64 {
			s.i = i + end + 1
			return s.i, escaped, true, nil
		}
		i = next
	}
	return i, escaped, false, nil
}

// validSimpleUTF8 reports that the bytes that are not ASCII in a block's
// body (high, under the mask body) are whole two- and three-byte
// sequences whose leading bytes admit any continuation byte, none of them
// running past the block: exactly the continuation bytes the leading ones
// call for, and no others. Anything else (four-byte sequences, E0 and ED,
// invalid bytes, a sequence cut by the block's end or the closing quote)
// is left to utf8Block.
func validSimpleUTF8(m *blockMask, high, body uint64) bool {
	l2, l3 := m.lead2&body, m.lead3&body
	if l2|l3 != high&^m.cont || l2>>63|l3>>62 != 0 {
		return false
	}
	return l2<<1|l3<<1|l3<<2 == m.cont&body
}

// utf8Block checks each sequence that starts at a byte of h (the bytes of
// the block at i that are not ASCII, in the string's body), noting
// invalid UTF-8, and returns where the next block starts: after the block,
// or after a sequence that runs past it.
func (s *Scanner) utf8Block(i int, h uint64) int {
	d := s.d
	next := i + 64
	for h != 0 {
		k := bits.TrailingZeros64(h)
		n := utf8Len(d[i+k:])
		if n == 0 {
			s.badUTF8, n = true, 1
		}
		if k+n >= 64 {
			return i + k + n
		}
		h &^= 1<<(k+n) - 1
	}
	return next
}

// escapeEnd checks the escaped byte at p (the byte after a backslash) and
// returns next, or the end of a \u escape's hex digits when that is later.
func escapeEnd(d []byte, p, next int) (int, error) {
	switch {
	case p >= len(d):
		return 0, ErrScan
	case simpleEscape[d[p]]:
		return max(next, p+1), nil
	case d[p] == 'u' && p+5 <= len(d) && isHex4(d[p+1:p+5]):
		return max(next, p+5), nil
	}
	return 0, ErrScan
}

// blockMask describes the 64 bytes of a block, one bit per byte (bit i
// for byte i).
type blockMask struct {
	quotes, backslashes uint64
	ctl                 uint64 // control characters (below 0x20)
	high                uint64 // bytes that are not ASCII (0x80 and above)
	notSimple           uint64 // bytes that cannot follow a backslash in a two-byte escape ("\/bfnrt); 0 in a block without backslashes, where nothing reads it
	// The UTF-8 masks, 0 in a block of ASCII alone (where nothing reads
	// them): continuation bytes (10xxxxxx), the leading bytes of two-byte
	// sequences (C2-DF) and those of three-byte sequences whose second byte
	// may be any continuation byte (E1-EC, EE-EF).
	cont, lead2, lead3 uint64
}

// blockMasksGo returns the block mask of the 64 bytes of b. blockMasks is
// this, or the same computed with vector instructions where the CPU has
// them.
func blockMasksGo(b []byte) (m blockMask) {
	_ = b[63]
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		m.quotes |= packMSB(eqMask(w, '"')) << k
		m.backslashes |= packMSB(eqMask(w, '\\')) << k
		m.ctl |= packMSB(^(w&^msb+lsb*0x60)&^w&msb) << k
		m.high |= packMSB(w&msb) << k
		simple := eqMask(w, '"') | eqMask(w, '\\') | eqMask(w, '/') | eqMask(w, 'b') |
			eqMask(w, 'f') | eqMask(w, 'n') | eqMask(w, 'r') | eqMask(w, 't')
		m.notSimple |= packMSB(^simple&msb) << k
	}
	if m.backslashes == 0 {
		m.notSimple = 0
	}
	if m.high != 0 {
		for k := 0; k < 64; k += 8 {
			w := binary.LittleEndian.Uint64(b[k:])
			m.cont |= packMSB(eqMask(w&(lsb*0xC0), 0x80)) << k
			lead2 := eqMask(w&(lsb*0xE0), 0xC0) &^ (eqMask(w, 0xC0) | eqMask(w, 0xC1)) // 110xxxxx but C0, C1
			m.lead2 |= packMSB(lead2) << k
			lead3 := eqMask(w&(lsb*0xF0), 0xE0) &^ (eqMask(w, 0xE0) | eqMask(w, 0xED)) // 1110xxxx but E0, ED
			m.lead3 |= packMSB(lead3) << k
		}
	}
	return m
}

// packMSB gathers bit 7 of each byte of m (its only bits) into the low
// eight bits: the multiplication moves byte j's bit to bit 56+j, and no
// two partial products meet, so nothing carries.
func packMSB(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}

// escapedBytes returns the bytes of a block that a backslash escapes,
// given its backslashes and a first byte that is not escaped: in a run of
// backslashes every second one escapes the byte after it, counting from
// the run's start. carry reports that the byte after the block is
// escaped. Runs that start on an odd bit are made to carry into the bit
// after them by an addition, which flips the parity of what they escape.
func escapedBytes(backslashes uint64) (escaped uint64, carry bool) {
	const even = 0x5555555555555555
	follows := backslashes << 1
	oddStarts := backslashes &^ even &^ follows
	seq, c := bits.Add64(oddStarts, backslashes, 0)
	return (even ^ seq<<1) & follows, c != 0
}

// strTail scans the rest of a string body from i, which is not inside an
// escape or a UTF-8 sequence (escaped: a backslash came earlier). A word
// without stops costs one cheap test (stopMask); in a word with some,
// exactStops flags each, and the simple escapes and common characters that
// end inside the word are stepped over with bit operations; anything else
// goes to the general switch below.
func (s *Scanner) strTail(i int, escaped bool) (bool, error) {
	d := s.d
word:
	for {
		if i+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[i:])
			if firstStop(w) == 0 {
				i += 8
				continue
			}
			// Simple escapes and three-byte characters that end within the
			// word are consumed here, several per word, off the general
			// path: each costs a few bit operations, not a branch miss.
			base, e := i, exactStops(w)
		events:
			for {
				if e == 0 {
					i = base + 8
					continue word
				}
				k := bits.TrailingZeros64(e) >> 3
				p := base + k
				switch c := d[p]; {
				case c == '\\' && k < 7 && simpleEscape[d[p+1]]:
					escaped = true
					e &^= 1<<(8*k+16) - 1 // the backslash and the byte it escapes
				case c >= 0xE1 && c <= 0xEC && k < 6 && d[p+1]&0xC0 == 0x80 && d[p+2]&0xC0 == 0x80:
					e &^= 1<<(8*k+24) - 1
				default:
					i = p
					break events
				}
			}
		} else {
			for i < len(d) && d[i] < utf8.RuneSelf && !stopByte[d[i]] {
				i++
			}
			if i >= len(d) {
				return false, ErrScan
			}
		}
		switch c := d[i]; {
		case c >= 0xE1 && c <= 0xEC && i+2 < len(d) && d[i+1]&0xC0 == 0x80 && d[i+2]&0xC0 == 0x80:
			i += 3 // the common three-byte form (most CJK), decided inline
		case c >= utf8.RuneSelf:
			n := utf8Len(d[i:])
			if n == 0 {
				s.badUTF8, n = true, 1
			}
			i += n
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return false, ErrScan
			}
			n := int(escapeLen[d[i+1]])
			if n == 0 || n == 6 && (i+6 > len(d) || !isHex4(d[i+2:i+6])) {
				return false, ErrScan
			}
			i += n
		case c == '"':
			s.i = i + 1
			return escaped, nil
		default:
			return false, ErrScan // a raw control character
		}
	}
}

// utf8Len is the length of the well-formed UTF-8 sequence at the start
// of b (whose first byte is not ASCII), or 0 when it is ill-formed. The
// common two- and three-byte forms are decided inline.
func utf8Len(b []byte) int {
	c := b[0]
	switch {
	case c >= 0xC2 && c <= 0xDF && len(b) >= 2 && b[1]&0xC0 == 0x80:
		return 2
	case c >= 0xE1 && c <= 0xEC && len(b) >= 3 && b[1]&0xC0 == 0x80 && b[2]&0xC0 == 0x80:
		return 3
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		return 0
	}
	return n
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
