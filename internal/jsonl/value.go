package jsonl

import (
	"math"
	"unsafe"
)

// Kind is the JSON type of a [Value].
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// Value is a JSON value with JavaScript's semantics.
//
//   - Strings hold the decoded text. Invalid UTF-8 in the input was replaced
//     by U+FFFD (WHATWG rules); a lone surrogate escape such as "\ud83d" is
//     kept as its 3-byte WTF-8 form, which [AppendJSON] writes back as the
//     escape, as JSON.stringify does.
//   - Numbers keep their source text, so nothing is rounded until the value
//     is written (then they take JSON.stringify's form: 1.0 → 1, 1e400 → null).
//   - Objects keep their members in first-appearance order; a duplicated key
//     keeps its first position and its last value, as JSON.parse does.
//
// The zero Value is null. Values returned by [Parse] may alias the parsed
// bytes: do not modify those bytes while the value is in use.
//
// A Value is 16 bytes (a [Member] 32), so that a parsed transcript costs
// little more than its text: one pointer (to the text of a string or
// number, or to the first member of an array or object), a 32-bit length
// and 32 bits for the kind, the boolean, whether a string is plain (see
// plainBit) and the member list's capacity. Strings and member lists are therefore limited to 4 GiB − 1 bytes and
// members (V8's own limit on string length is far lower).
type Value struct {
	p    unsafe.Pointer // String, Number: the text; Array, Object: the first member
	n    uint32         // length of the text, or number of members
	meta uint32         // kindMask: the kind; boolBit: the boolean; capacity of the members << capShift
}

const (
	kindMask = 7
	boolBit  = 8
	// plainBit marks a string whose text JSON.stringify writes as it is,
	// between quotes (no quote, backslash, control character or lone
	// surrogate), or a number whose text is JSON.stringify's form of it
	// (an integer of at most 15 digits without a leading zero). The parser
	// sets it on strings that had no escapes and on such integers, so that
	// writing them back skips the search for bytes to escape or the
	// number's conversion; a value without it is searched or converted.
	// Only strings and numbers carry it: in a list's meta the same bit is
	// part of the capacity.
	plainBit = 1 << capShift
	capShift = 4
	maxCap   = 1<<(32-capShift) - 1 // a larger capacity is recorded as the length
)

// textValue returns a string or number value holding s.
func textValue(k Kind, s string) Value {
	if uint64(len(s)) > math.MaxUint32 {
		panic("jsonl: string longer than 4 GiB")
	}
	return Value{p: unsafe.Pointer(unsafe.StringData(s)), n: uint32(len(s)), meta: uint32(k)}
}

// listValue returns an array or object value holding items.
func listValue(k Kind, items []Member) Value {
	v := Value{meta: uint32(k)}
	v.setList(items)
	return v
}

// text is the text of a string or number.
func (v *Value) text() string {
	if v.n == 0 {
		return ""
	}
	return unsafe.String((*byte)(v.p), v.n)
}

// list is the members of an array or object, with their capacity.
func (v *Value) list() []Member {
	if v.p == nil || v.Kind() < Array {
		return nil
	}
	c := max(v.meta>>capShift, v.n)
	return unsafe.Slice((*Member)(v.p), c)[:v.n]
}

// setList makes items the members of an array or object.
func (v *Value) setList(items []Member) {
	if uint64(len(items)) > math.MaxUint32 {
		panic("jsonl: more than 4 Gi members")
	}
	v.p, v.n = unsafe.Pointer(unsafe.SliceData(items)), uint32(len(items))
	c := uint32(min(cap(items), maxCap))
	if cap(items) == 0 {
		v.p = nil
	}
	v.meta = v.meta&(kindMask|boolBit) | c<<capShift
}

// Member is one object member or array element.
type Member struct {
	Key   string
	Value Value
}

// Constructors.

// BoolValue returns true or false.
func BoolValue(b bool) Value {
	if b {
		return Value{meta: uint32(Bool) | boolBit}
	}
	return Value{meta: uint32(Bool)}
}

