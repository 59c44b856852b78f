package jsonl

import "encoding/binary"

// AppendPlainQuotes appends to quotes a word for each 64 bytes of d (the
// last one maybe short), whose bit i is set where byte i of those is a
// quote, and reports whether d is plain text: no backslash, no control
// byte (below 0x20) and no byte past ASCII. In plain text every quote
// opens or closes a string, so the words tell each string's end; scans
// outside the Scanner (the store's canonical proof) read them. On false,
// quotes is some prefix of the words.
func AppendPlainQuotes(quotes []uint64, d []byte) ([]uint64, bool) {
	n := len(d)
	full := n / 64
	start := len(quotes)
	quotes = append(quotes, make([]uint64, full+1)...)
	words := quotes[start:]
	if full > 0 && !plainQuotes(d[:full*64], words[:full]) {
		return quotes[:start], false
	}
	if rest := n - full*64; rest > 0 {
		tail := plainPad
		copy(tail[:], d[full*64:])
		if !plainQuotes(tail[:], words[full:]) {
			return quotes[:start], false
		}
	} else {
		quotes = quotes[:len(quotes)-1]
	}
	return quotes, true
}

// plainPad pads a last short block: a byte that is plain and not a
// quote.
var plainPad = func() (b [64]byte) {
	for i := range b {
		b[i] = 'a'
	}
	return b
}()

// plainQuotesGo is plainQuotes a word at a time: d is len(words) blocks
// of 64 bytes.
func plainQuotesGo(d []byte, words []uint64) bool {
	var stops uint64
	for b := range words {
		var q uint64
		block := d[b*64 : b*64+64]
		for k := 0; k < 64; k += 8 {
			w := binary.LittleEndian.Uint64(block[k:])
			q |= packMSB(eqMask(w, '"')) << k
			stops |= eqMask(w, '\\') | (^(w&^msb+lsb*0x60)|w)&msb
		}
		words[b] = q
	}
	return stops == 0
}
