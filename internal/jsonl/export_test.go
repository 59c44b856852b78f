package jsonl

import "strings"

// Searched returns a deep copy of v with no string or number marked plain
// and every key copied out of the intern table, so that writing it
// searches every string and key for bytes to escape and converts every
// number: the encoder's answer without its shortcuts, to compare them with.
func Searched(v Value) Value {
	switch v.Kind() {
	case String, Number:
		v.meta &^= plainBit
		return v
	case Array, Object:
		src := v.list()
		items := make([]Member, len(src))
		for i, m := range src {
			items[i] = Member{Key: strings.Clone(m.Key), Value: Searched(m.Value)}
		}
		v.setList(items)
	}
	return v
}

// PlainValues counts the strings and numbers of v marked plain.
func PlainValues(v *Value) int {
	switch v.Kind() {
	case String, Number:
		if v.meta&plainBit != 0 {
			return 1
		}
	case Array, Object:
		n := 0
		for i := range v.list() {
			n += PlainValues(&v.list()[i].Value)
		}
		return n
	}
	return 0
}
