package jsonl

import (
	"encoding/binary"
	"errors"
	"iter"
	"math"
	"unicode/utf8"
)

// Tape is a validating JSON parser that records a line as a flat list of
// tokens instead of building values. It exists for the hot path of check
// and fix: validate every line and read a handful of fields (type, id,
// parentId, message.role, block types...) without allocating, and build a
// full [Value] only for the few lines that need one.
//
// Guarantees:
//
//   - [Tape.Parse] accepts exactly what [Valid] accepts (JSON.parse after
//     UTF-8 decoding) and returns the same [SyntaxError] as [Validate] when
//     it rejects a line.
//   - A Tape is reusable: after the first lines, parsing allocates nothing
//     (the token slice and the container stack keep their capacity).
//   - Lookups follow JavaScript: [Node.Get] returns the last of duplicated
//     keys, keys compare after decoding escapes, strings decode invalid
//     UTF-8 to U+FFFD (WHATWG) and keep lone surrogates (WTF-8, as [Parse]).
//
// Nodes and the strings they return alias the parsed bytes: they are valid
// until the next call to Parse and only while those bytes are unchanged.
// [Node.Value] copies, so its result outlives the tape.
//
// A Tape is not safe for concurrent use; give each worker its own.
type Tape struct {
	data  []byte
	toks  []token
	stack []uint32 // indexes of the open containers' tokens
}

// token is one JSON value (or object key) on the tape, in document order.
//
// For a string, start and end delimit its body (between the quotes). For a
// number or literal, its text. For an object or array, start is the opening
// bracket and end the byte after the closing one. next is the index of the
// token after this value's subtree, so a whole subtree is skipped in O(1).
// An object's children are key, value, key, value...
type token struct {
	start, end uint32
	next       uint32
	kind       Kind
	escaped    bool // string body contains a backslash
}

// maxTapeLine is the longest line a Tape indexes (offsets are 32-bit to keep
// tokens small, which is worth ~15% in speed on token-dense lines).
const maxTapeLine = math.MaxUint32

// ErrTapeTooLong is returned by [Tape.Parse] for a line of 4 GiB or more.
// It says nothing about validity: use [Validate] for such a line.
var ErrTapeTooLong = errors.New("line too long for the tape (4 GiB or more)")

// Parse validates data and records its tokens, replacing what the tape held.
// It returns nil when JSON.parse accepts data, otherwise the same
// *[SyntaxError] as [Validate]. data is aliased, not copied.
func (t *Tape) Parse(data []byte) error {
	t.data = data
	t.toks = t.toks[:0]
	t.stack = t.stack[:0]
	if len(data) >= maxTapeLine {
		t.data = nil
		return ErrTapeTooLong
	}
	if err := t.parse(); err != nil {
		t.toks = t.toks[:0]
		return err
	}
	return nil
}

// Root returns the top-level value. It does not exist (see [Node.Exists])
// when the last Parse failed.
func (t *Tape) Root() Node {
	if len(t.toks) == 0 {
		return Node{}
	}
	return Node{t: t, i: 0}
}

// Bytes returns the data of the last Parse.
func (t *Tape) Bytes() []byte { return t.data }

// Tokens returns the number of values and keys on the tape (a measure of
// how dense a line is, for benchmarks and limits).
func (t *Tape) Tokens() int { return len(t.toks) }

// ---- parsing ---------------------------------------------------------------

// parse runs the grammar over t.data; positions are passed as ints so the
// hot loops keep them in registers.
func (t *Tape) parse() error {
	d := t.data
	i := skipJSONSpace(d, 0)
	i, err := t.value(d, i)
	if err != nil {
		return err
	}
	i = skipJSONSpace(d, i)
	if i < len(d) {
		return fail(d, i, "unexpected non-whitespace character after JSON")
	}
	return nil
}

// fail builds the same error as validator.fail.
func fail(d []byte, i int, msg string) *SyntaxError {
	if i >= len(d) {
		msg = "unexpected end of input"
	}
	return &SyntaxError{Offset: i, Msg: msg}
}

func skipJSONSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (t *Tape) push(k Kind, start, end int) {
	t.toks = append(t.toks, token{start: uint32(start), end: uint32(end), next: uint32(len(t.toks) + 1), kind: k})
}

