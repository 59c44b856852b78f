package session

import (
	"math"
	"strings"
	"time"
)

// maxDateMillis is the largest magnitude of a JavaScript time value.
const maxDateMillis = 8.64e15

// ParseDateMillis parses a timestamp as JavaScript's Date.parse does (see
// parseDate for the forms read), returning epoch milliseconds; false for
// text Date.parse makes NaN of, or a time beyond a JavaScript Date's range.
func ParseDateMillis(s string) (int64, bool) {
	ms, ok := parseDate(s)
	if !ok || math.Abs(ms) > maxDateMillis {
		return 0, false
	}
	return int64(ms), true
}

// parseDate parses s as V8's Date.parse does for the date forms session
// files use, returning epoch milliseconds:
//
//   - the ECMAScript date-time string format, [+-YY]YYYY[-MM[-DD]]
//     [THH:mm[:ss[.fraction]][Z|±hh:mm|±hhmm]], with V8's extensions (a
//     fraction of any length, of which milliseconds are kept; T and Z in
//     either case). A date alone is UTC; a date-time without an offset is
//     local time;
//   - V8's legacy reading of an ISO date, white space and a time
//     H[H]:M[M][:S[S][.fraction]], optionally followed by Z, UTC, GMT or an
//     offset ±hh:mm / ±hhmm (local time without one).
//
// Day numbers up to 31 roll over into the next month as in V8. Other legacy
// forms V8 accepts ("Sat, 14 Mar 2026 …", "3/14/2026") are not recognised:
// they report false, so a turn carrying one counts as having no timestamp.
func parseDate(s string) (float64, bool) {
	p := dateScanner{s: s}
	y, mo, d, ok := p.isoDate()
	if !ok {
		return 0, false
	}
	if p.end() || p.i == len(p.s)-1 && (p.s[p.i] == 'Z' || p.s[p.i] == 'z') {
		return dateMillis(y, mo, d, 0, 0, 0, 0, time.UTC), true // a date alone (V8 also takes a Z after it) is UTC
	}
	if c := p.peek(); c == 'T' || c == 't' {
		p.i++
		return p.isoTime(y, mo, d)
	}
	return p.legacyTime(y, mo, d)
}

// dateScanner walks a date string byte by byte.
type dateScanner struct {
	s string
	i int
}

func (p *dateScanner) end() bool { return p.i >= len(p.s) }

func (p *dateScanner) peek() byte {
	if p.end() {
		return 0
	}
	return p.s[p.i]
}

