package session

import (
	"math"
	"strconv"
	"strings"
	"time"

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

// maxDateMillis is the largest magnitude of a JavaScript time value.
const maxDateMillis = 8.64e15

// ParseDateMillis parses an entry timestamp as JavaScript's Date.parse does
// for the ISO-8601 forms OpenClaw writes and V8 accepts: YYYY, YYYY-MM or
// YYYY-MM-DD (also ±YYYYYY), optionally followed by "T", "t" or a space and
// HH:mm[:ss[.fraction]] and a "Z"/"z" or ±HH:mm/±HHmm offset. A date alone
// is UTC; a date and time without an offset is local time (as in Node).
// Day numbers up to 31 roll over into the next month as in V8. V8's legacy
// fallback formats ("March 14, 2026", "2026/03/14") are not recognised: they
// report false, as any text that is not a valid time.
func ParseDateMillis(s string) (int64, bool) {
	p := dateParser{s: s}
	ms, ok := p.parse()
	if !ok || math.Abs(float64(ms)) > maxDateMillis {
		return 0, false
	}
	return ms, true
}

type dateParser struct {
	s string
	i int
}

// num reads exactly n ASCII digits.
func (p *dateParser) num(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// eat consumes c if it is next.
func (p *dateParser) eat(cs string) bool {
	if p.i < len(p.s) && strings.IndexByte(cs, p.s[p.i]) >= 0 {
		p.i++
		return true
	}
	return false
}

func (p *dateParser) parse() (int64, bool) {
	year, ok := p.year()
	if !ok {
		return 0, false
	}
	month, day := 1, 1
	if p.eat("-") {
		if month, ok = p.num(2); !ok || month < 1 || month > 12 {
			return 0, false
		}
		if p.eat("-") {
			if day, ok = p.num(2); !ok || day < 1 || day > 31 {
				return 0, false
			}
		}
	}
	if p.i == len(p.s) || p.s[p.i:] == "Z" || p.s[p.i:] == "z" {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).UnixMilli(), true
	}
	if !p.eat("Tt ") {
		return 0, false
	}
	h, m, sec, ms, ok := p.clock()
	if !ok {
		return 0, false
	}
	loc, ok := p.zone()
	if !ok || p.i != len(p.s) {
		return 0, false
	}
	return time.Date(year, time.Month(month), day, h, m, sec, ms*1e6, loc).UnixMilli(), true
}

// year reads YYYY or ±YYYYYY (-000000 is not allowed).
func (p *dateParser) year() (int, bool) {
	if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
		neg := p.s[p.i] == '-'
		p.i++
		y, ok := p.num(6)
		if !ok || neg && y == 0 {
			return 0, false
		}
		if neg {
			y = -y
		}
		return y, true
	}
	return p.num(4)
}

// clock reads HH:mm[:ss[.fraction]]; 24:00 is allowed only as 24:00:00.000.
func (p *dateParser) clock() (h, m, s, ms int, ok bool) {
	if h, ok = p.num(2); !ok || !p.eat(":") {
		return 0, 0, 0, 0, false
	}
	if m, ok = p.num(2); !ok || h > 24 || m > 59 {
		return 0, 0, 0, 0, false
	}
	if p.eat(":") {
		if s, ok = p.num(2); !ok || s > 59 {
			return 0, 0, 0, 0, false
		}
		if p.eat(".") {
			if ms, ok = p.fraction(); !ok {
				return 0, 0, 0, 0, false
			}
		}
	}
	if h == 24 && (m != 0 || s != 0 || ms != 0) {
		return 0, 0, 0, 0, false
	}
	return h, m, s, ms, true
}

// fraction reads one or more digits and keeps milliseconds (truncating).
func (p *dateParser) fraction() (int, bool) {
	start := p.i
	ms, scale := 0, 100
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		ms += int(p.s[p.i]-'0') * scale
		scale /= 10
		p.i++
	}
	return ms, p.i > start
}

// zone reads Z, ±HH:mm or ±HHmm; none means local time.
func (p *dateParser) zone() (*time.Location, bool) {
	if p.eat("Zz") {
		return time.UTC, true
	}
	if p.i == len(p.s) {
		return time.Local, true
	}
	sign := 1
	switch {
	case p.eat("+"):
	case p.eat("-"):
		sign = -1
	default:
		return nil, false
	}
	h, ok := p.num(2)
	if !ok {
		return nil, false
	}
	p.eat(":")
	m, ok := p.num(2)
	if !ok || h > 23 || m > 59 {
		return nil, false
	}
	return time.FixedZone("", sign*(h*3600+m*60)), true
}