// value parses one value (with everything nested in it) starting at i. It
// mirrors validator.value step for step so that errors match.
func (t *Tape) value(d []byte, i int) (int, error) {
	for {
		if i >= len(d) {
			return i, fail(d, i, "")
		}
		switch c := d[i]; {
		case c == '{' || c == '[':
			t.stack = append(t.stack, uint32(len(t.toks)))
			t.push(kindOfBracket(c), i, 0)
			i = skipJSONSpace(d, i+1)
			if c == '{' {
				if i < len(d) && d[i] == '}' {
					i = t.closeTop(i + 1)
					break
				}
				var err error
				if i, err = t.key(d, i); err != nil {
					return i, err
				}
			} else if i < len(d) && d[i] == ']' {
				i = t.closeTop(i + 1)
				break
			}
			continue
		case c == '"':
			var err error
			if i, err = t.str(d, i); err != nil {
				return i, err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			n, err := scanNumber(d, i)
			if err != nil {
				return n, fail(d, n, err.Error())
			}
			t.push(Number, i, n)
			i = n
		case c == 't':
			if !hasLit(d, i, "true") {
				return i, fail(d, i, "unexpected token")
			}
			t.push(Bool, i, i+4)
			i += 4
		case c == 'f':
			if !hasLit(d, i, "false") {
				return i, fail(d, i, "unexpected token")
			}
			t.push(Bool, i, i+5)
			i += 5
		case c == 'n':
			if !hasLit(d, i, "null") {
				return i, fail(d, i, "unexpected token")
			}
			t.push(Null, i, i+4)
			i += 4
		default:
			return i, fail(d, i, "unexpected token")
		}
		// After a complete value: commas and closers.
		var err error
		var done bool
		if i, done, err = t.afterValue(d, i); err != nil || done {
			return i, err
		}
	}
}

// afterValue consumes closers and at most one comma (with the next key in
// an object). done reports that the top-level value is complete.
func (t *Tape) afterValue(d []byte, i int) (int, bool, error) {
	for {
		if len(t.stack) == 0 {
			return i, true, nil
		}
		i = skipJSONSpace(d, i)
		if i >= len(d) {
			return i, false, fail(d, i, "")
		}
		top := t.toks[t.stack[len(t.stack)-1]].kind
		c := d[i]
		if c == ',' {
			i = skipJSONSpace(d, i+1)
			if top == Object {
				var err error
				if i, err = t.key(d, i); err != nil {
					return i, false, err
				}
			}
			return i, false, nil
		}
		if (top == Object && c == '}') || (top == Array && c == ']') {
			i = t.closeTop(i + 1)
			continue
		}
		if top == Object {
			return i, false, fail(d, i, "expected ',' or '}' after property value in JSON")
		}
		return i, false, fail(d, i, "expected ',' or ']' after array element in JSON")
	}
}

func kindOfBracket(c byte) Kind {
	if c == '{' {
		return Object
	}
	return Array
}

// closeTop finishes the innermost open container, whose closing bracket
// ended just before end.
func (t *Tape) closeTop(end int) int {
	n := len(t.stack) - 1
	tok := &t.toks[t.stack[n]]
	tok.end = uint32(end)
	tok.next = uint32(len(t.toks))
	t.stack = t.stack[:n]
	return end
}

func hasLit(d []byte, i int, lit string) bool {
	return len(d)-i >= len(lit) && string(d[i:i+len(lit)]) == lit
}

func (t *Tape) key(d []byte, i int) (int, error) {
	if i >= len(d) || d[i] != '"' {
		return i, fail(d, i, "expected double-quoted property name in JSON")
	}
	i, err := t.str(d, i)
	if err != nil {
		return i, err
	}
	i = skipJSONSpace(d, i)
	if i >= len(d) || d[i] != ':' {
		return i, fail(d, i, "expected ':' after property name in JSON")
	}
	return skipJSONSpace(d, i+1), nil
}

// SWAR constants: a byte-wise "any byte < 0x20", "any byte == '"'" and
// "any byte == '\\'" test over 8 bytes at a time. The borrow trick is exact
// as a yes/no answer, which is all the scan needs before falling back to the
// byte loop.
const (
	lsb       = 0x0101010101010101
	msb       = 0x8080808080808080
	quoteMask = lsb * '"'
	slashMask = lsb * '\\'
)

// stopWord reports whether any byte of w is a control character, '"' or
// '\\' (the bytes that end the fast scan of a string body).
func stopWord(w uint64) bool {
	ctl := (w - lsb*0x20) &^ w
	q := w ^ quoteMask
	q = (q - lsb) &^ q
	s := w ^ slashMask
	s = (s - lsb) &^ s
	return (ctl|q|s)&msb != 0
}

// str scans a string starting at its opening quote and records it.
func (t *Tape) str(d []byte, i int) (int, error) {
	start := i + 1
	j := start
	escaped := false
	for {
		for j+8 <= len(d) && !stopWord(binary.LittleEndian.Uint64(d[j:])) {
			j += 8
		}
		for j < len(d) && !strTable[d[j]] {
			j++
		}
		if j >= len(d) {
			return j, fail(d, j, "unterminated string in JSON")
		}
		switch c := d[j]; {
		case c == '"':
			t.toks = append(t.toks, token{start: uint32(start), end: uint32(j), next: uint32(len(t.toks) + 1), kind: String, escaped: escaped})
			return j + 1, nil
		case c == '\\':
			escaped = true
			if j+1 >= len(d) {
				return j + 1, fail(d, j+1, "")
			}
			switch d[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if _, ok := hex4(d, j+2); !ok {
					return j, fail(d, j, "bad Unicode escape in JSON")
				}
				j += 6
			default:
				return j + 1, fail(d, j+1, "bad escaped character in JSON")
			}
		default:
			return j, fail(d, j, "bad control character in string literal in JSON")
		}
	}
}

// ---- nodes -----------------------------------------------------------------

// Node is one value on a [Tape]. The zero Node does not exist: it stands for
// JavaScript's undefined (a missing member, an index out of range) and every
// method on it returns the zero answer, so lookups chain without checks:
//
//	role, ok := tape.Root().Get("message").Get("role").Str()
type Node struct {
	t *Tape
	i uint32
}

func (n Node) tok() *token { return &n.t.toks[n.i] }

// Exists reports whether the node is a value (false for undefined).
func (n Node) Exists() bool { return n.t != nil }

// Kind returns the value's JSON type (Null for undefined; check Exists).
func (n Node) Kind() Kind {
	if n.t == nil {
		return Null
	}
	return n.tok().kind
}

// IsObject and friends test the kind; all are false for undefined.
func (n Node) IsObject() bool { return n.t != nil && n.tok().kind == Object }
func (n Node) IsArray() bool  { return n.t != nil && n.tok().kind == Array }
func (n Node) IsString() bool { return n.t != nil && n.tok().kind == String }
func (n Node) IsNumber() bool { return n.t != nil && n.tok().kind == Number }
func (n Node) IsBool() bool   { return n.t != nil && n.tok().kind == Bool }
func (n Node) IsNull() bool   { return n.t != nil && n.tok().kind == Null }

// Raw returns the value's JSON text as it appears in the line (a string
// with its quotes). It aliases the parsed bytes.
func (n Node) Raw() []byte {
	if n.t == nil {
		return nil
	}
	tk := n.tok()
	if tk.kind == String {
		return n.t.data[tk.start-1 : tk.end+1]
	}
	return n.t.data[tk.start:tk.end]
}

// Offset returns the byte offset of the value in the line (-1 for
// undefined).
func (n Node) Offset() int {
	if n.t == nil {
		return -1
	}
	tk := n.tok()
	if tk.kind == String {
		return int(tk.start) - 1
	}
	return int(tk.start)
}

// Get returns member key of an object, the last one when the key is
// duplicated (JSON.parse keeps the last value). It returns undefined when n
// is not an object or has no such member.
func (n Node) Get(key string) Node {
	if n.t == nil || n.tok().kind != Object {
		return Node{}
	}
	toks := n.t.toks
	end := toks[n.i].next
	found := Node{}
	for k := n.i + 1; k < end; {
		v := k + 1
		if n.t.keyEquals(&toks[k], key) {
			found = Node{t: n.t, i: v}
		}
		k = toks[v].next
	}
	return found
}

// Path follows object keys, returning undefined when any step is missing.
func (n Node) Path(keys ...string) Node {
	for _, k := range keys {
		n = n.Get(k)
	}
	return n
}

// keyEquals compares a key token, decoded, with key. Keys without escapes
// compare as bytes (their decoding can equal an ASCII key only when the raw
// bytes already do).
func (t *Tape) keyEquals(tk *token, key string) bool {
	raw := t.data[tk.start:tk.end]
	if !tk.escaped {
		if string(raw) == key {
			return true
		}
		if isASCII(key) || utf8.Valid(raw) {
			return false
		}
	}
	return t.decodeString(tk) == key
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Len returns the number of elements of an array or members of an object
// (0 otherwise). It walks the container.
func (n Node) Len() int {
	if n.t == nil {
		return 0
	}
	tk := n.tok()
	if tk.kind != Array && tk.kind != Object {
		return 0
	}
	count := 0
	for k := n.i + 1; k < tk.next; k = n.t.toks[k].next {
		count++
	}
	if tk.kind == Object {
		count /= 2
	}
	return count
}

// Elems iterates over the elements of an array (nothing otherwise).
func (n Node) Elems() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		if !n.IsArray() {
			return
		}
		toks := n.t.toks
		for k := n.i + 1; k < toks[n.i].next; k = toks[k].next {
			if !yield(Node{t: n.t, i: k}) {
				return
			}
		}
	}
}