// accept consumes c if it is next.
func (p *dateScanner) accept(c byte) bool {
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// digits consumes between minN and maxN decimal digits.
func (p *dateScanner) digits(minN, maxN int) (int, bool) {
	n, v := 0, 0
	for n < maxN && p.peek() >= '0' && p.peek() <= '9' {
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
		n++
	}
	return v, n >= minN
}

// isoDate reads [+-]YYYYYY or YYYY, then optional -MM and -DD (2 digits).
func (p *dateScanner) isoDate() (y, mo, d int, ok bool) {
	mo, d = 1, 1
	if c := p.peek(); c == '+' || c == '-' {
		p.i++
		if y, ok = p.digits(6, 6); !ok || (c == '-' && y == 0) {
			return 0, 0, 0, false
		}
		if c == '-' {
			y = -y
		}
	} else if y, ok = p.digits(4, 4); !ok {
		return 0, 0, 0, false
	}
	if p.accept('-') {
		if mo, ok = p.digits(2, 2); !ok || mo < 1 || mo > 12 {
			return 0, 0, 0, false
		}
		if p.accept('-') {
			if d, ok = p.digits(2, 2); !ok || d < 1 || d > 31 {
				return 0, 0, 0, false
			}
		}
	}
	return y, mo, d, true
}

// isoTime reads HH:mm[:ss[.fraction]] and an optional Z or offset, which
// must end the string.
func (p *dateScanner) isoTime(y, mo, d int) (float64, bool) {
	h, mi, sec, ms, ok := p.clock(2)
	if !ok {
		return 0, false
	}
	loc, ok := p.isoZone()
	if !ok || !p.end() {
		return 0, false
	}
	return dateMillis(y, mo, d, h, mi, sec, ms, loc), true
}

// legacyTime reads white space, H[H]:M[M][:S[S][.fraction]] and an optional
// zone after a date, as V8's legacy parser does for "2026-03-14 09:27:02".
func (p *dateScanner) legacyTime(y, mo, d int) (float64, bool) {
	if !p.skipSpaces() {
		return 0, false
	}
	h, mi, sec, ms, ok := p.clock(1)
	if !ok {
		return 0, false
	}
	p.skipSpaces()
	loc, ok := p.legacyZone()
	if !ok {
		return 0, false
	}
	p.skipSpaces()
	if !p.end() {
		return 0, false
	}
	return dateMillis(legacyYear(y), mo, d, h, mi, sec, ms, loc), true
}

// legacyYear maps the years 0–99 as V8's legacy parser does (0–49 → 2000s,
// 50–99 → 1900s).
func legacyYear(y int) int {
	switch {
	case y >= 0 && y <= 49:
		return y + 2000
	case y >= 50 && y <= 99:
		return y + 1900
	}
	return y
}

// skipSpaces consumes spaces and tabs, reporting whether there were any.
func (p *dateScanner) skipSpaces() bool {
	start := p.i
	for p.peek() == ' ' || p.peek() == '\t' {
		p.i++
	}
	return p.i > start
}

// clock reads hours:minutes[:seconds[.fraction]], each field having minN to
// 2 digits; hour 24 is allowed only for 24:00:00.000.
func (p *dateScanner) clock(minN int) (h, mi, sec, ms int, ok bool) {
	if h, ok = p.digits(minN, 2); !ok || !p.accept(':') {
		return 0, 0, 0, 0, false
	}
	if mi, ok = p.digits(minN, 2); !ok {
		return 0, 0, 0, 0, false
	}
	if p.accept(':') {
		if sec, ok = p.digits(minN, 2); !ok {
			return 0, 0, 0, 0, false
		}
		if p.accept('.') {
			if ms, ok = p.fractionMillis(); !ok {
				return 0, 0, 0, 0, false
			}
		}
	}
	if h > 24 || mi > 59 || sec > 59 || (h == 24 && mi+sec+ms > 0) {
		return 0, 0, 0, 0, false
	}
	return h, mi, sec, ms, true
}

// fractionMillis reads one or more digits and keeps the first three as
// milliseconds.
func (p *dateScanner) fractionMillis() (int, bool) {
	start := p.i
	ms := 0
	for p.peek() >= '0' && p.peek() <= '9' {
		if p.i-start < 3 {
			ms = ms*10 + int(p.s[p.i]-'0')
		}
		p.i++
	}
	for n := p.i - start; n < 3; n++ {
		ms *= 10
	}
	return ms, p.i > start
}

// isoZone reads nothing (local time), Z, or ±hh:mm / ±hhmm.
func (p *dateScanner) isoZone() (*time.Location, bool) {
	switch p.peek() {
	case 0:
		return time.Local, true
	case 'Z', 'z':
		p.i++
		return time.UTC, true
	case '+', '-':
		return p.offset()
	}
	return nil, false
}

// legacyZone reads nothing (local time), Z, UTC, GMT or an offset.
func (p *dateScanner) legacyZone() (*time.Location, bool) {
	rest := p.s[p.i:]
	for _, name := range []string{"UTC", "GMT", "Z"} {
		if len(rest) >= len(name) && strings.EqualFold(rest[:len(name)], name) {
			p.i += len(name)
			return time.UTC, true
		}
	}
	if c := p.peek(); c == '+' || c == '-' {
		return p.offset()
	}
	return time.Local, true
}

// offset reads ±hh:mm or ±hhmm (hh ≤ 23, mm ≤ 59).
func (p *dateScanner) offset() (*time.Location, bool) {
	sign := 1
	if p.s[p.i] == '-' {
		sign = -1
	}
	p.i++
	hh, ok := p.digits(2, 2)
	if !ok {
		return nil, false
	}
	p.accept(':')
	mm, ok := p.digits(2, 2)
	if !ok || hh > 23 || mm > 59 {
		return nil, false
	}
	return time.FixedZone("", sign*(hh*3600+mm*60)), true
}

// dateMillis returns the epoch milliseconds of a calendar time; out-of-range
// days and hour 24 roll over as in JavaScript's MakeDate.
func dateMillis(y, mo, d, h, mi, sec, ms int, loc *time.Location) float64 {
	return float64(time.Date(y, time.Month(mo), d, h, mi, sec, ms*int(time.Millisecond), loc).UnixMilli())
}
