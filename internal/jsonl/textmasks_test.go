package jsonl

import (
	"math/rand/v2"
	"testing"
)

// TestAppendPlainQuotes holds AppendPlainQuotes (the vector version where
// the CPU has it) and plainQuotesGo to a byte-by-byte reading of random
// texts of every length up to a few blocks.
func TestAppendPlainQuotes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("\"\\{}[]:, \x00\x1f\x20\x7f\x80\xff\xc3abc0123456789")
	for n := 0; n < 20000; n++ {
		d := make([]byte, rng.IntN(200))
		for i := range d {
			switch n % 3 {
			case 0:
				d[i] = byte(rng.UintN(256))
			case 1:
				d[i] = alphabet[rng.IntN(len(alphabet))]
			default:
				d[i] = "\"a:{,0"[rng.IntN(6)] // plain
			}
		}
		want := make([]uint64, (len(d)+63)/64)
		plain := true
		for i, c := range d {
			if c == '"' {
				want[i/64] |= 1 << (i % 64)
			}
			if c == '\\' || c < 0x20 || c >= 0x80 {
				plain = false
			}
		}
		prefix := []uint64{7}
		got, ok := AppendPlainQuotes(prefix, d)
		if ok != plain {
			t.Fatalf("%q: plain %v, want %v", d, ok, plain)
		}
		if got[0] != 7 {
			t.Fatalf("%q: the words before were changed", d)
		}
		if plain && len(got) != 1+len(want) {
			t.Fatalf("%q: %d words, want %d", d, len(got)-1, len(want))
		}
		for i := range want {
			if plain && got[1+i] != want[i] {
				t.Fatalf("%q: word %d is %x, want %x", d, i, got[1+i], want[i])
			}
		}
		if full := len(d) / 64; full > 0 {
			words := make([]uint64, full)
			if ok := plainQuotesGo(d[:full*64], words); ok != plainPrefix(d[:full*64]) {
				t.Fatalf("%q: plainQuotesGo says plain %v", d, ok)
			}
			for i := range words {
				if words[i] != want[i] {
					t.Fatalf("%q: plainQuotesGo word %d is %x, want %x", d, i, words[i], want[i])
				}
			}
		}
	}
}

func plainPrefix(d []byte) bool {
	for _, c := range d {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}