// Index returns the i-th element of an array, or undefined.
func (n Node) Index(i int) Node {
	for e := range n.Elems() {
		if i == 0 {
			return e
		}
		i--
	}
	return Node{}
}

// Members iterates over an object's members in document order, duplicates
// included (nothing when n is not an object). The key node is a string.
func (n Node) Members() iter.Seq2[Node, Node] {
	return func(yield func(Node, Node) bool) {
		if !n.IsObject() {
			return
		}
		toks := n.t.toks
		for k := n.i + 1; k < toks[n.i].next; k = toks[k+1].next {
			if !yield(Node{t: n.t, i: k}, Node{t: n.t, i: k + 1}) {
				return
			}
		}
	}
}

// Str returns the decoded string and whether n is a string. Without escapes
// and with valid UTF-8 (the common case) the result aliases the line and
// costs no allocation.
func (n Node) Str() (string, bool) {
	if n.t == nil || n.tok().kind != String {
		return "", false
	}
	return n.t.decodeString(n.tok()), true
}

// StrOr returns the string, or def when n is not a string.
func (n Node) StrOr(def string) string {
	if s, ok := n.Str(); ok {
		return s
	}
	return def
}

// StrEquals reports whether n is a string whose decoded value is s, without
// allocating when the string has no escapes.
func (n Node) StrEquals(s string) bool {
	return n.t != nil && n.tok().kind == String && n.t.keyEquals(n.tok(), s)
}