// StringValue returns a string value.
func StringValue(s string) Value { return textValue(String, s) }

// NumberValue returns a number value from its JSON text (e.g. "42", "1.5e3").
// The text must be a valid JSON number.
func NumberValue(text string) Value { return textValue(Number, text) }

// IntValue returns a number value for n.
func IntValue(n int64) Value {
	if n >= 0 && n < int64(len(smallInts)) {
		return textValue(Number, smallInts[n])
	}
	return textValue(Number, itoa(n))
}

// FloatValue returns the number f in the form JSON.stringify writes it
// (NaN and ±Infinity, which JSON cannot hold, as null). Small integers
// share constant text.
func FloatValue(f float64) Value {
	if f >= 0 && f < float64(len(smallInts)) && f == math.Trunc(f) {
		return textValue(Number, smallInts[int(f)])
	}
	b := AppendFloat(nil, f)
	if b[0] == 'n' {
		return Value{}
	}
	return textValue(Number, bytesString(b))
}

// smallInts are the texts of 0 … 255.
var smallInts = func() (t [256]string) {
	for i := range t {
		t[i] = itoa(int64(i))
	}
	return t
}()

// ArrayValue returns an array holding vals.
func ArrayValue(vals ...Value) Value {
	items := make([]Member, len(vals))
	for i := range vals {
		items[i].Value = vals[i]
	}
	return listValue(Array, items)
}

// ObjectValue returns an empty object.
func ObjectValue() Value { return Value{meta: uint32(Object)} }

// ObjectOf returns an object from key/value pairs in order.
func ObjectOf(members ...Member) Value {
	o := listValue(Object, make([]Member, 0, len(members)))
	for _, m := range members {
		o.Set(m.Key, m.Value)
	}
	return o
}

func itoa(n int64) string {
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// Accessors.

// Kind returns the value's JSON type.
func (v *Value) Kind() Kind { return Kind(v.meta & kindMask) }

// IsNull, IsString and friends test the kind.
func (v *Value) IsNull() bool   { return v == nil || v.Kind() == Null }
func (v *Value) IsString() bool { return v != nil && v.Kind() == String }
func (v *Value) IsNumber() bool { return v != nil && v.Kind() == Number }
func (v *Value) IsBool() bool   { return v != nil && v.Kind() == Bool }
func (v *Value) IsArray() bool  { return v != nil && v.Kind() == Array }
func (v *Value) IsObject() bool { return v != nil && v.Kind() == Object }

// Str returns the string and whether v is a string.
func (v *Value) Str() (string, bool) {
	if v == nil || v.Kind() != String {
		return "", false
	}
	return v.text(), true
}

// StrOr returns the string, or def when v is not a string.
func (v *Value) StrOr(def string) string {
	if s, ok := v.Str(); ok {
		return s
	}
	return def
}

// Bool returns the boolean and whether v is a boolean.
func (v *Value) Bool() (bool, bool) {
	if v == nil || v.Kind() != Bool {
		return false, false
	}
	return v.meta&boolBit != 0, true
}

// IsTrue reports whether v is the boolean true.
func (v *Value) IsTrue() bool { return v != nil && v.meta == uint32(Bool)|boolBit }

// NumberText returns the source text of a number.
func (v *Value) NumberText() (string, bool) {
	if v == nil || v.Kind() != Number {
		return "", false
	}
	return v.text(), true
}

// Float returns the number as JavaScript reads it (±Inf on overflow).
func (v *Value) Float() (float64, bool) {
	if v == nil || v.Kind() != Number {
		return 0, false
	}
	return parseJSNumber(v.text()), true
}

// Truthy reports JavaScript truthiness of v (undefined/nil is falsy).
func (v *Value) Truthy() bool {
	if v == nil {
		return false
	}
	switch v.Kind() {
	case Null:
		return false
	case Bool:
		return v.meta&boolBit != 0
	case Number:
		f := parseJSNumber(v.text())
		return f == f && f != 0
	case String:
		return v.n != 0
	}
	return true
}

// Len returns the number of array elements or object members.
func (v *Value) Len() int {
	if v == nil || v.Kind() < Array {
		return 0
	}
	return int(v.n)
}

// Index returns a pointer to the i-th array element (or object member value).
func (v *Value) Index(i int) *Value { return &v.list()[i].Value }

// Items returns the array elements or object members. The slice aliases v.
func (v *Value) Items() []Member {
	if v == nil || v.Kind() < Array {
		return nil
	}
	return v.list()
}

// SetItems replaces the elements of an array (Key fields ignored) or the
// members of an object (keys must be unique).
func (v *Value) SetItems(items []Member) { v.setList(items) }

// Append adds an element to an array.
func (v *Value) Append(e Value) { v.setList(append(v.list(), Member{Value: e})) }

// Get returns the member named key of an object, or nil when v is not an
// object or has no such member.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind() != Object || v.n == 0 {
		return nil
	}
	// The rules look members up by the million: the members without
	// list's capacity arithmetic.
	items := unsafe.Slice((*Member)(v.p), v.n)
	for i := range items {
		if len(items[i].Key) == len(key) && items[i].Key == key {
			return &items[i].Value
		}
	}
	return nil
}

