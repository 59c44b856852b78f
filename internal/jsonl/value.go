package jsonl

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
type Value struct {
	kind  Kind
	b     bool
	s     string   // String: decoded text; Number: source text
	items []Member // Array elements (Key unused) or Object members
}

// Member is one object member or array element.
type Member struct {
	Key   string
	Value Value
}

// Constructors.

// NullValue returns null.
func NullValue() Value { return Value{} }

// BoolValue returns true or false.
func BoolValue(b bool) Value { return Value{kind: Bool, b: b} }

// StringValue returns a string value.
func StringValue(s string) Value { return Value{kind: String, s: s} }

// NumberValue returns a number value from its JSON text (e.g. "42", "1.5e3").
// The text must be a valid JSON number.
func NumberValue(text string) Value { return Value{kind: Number, s: text} }

// IntValue returns a number value for n.
func IntValue(n int64) Value { return Value{kind: Number, s: itoa(n)} }

// ArrayValue returns an array holding vals.
func ArrayValue(vals ...Value) Value {
	v := Value{kind: Array, items: make([]Member, len(vals))}
	for i := range vals {
		v.items[i].Value = vals[i]
	}
	return v
}

// ObjectValue returns an empty object.
func ObjectValue() Value { return Value{kind: Object, items: []Member{}} }

// ObjectOf returns an object from key/value pairs in order.
func ObjectOf(members ...Member) Value {
	o := ObjectValue()
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
func (v *Value) Kind() Kind { return v.kind }

// IsNull, IsString and friends test the kind.
func (v *Value) IsNull() bool   { return v == nil || v.kind == Null }
func (v *Value) IsString() bool { return v != nil && v.kind == String }
func (v *Value) IsNumber() bool { return v != nil && v.kind == Number }
func (v *Value) IsBool() bool   { return v != nil && v.kind == Bool }
func (v *Value) IsArray() bool  { return v != nil && v.kind == Array }
func (v *Value) IsObject() bool { return v != nil && v.kind == Object }

// Str returns the string and whether v is a string.
func (v *Value) Str() (string, bool) {
	if v == nil || v.kind != String {
		return "", false
	}
	return v.s, true
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
	if v == nil || v.kind != Bool {
		return false, false
	}
	return v.b, true
}

// IsTrue reports whether v is the boolean true.
func (v *Value) IsTrue() bool { return v != nil && v.kind == Bool && v.b }

// NumberText returns the source text of a number.
func (v *Value) NumberText() (string, bool) {
	if v == nil || v.kind != Number {
		return "", false
	}
	return v.s, true
}

// Float returns the number as JavaScript reads it (±Inf on overflow).
func (v *Value) Float() (float64, bool) {
	if v == nil || v.kind != Number {
		return 0, false
	}
	return parseJSNumber(v.s), true
}

// Truthy reports JavaScript truthiness of v (undefined/nil is falsy).
func (v *Value) Truthy() bool {
	if v == nil {
		return false
	}
	switch v.kind {
	case Null:
		return false
	case Bool:
		return v.b
	case Number:
		f := parseJSNumber(v.s)
		return f == f && f != 0
	case String:
		return v.s != ""
	}
	return true
}

// Len returns the number of array elements or object members.
func (v *Value) Len() int {
	if v == nil {
		return 0
	}
	return len(v.items)
}

// Index returns a pointer to the i-th array element (or object member value).
func (v *Value) Index(i int) *Value { return &v.items[i].Value }

// Items returns the array elements or object members. The slice aliases v.
func (v *Value) Items() []Member {
	if v == nil {
		return nil
	}
	return v.items
}

// SetItems replaces the elements of an array (Key fields ignored) or the
// members of an object (keys must be unique).
func (v *Value) SetItems(items []Member) { v.items = items }

// Append adds an element to an array.
func (v *Value) Append(e Value) { v.items = append(v.items, Member{Value: e}) }

// Get returns the member named key of an object, or nil when v is not an
// object or has no such member.
func (v *Value) Get(key string) *Value {
	if v == nil || v.kind != Object {
		return nil
	}
	for i := range v.items {
		if v.items[i].Key == key {
			return &v.items[i].Value
		}
	}
	return nil
}

// Has reports whether an object has the member key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// GetStr returns the string member key and whether it is a string.
func (v *Value) GetStr(key string) (string, bool) { return v.Get(key).Str() }

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
	v.items = append(v.items, Member{Key: key, Value: val})
}

// Delete removes member key of an object, keeping the others' order.
func (v *Value) Delete(key string) bool {
	if v == nil || v.kind != Object {
		return false
	}
	for i := range v.items {
		if v.items[i].Key == key {
			v.items = append(v.items[:i:i], v.items[i+1:]...)
			return true
		}
	}
	return false
}

// Clone returns a deep copy of v (strings are shared: they are immutable).
func (v Value) Clone() Value {
	if v.items == nil {
		return v
	}
	items := make([]Member, len(v.items))
	for i, m := range v.items {
		items[i] = Member{Key: m.Key, Value: m.Value.Clone()}
	}
	v.items = items
	return v
}

// Equal reports deep equality with JavaScript's view of the values: numbers
// compare as float64, object members regardless of order.
func Equal(a, b *Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Bool:
		return a.b == b.b
	case Number:
		return a.s == b.s || parseJSNumber(a.s) == parseJSNumber(b.s)
	case String:
		return a.s == b.s
	case Array:
		if len(a.items) != len(b.items) {
			return false
		}
		for i := range a.items {
			if !Equal(&a.items[i].Value, &b.items[i].Value) {
				return false
			}
		}
		return true
	}
	if len(a.items) != len(b.items) {
		return false
	}
	for i := range a.items {
		o := b.Get(a.items[i].Key)
		if o == nil || !Equal(&a.items[i].Value, o) {
			return false
		}
	}
	return true
}