// StrLen returns the length in bytes of the raw string body (escapes not
// decoded), 0 when n is not a string. It is cheap: no decoding.
func (n Node) StrLen() int {
	if n.t == nil || n.tok().kind != String {
		return 0
	}
	tk := n.tok()
	return int(tk.end - tk.start)
}

// StrRaw returns the raw body of a string (between its quotes, escapes not
// decoded) and whether it contains escapes. It aliases the line.
func (n Node) StrRaw() (body []byte, escaped bool) {
	if n.t == nil || n.tok().kind != String {
		return nil, false
	}
	tk := n.tok()
	return n.t.data[tk.start:tk.end], tk.escaped
}

// decodeString returns a string token's value as [Parse] would.
func (t *Tape) decodeString(tk *token) string {
	body := t.data[tk.start:tk.end]
	if !tk.escaped {
		if utf8.Valid(body) {
			return bytesString(body)
		}
		return string(appendValidUTF8(nil, body))
	}
	p := parser{data: t.data, pos: int(tk.start) - 1}
	s, err := p.str()
	if err != nil {
		panic("jsonl: tape string does not decode: " + err.Error()) // validated by Parse
	}
	return s
}

// NumberText returns the source text of a number.
func (n Node) NumberText() (string, bool) {
	if n.t == nil || n.tok().kind != Number {
		return "", false
	}
	return bytesString(n.Raw()), true
}

// Float returns the number as JavaScript reads it (±Inf on overflow).
func (n Node) Float() (float64, bool) {
	s, ok := n.NumberText()
	if !ok {
		return 0, false
	}
	return parseJSNumber(s), true
}

// Bool returns the boolean and whether n is a boolean.
func (n Node) Bool() (bool, bool) {
	if n.t == nil || n.tok().kind != Bool {
		return false, false
	}
	return n.t.data[n.tok().start] == 't', true
}

// IsTrue reports whether n is the boolean true.
func (n Node) IsTrue() bool {
	b, ok := n.Bool()
	return ok && b
}

