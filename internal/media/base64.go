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
	var cleaned []byte // nil until the first ignored character
	padding, sawPadding, lastData := 0, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' {
			if cleaned == nil {
				cleaned = make([]byte, i, len(s))
				copy(cleaned, s[:i])
			}
			continue
		}
		if c == '=' {
			padding++
			if padding > 2 {
				return "", false
			}
			sawPadding = true
		} else {
			v := base64Value(c)
			if sawPadding || v < 0 {
				return "", false
			}
			lastData = v
		}
		if cleaned != nil {
			cleaned = append(cleaned, c)
		}
	}
	out := s
	if cleaned != nil {
		out = string(cleaned)
	}
	return finishCanonical(out, padding, sawPadding, lastData)
}

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
	effective := utf16Len(s)
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' {
			effective--
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

// utf16Len is the JavaScript length of s (UTF-16 code units). s may be
// WTF-8: an encoded lone surrogate counts as one unit, like any other
// three-byte sequence.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < 0x80:
			i++
		case c >= 0xF0:
			i += 4
			n++ // astral characters take a surrogate pair
		case c >= 0xE0:
			i += 3
		case c >= 0xC0:
			i += 2
		default:
			i++ // stray continuation byte; the parser never produces one
		}
		n++
	}
	return n
}