// Has reports whether an object has the member key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// GetStr returns the string member key and whether it is a string.
func (v *Value) GetStr(key string) (string, bool) { return v.lookup(key).Str() }

// lookup is Get for callers that are not inlined with a constant key:
// a parsed key that is one of the parser's interned words shares its
// bytes with the constant the caller names, so the address decides
// without a call to compare the text.
func (v *Value) lookup(key string) *Value {
	if v == nil || v.Kind() != Object || v.n == 0 {
		return nil
	}
	items := unsafe.Slice((*Member)(v.p), v.n)
	for i := range items {
		if k := items[i].Key; len(k) == len(key) && (unsafe.StringData(k) == unsafe.StringData(key) || k == key) {
			return &items[i].Value
		}
	}
	return nil
}

// Path follows object keys, returning nil when any step is missing.
func (v *Value) Path(keys ...string) *Value {
	cur := v
	for _, k := range keys {
		cur = cur.Get(k)
		if cur == nil {
			return nil
		}
	}
	return cur
}

// Set sets member key of an object: a present key keeps its position (as in
// JavaScript), a new key is appended.
func (v *Value) Set(key string, val Value) {
	if p := v.Get(key); p != nil {
		*p = val
		return
	}
	v.setList(append(v.list(), Member{Key: key, Value: val}))
}

// Delete removes member key of an object, keeping the others' order.
func (v *Value) Delete(key string) bool {
	if v == nil || v.Kind() != Object {
		return false
	}
	items := v.list()
	for i := range items {
		if items[i].Key == key {
			v.setList(append(items[:i:i], items[i+1:]...))
			return true
		}
	}
	return false
}

// Clone returns a deep copy of v (strings are shared: they are immutable).
func (v Value) Clone() Value {
	if v.Kind() < Array || v.n == 0 {
		return v
	}
	src := v.list()
	items := make([]Member, len(src))
	for i, m := range src {
		items[i] = Member{Key: m.Key, Value: m.Value.Clone()}
	}
	v.setList(items)
	return v
}

// Equal reports deep equality with JavaScript's view of the values: numbers
// compare as float64, object members regardless of order.
func Equal(a, b *Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case Bool:
		return a.meta == b.meta
	case Number:
		return a.text() == b.text() || parseJSNumber(a.text()) == parseJSNumber(b.text())
	case String:
		return a.text() == b.text()
	}
	ai, bi := a.list(), b.list()
	if len(ai) != len(bi) {
		return false
	}
	if a.Kind() == Array {
		for i := range ai {
			if !Equal(&ai[i].Value, &bi[i].Value) {
				return false
			}
		}
		return true
	}
	for i := range ai {
		o := b.Get(ai[i].Key)
		if o == nil || !Equal(&ai[i].Value, o) {
			return false
		}
	}
	return true
}
