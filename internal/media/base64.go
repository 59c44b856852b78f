package media

import "strings"

// CanonicalBase64 validates s as base64 the way OpenClaw's media-core
// canonicalizeBase64 does and returns its canonical form: characters at or
// below U+0020 removed and missing padding added.
//
// It rejects (ok == false): any character outside A–Z a–z 0–9 + / and =
// (every byte ≥ 0x80 included); more than two '='; a data character after a
// '='; an empty result; a length ≡ 1 (mod 4); a length not a multiple of 4
// when explicit padding is present; and non-zero unused low bits in the last
// data character.
func CanonicalBase64(s string) (canonical string, ok bool) {
	// Fast path: a run of data characters, then at most two '=' at the very
	// end, which is what almost every payload is.
	i := 0
	for i < len(s) && b64Class[s[i]] == classData {
		i++
	}
	end := i
	for end < len(s) && end-i < 2 && s[end] == '=' {
		end++
	}
	if end == len(s) {
		return finishCanonical(s, end-i, end > i, lastDataValue(s[:i]))
	}
	return canonicalSlow(s)
}

// canonicalSlow handles payloads with ignorable characters.
func canonicalSlow(s string) (string, bool) {
	cleaned := make([]byte, 0, len(s))
	padding, sawPadding := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch b64Class[c] {
		case classIgnored:
			continue
		case classPad:
			padding++
			if padding > 2 {
				return "", false
			}
			sawPadding = true
		case classData:
			if sawPadding {
				return "", false
			}
		default:
			return "", false
		}
		cleaned = append(cleaned, c)
	}
	data := cleaned[:len(cleaned)-padding]
	return finishCanonical(string(cleaned), padding, sawPadding, lastDataValue(string(data)))
}

// lastDataValue is the 6-bit value of the last character of data (0 when
// empty).
func lastDataValue(data string) int {
	if data == "" {
		return 0
	}
	return base64Value(data[len(data)-1])
}

// Character classes of canonical base64 (bytes ≥ 0x80 are invalid).
const (
	classInvalid = iota
	classData
	classPad
	classIgnored
)

var b64Class = func() (t [256]uint8) {
	for c := 0; c <= ' '; c++ {
		t[c] = classIgnored
	}
	for c := range 256 {
		if base64Value(byte(c)) >= 0 {
			t[c] = classData
		}
	}
	t['='] = classPad
	return t
}()

// finishCanonical applies the length and pad-bit rules to the cleaned text.
func finishCanonical(cleaned string, padding int, sawPadding bool, lastData int) (string, bool) {
	if len(cleaned) == 0 {
		return "", false
	}
	rem := len(cleaned) % 4
	if rem != 0 && (sawPadding || rem == 1) {
		return "", false
	}
	effective := padding
	if rem != 0 {
		effective = 4 - rem
	}
	// The bits of the last data character that fall beyond the final byte
	// must be zero, or the text is not the canonical encoding of its bytes.
	mask := 0
	switch effective {
	case 1:
		mask = 3
	case 2:
		mask = 15
	}
	if lastData&mask != 0 {
		return "", false
	}
	if rem != 0 {
		cleaned += strings.Repeat("=", 4-rem)
	}
	return cleaned, true
}

// base64Value is the 6-bit value of a standard-alphabet character, or -1.
func base64Value(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '+':
		return 62
	case c == '/':
		return 63
	}
	return -1
}

// EstimateDecodedBytes is OpenClaw's estimateBase64DecodedBytes: the decoded
// size of s predicted from its length alone, without validating it. Lengths
// are counted in UTF-16 code units as JavaScript does; characters at or below
// U+0020 are not counted, and trailing '=' (up to two, whitespace between
// allowed) are subtracted. OpenClaw's replay refuses images whose estimate
// exceeds [MaxInputBytes].
func EstimateDecodedBytes(s string) int {
	effective := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c <= ' ':
			// not counted
		case c < 0x80 || c >= 0xF0:
			// ASCII: one unit; a four-byte lead: the first unit of a pair
			// (the second is counted below, with its continuation bytes).
			effective++
		case c >= 0xC0:
			effective++ // lead of a two- or three-byte character
		}
		if c >= 0xF0 {
			effective++
		}
	}
	if effective == 0 {
		return 0
	}
	end := lastNonSpace(s, len(s)-1)
	padding := 0
	if end >= 0 && s[end] == '=' {
		padding = 1
		end = lastNonSpace(s, end-1)
		if end >= 0 && s[end] == '=' {
			padding = 2
		}
	}
	return max(0, effective*3/4-padding)
}

// lastNonSpace returns the index of the last byte at or before i that is
// above U+0020, or -1.
func lastNonSpace(s string, i int) int {
	for i >= 0 && s[i] <= ' ' {
		i--
	}
	return i
}