// Truthy reports JavaScript truthiness (undefined is falsy).
func (n Node) Truthy() bool {
	if n.t == nil {
		return false
	}
	switch tk := n.tok(); tk.kind {
	case Null:
		return false
	case Bool:
		return n.t.data[tk.start] == 't'
	case Number:
		f, _ := n.Float()
		return f == f && f != 0
	case String:
		return tk.end > tk.start
	}
	return true
}

// Value converts the subtree to a [Value] equal to what [Parse] returns for
// the same text. The result does not alias the line: it copies the
// subtree's bytes once and its strings point into that copy.
func (n Node) Value() Value {
	if n.t == nil {
		return Value{}
	}
	tk := n.tok()
	lo, hi := tk.start, tk.end
	if tk.kind == String {
		lo, hi = lo-1, hi+1
	}
	owned := Tape{data: append([]byte(nil), n.t.data[lo:hi]...), toks: n.t.toks}
	return owned.build(n.i, lo)
}

// build converts the subtree at token root of t, whose data starts at byte
// shift of the original line (token offsets are relative to that line). It
// is iterative: nesting depth is limited only by memory, as in [Parse].
func (t *Tape) build(root uint32, shift uint32) Value {
	var stack []buildFrame
	k := root
	for {
		tk := &t.toks[k]
		var v Value
		if (tk.kind == Object || tk.kind == Array) && tk.next > k+1 {
			stack = append(stack, buildFrame{isObj: tk.kind == Object, next: tk.next})
			k++
			if tk.kind == Object {
				stack[len(stack)-1].key = t.leaf(k, shift).s
				k++
			}
			continue
		}
		v = t.leaf(k, shift)
		k = tk.next
		for {
			if len(stack) == 0 {
				return v
			}
			top := &stack[len(stack)-1]
			top.add(v)
			if k < top.next {
				if top.isObj {
					top.key = t.leaf(k, shift).s
					k++
				}
				break
			}
			v = top.value()
			stack = stack[:len(stack)-1]
		}
	}
}

// leaf converts a scalar or empty-container token of a shifted tape.
func (t *Tape) leaf(k, shift uint32) Value {
	local := t.toks[k]
	local.start -= shift
	local.end -= shift
	switch local.kind {
	case String:
		return Value{kind: String, s: t.decodeString(&local)}
	case Number:
		return Value{kind: Number, s: bytesString(t.data[local.start:local.end])}
	case Bool:
		return Value{kind: Bool, b: t.data[local.start] == 't'}
	case Object, Array:
		return Value{kind: local.kind, items: []Member{}}
	}
	return Value{}
}

// buildFrame is one open container while [Tape.build] converts a subtree.
type buildFrame struct {
	items  []Member
	key    string // the current member's key (objects)
	isObj  bool
	next   uint32         // token index after the container
	keyIdx map[string]int // built for large objects to find duplicate keys
}

// add appends an element, or sets a member with JSON.parse's duplicate
// rule: the first position, the last value.
func (f *buildFrame) add(v Value) {
	if !f.isObj {
		f.items = append(f.items, Member{Value: v})
		return
	}
	if f.keyIdx == nil && len(f.items) < 32 {
		for i := range f.items {
			if f.items[i].Key == f.key {
				f.items[i].Value = v
				return
			}
		}
		f.items = append(f.items, Member{Key: f.key, Value: v})
		return
	}
	if f.keyIdx == nil {
		f.keyIdx = make(map[string]int, len(f.items)*2)
		for i := range f.items {
			f.keyIdx[f.items[i].Key] = i
		}
	}
	if i, ok := f.keyIdx[f.key]; ok {
		f.items[i].Value = v
		return
	}
	f.keyIdx[f.key] = len(f.items)
	f.items = append(f.items, Member{Key: f.key, Value: v})
}

func (f *buildFrame) value() Value {
	if f.isObj {
		return Value{kind: Object, items: f.items}
	}
	return Value{kind: Array, items: f.items}
}

// Reset forgets the parsed data (keeping capacity) so that the tape does not
// keep a large line alive. Tapes that grew past limit tokens are shrunk.
func (t *Tape) Reset(limit int) {
	t.data = nil
	t.toks = t.toks[:0]
	t.stack = t.stack[:0]
	if cap(t.toks) > limit {
		t.toks = nil
	}
	if cap(t.stack) > limit {
		t.stack = nil
	}
}
