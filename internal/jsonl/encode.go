package jsonl

import (
	"bytes"
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"unsafe"
)

// Marshal returns v as JSON.stringify(v) would write it.
func Marshal(v Value) []byte { return AppendJSON(nil, &v) }

// MarshalString is [Marshal] as a string.
func MarshalString(v Value) string { return string(Marshal(v)) }

// AppendJSON appends v written as JavaScript's JSON.stringify writes it:
// no spaces; integer-like keys first in ascending order, then the others in
// insertion order; only '"', '\\' and control characters escaped (lone
// surrogates as \udXXX); numbers in JavaScript's shortest form (1.0 → 1,
// 1E+21 → 1e+21, -0 → 0, overflow → null).
func AppendJSON(dst []byte, v *Value) []byte {
	switch v.Kind() {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.meta&boolBit != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		if v.meta&plainBit != 0 {
			return append(dst, v.text()...)
		}
		return AppendJSNumber(dst, v.text())
	case String:
		if v.meta&plainBit != 0 {
			dst = append(dst, '"')
			dst = append(dst, v.text()...)
			return append(dst, '"')
		}
		return AppendJSString(dst, v.text())
	case Array:
		dst = append(dst, '[')
		for i, items := 0, v.list(); i < len(items); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, &items[i].Value)
		}
		return append(dst, ']')
	}
	items := v.list()
	if hasIndexKey(items) {
		return appendIndexOrdered(dst, items)
	}
	dst = append(dst, '{')
	for i := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendKey(dst, items[i].Key)
		dst = AppendJSON(dst, &items[i].Value)
	}
	return append(dst, '}')
}

// appendKey appends an object key and its colon. Most keys of parsed
// values are the parser's interned words, which need no escaping.
func appendKey(dst []byte, k string) []byte {
	if isInterned(k) {
		dst = append(dst, '"')
		dst = append(dst, k...)
		return append(dst, '"', ':')
	}
	return append(AppendJSString(dst, k), ':')
}

// hasIndexKey reports whether any key is integer-like (then JavaScript
// lists the members in another order than they were added). A key that
// does not start with a digit is never one: that is the fast test.
func hasIndexKey(items []Member) bool {
	for i := range items {
		if k := items[i].Key; k != "" && k[0] <= '9' && k[0] >= '0' {
			if _, ok := arrayIndex(k); ok {
				return true
			}
		}
	}
	return false
}

// appendIndexOrdered writes an object in JavaScript's property order:
// integer-like keys ascending, then the others in insertion order.
func appendIndexOrdered(dst []byte, items []Member) []byte {
	dst = append(dst, '{')
	first := true
	emit := func(m *Member) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendKey(dst, m.Key)
		dst = AppendJSON(dst, &m.Value)
	}
	for _, i := range integerKeyOrder(items) {
		emit(&items[i])
	}
	for i := range items {
		if _, ok := arrayIndex(items[i].Key); !ok {
			emit(&items[i])
		}
	}
	return append(dst, '}')
}

// integerKeyOrder returns the positions of integer-like keys sorted by value,
// or nil when there are none (the common case).
func integerKeyOrder(items []Member) []int {
	var idx []int
	for i := range items {
		if _, ok := arrayIndex(items[i].Key); ok {
			idx = append(idx, i)
		}
	}
	if idx == nil {
		return nil
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, _ := arrayIndex(items[idx[a]].Key)
		y, _ := arrayIndex(items[idx[b]].Key)
		return x < y
	})
	return idx
}

// arrayIndex reports whether k is a canonical array index (0 … 2^32−2), the
// keys JavaScript enumerates first.
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n <= math.MaxUint32-1
}

const hexDigits = "0123456789abcdef"

// AppendJSString appends s as a JSON string the way JSON.stringify does.
func AppendJSString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time up to the next byte that may need escaping.
		for i+8 <= len(s) && !escapeStop(loadString8(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xED {
			i++
			continue
		}
		if c == 0xED {
			if i+2 < len(s) && s[i+1] >= 0xA0 {
				// WTF-8 lone surrogate kept from a "\udXXX" escape.
				dst = append(dst, s[start:i]...)
				r := rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// escapeStop reports whether any byte of w is a control character, '"',
// '\\' or 0xED (the lead byte of a WTF-8 surrogate): the bytes that end the
// fast copy of a string. Other non-ASCII bytes are copied as they are.
func escapeStop(w uint64) bool {
	e := w ^ (lsb * 0xED)
	e = (e - lsb) &^ e
	return stringStop(w) || e&msb != 0
}

// loadString8 reads s[i:i+8] as a little-endian word.
func loadString8(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
}

// AppendJSNumber appends JSON number text in the form JavaScript's
// Number.prototype.toString gives after JSON.parse, or null when it
// overflows to ±Infinity.
func AppendJSNumber(dst []byte, text string) []byte {
	if isShortCanonicalInt(text) {
		return append(dst, text...)
	}
	f := parseJSNumber(text)
	return AppendFloat(dst, f)
}

// AppendFloat appends f as JSON.stringify writes a number.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(dst, int64(f), 10) // exact, and JavaScript's form
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits and decimal exponent: d.dddde±XX.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	ePos := bytes.IndexByte(e, 'e')
	mant, exp := e[:ePos], e[ePos+1:]
	var digitBuf [24]byte
	digits := append(digitBuf[:0], mant[0])
	if len(mant) > 2 {
		digits = append(digits, mant[2:]...) // skip the point
	}
	x, _ := strconv.Atoi(string(exp))
	k := len(digits)
	n := x + 1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for i := 0; i < n-k; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// isShortCanonicalInt reports number text that JavaScript prints unchanged:
// an integer of at most 15 digits without leading zeros, not "-0".
func isShortCanonicalInt(s string) bool {
	t := s
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
	}
	if len(t) == 0 || len(t) > 15 || (t[0] == '0' && (len(t) > 1 || len(s) != len(t))) {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
