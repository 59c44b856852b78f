package session

import (
	"math"
	"strconv"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// versionNumber is header.version as JavaScript's relational operators see
// it (`version >= 3`, `version < 2`): absent or null count as 1 (OpenClaw
// writes `header?.version ?? 1`), other values go through ToNumber, so a
// non-numeric string or an object gives NaN, for which every comparison is
// false.
func versionNumber(raw []byte) float64 {
	if len(raw) == 0 {
		return 1
	}
	v, err := jsonl.Parse(raw)
	if err != nil || v.IsNull() {
		return 1
	}
	return jsToNumber(&v)
}

// jsToNumber is ECMAScript ToNumber(ToPrimitive(v)) for a JSON value.
func jsToNumber(v *jsonl.Value) float64 {
	switch v.Kind() {
	case jsonl.Null:
		return 0
	case jsonl.Bool:
		if v.IsTrue() {
			return 1
		}
		return 0
	case jsonl.Number:
		f, _ := v.Float()
		return f
	case jsonl.String:
		return stringToNumber(v.StrOr(""))
	case jsonl.Array:
		// An array's primitive is its join(","): with two or more elements
		// the text holds a comma and is never numeric.
		switch v.Len() {
		case 0:
			return 0
		case 1:
			e := v.Index(0)
			if e.IsNull() {
				return 0
			}
			if e.IsBool() || e.IsObject() {
				return math.NaN() // "true", "false", "[object Object]"
			}
			return jsToNumber(e)
		}
	}
	return math.NaN() // objects: "[object Object]"
}

// stringToNumber is ECMAScript StringToNumber.
func stringToNumber(s string) float64 {
	s = jsonl.TrimJS(s)
	switch s {
	case "":
		return 0
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]]
		if base != 0 {
			return radixToNumber(s[2:], base)
		}
	}
	if !isDecimalLiteral(s) {
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64) // overflow yields ±Inf, as in JavaScript
	return f
}

// radixToNumber parses the digits of a 0x/0o/0b literal.
func radixToNumber(digits string, base int) float64 {
	var f float64
	for _, c := range digits {
		d := -1
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		}
		if d < 0 || d >= base {
			return math.NaN()
		}
		f = f*float64(base) + float64(d)
	}
	return f
}

// isDecimalLiteral reports StrDecimalLiteral: [+-] digits [. digits] [e[+-]digits]
// or [+-] . digits [e…], digits being ASCII only.
func isDecimalLiteral(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := digitRun(s, &i)
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		fracDigits = digitRun(s, &i)
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digitRun(s, &i) == 0 {
			return false
		}
	}
	return i == len(s)
}

func digitRun(s string, i *int) int {
	n := 0
	for *i < len(s) && s[*i] >= '0' && s[*i] <= '9' {
		*i++
		n++
	}
	return n
}
