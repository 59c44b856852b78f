package jsonl

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// strReference is the word-at-a-time string scan the block scan replaced
// (it lives on as strTail, which finishes each line), run from the
// opening quote: the reference the differential tests hold Scanner.str to.
func (s *Scanner) strReference() (escaped bool, err error) {
	return s.strTail(s.i+1, false)
}

// strText is a string scan whose result stepBoth can compare.
func strText(f func(*Scanner) (bool, error)) func(*Scanner) (string, error) {
	return func(s *Scanner) (string, error) {
		escaped, err := f(s)
		return fmt.Sprint("escaped ", escaped), err
	}
}

// scanStrBoth scans the string at offset at of line with str and with
// strReference.
func scanStrBoth(line []byte, at int) (got, want scanOutcome) {
	return stepBoth(line, at, strText((*Scanner).str), strText((*Scanner).strReference))
}

func checkStrBoth(t *testing.T, line []byte, at int) {
	t.Helper()
	if got, want := scanStrBoth(line, at); got != want {
		t.Fatalf("string at %d of %q: scan %+v, reference %+v", at, line, got, want)
	}
}

// TestStrConformanceLines: every string of every line of the conformance
// cases and the corpus (and every quote taken as an opening one) scans
// as the reference scans it.
func TestStrConformanceLines(t *testing.T) {
	n := 0
	for _, name := range sessionFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			for at := bytes.IndexByte(line, '"'); at >= 0; {
				checkStrBoth(t, line, at)
				n++
				next := bytes.IndexByte(line[at+1:], '"')
				if next < 0 {
					break
				}
				at += 1 + next
			}
		}
	}
	t.Logf("%d strings", n)
}

// sessionFiles are the session files of the repository's testdata: the
// conformance cases, the corpus and the examples.
func sessionFiles(t testing.TB) []string {
	var files []string
	for _, pattern := range []string{"../../testdata/conformance/cases/*.jsonl", "../../testdata/corpus/*.jsonl", "../../testdata/examples/*.jsonl"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no session files found under ../../testdata")
	}
	return files
}

// strPieces build damaged and hostile string bodies: escapes of every
// kind (and broken ones), runs of backslashes, quotes, control bytes,
// UTF-8 of every length, truncated and invalid sequences.
var strPieces = []string{
	"a", "abcdefgh", " ", "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\u00e9", "\\uD83D", "\\u12", "\\uZZZZ", "\\x", "\\",
	"\\\\\\", "\"", "\x00", "\x1f", "\x7f", "é", "—", "日本", "😀", "\xc3", "\xe2\x80", "\xf0\x9f\x98", "\xff", "\xed\xa0\x80",
	"\xc0\xaf", "\xe0\x80\x80", "\xf4\x90\x80\x80", "\\\x80", "\\\x0a",
}

// TestStrGenerated: random bodies built from strPieces, at every offset
// from the 64-byte block boundaries, scan as the reference scans them.
func TestStrGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 64))
	for range 40000 {
		var b []byte
		b = append(b, bytes.Repeat([]byte("x"), rng.IntN(70))...)
		b = append(b, '"')
		for k := rng.IntN(60); k > 0; k-- {
			if rng.IntN(3) == 0 {
				b = append(b, bytes.Repeat([]byte("y"), rng.IntN(40))...)
			}
			b = append(b, strPieces[rng.IntN(len(strPieces))]...)
		}
		if rng.IntN(4) != 0 {
			b = append(b, '"')
		}
		b = append(b, bytes.Repeat([]byte("z"), rng.IntN(3)*40)...)
		at := bytes.IndexByte(b, '"')
		checkStrBoth(t, b, at)
	}
}

// FuzzStrReference: the block string scan decides every string as the
// word-at-a-time reference does.
func FuzzStrReference(f *testing.F) {
	for _, p := range strPieces {
		f.Add([]byte(string(bytes.Repeat([]byte("a"), 60)) + p + "\""))
	}
	f.Add([]byte(`abc\"def"`))
	f.Fuzz(func(t *testing.T, body []byte) {
		line := append([]byte{'"'}, body...)
		checkStrBoth(t, line, 0)
	})
}

// blockMasksBytes is blockMasks's definition, byte by byte.
func blockMasksBytes(b []byte) (m blockMask) {
	for i, c := range b[:64] {
		bit := uint64(1) << i
		switch {
		case c == '"':
			m.quotes |= bit
		case c == '\\':
			m.backslashes |= bit
		case c < 0x20:
			m.ctl |= bit
		case c >= utf8.RuneSelf:
			m.high |= bit
		}
		if !strings.ContainsRune(`"\\/bfnrt`, rune(c)) || c >= utf8.RuneSelf {
			m.notSimple |= bit
		}
	}
	if m.backslashes == 0 {
		m.notSimple = 0
	}
	for i, c := range b[:64] {
		if m.high == 0 {
			break
		}
		bit := uint64(1) << i
		switch {
		case c >= 0x80 && c <= 0xBF:
			m.cont |= bit
		case c >= 0xC2 && c <= 0xDF:
			m.lead2 |= bit
		case c >= 0xE1 && c <= 0xEF && c != 0xED:
			m.lead3 |= bit
		}
	}
	return m
}

// TestBlockMasks: the word-parallel and (where the CPU has them) vector
// block masks match the byte-by-byte definition, on random blocks and on
// blocks of each byte value.
func TestBlockMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, 'a', 0x5b, 0x5d, 0x02, 0xa2, 0xdc, 0x9f,
		'/', 'b', 'f', 'n', 'r', 't', 'u', 0x2f + 0x80, 'b' + 0x80, 0x22 + 0x80, 0x5c + 0x80,
		0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf4, 0xf5}
	b := make([]byte, 64)
	check := func() {
		t.Helper()
		want := blockMasksBytes(b)
		if m := blockMasksGo(b); m != want {
			t.Fatalf("%x: blockMasksGo %+v, want %+v", b, m, want)
		}
		var m blockMask
		if blockMasks(b, &m); m != want {
			t.Fatalf("%x: blockMasks %+v, want %+v", b, m, want)
		}
	}
	for c := range 256 {
		for i := range b {
			b[i] = byte(c + i&1) // c beside c+1: each byte value in both halves of a word
		}
		check()
	}
	for range 20000 {
		for i := range b {
			if rng.IntN(2) == 0 {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				b[i] = byte(rng.UintN(256))
			}
		}
		check()
	}
}

// TestEscapedBytes: escapedBytes marks the bytes an odd run of
// backslashes escapes, as a byte-by-byte walk does.
func TestEscapedBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		bs := rng.Uint64() & rng.Uint64() // runs of every length
		if rng.IntN(2) == 0 {
			bs |= rng.Uint64()
		}
		var want uint64
		carry := false
		for i := 0; i < 64; i++ {
			if bs>>i&1 == 0 {
				continue
			}
			if i == 63 {
				carry = true
				break
			}
			want |= 1 << (i + 1)
			i++ // the escaped byte
		}
		if got, c := escapedBytes(bs); got != want || c != carry {
			t.Fatalf("backslashes %064b: escaped %064b carry %v, want %064b carry %v", bs, got, c, want, carry)
		}
	}
}

// plainBlocksRef is plainBlocks's definition, block by block from the
// masks: a block is plain when it holds no control byte, no backslash
// whose escape runs past it, no quote it does not escape, only two-byte
// escapes, and only simple UTF-8 sequences within it.
func plainBlocksRef(b []byte) (consumed int, escaped bool) {
	for ; consumed+64 <= len(b); consumed += 64 {
		m := blockMasksBytes(b[consumed : consumed+64])
		esc, carry := escapedBytes(m.backslashes)
		if m.ctl != 0 || carry || m.quotes&^esc != 0 || esc&m.notSimple != 0 {
			break
		}
		if m.high != 0 && !validSimpleUTF8(&m, m.high, ^uint64(0)) {
			break
		}
		escaped = escaped || esc != 0
	}
	return consumed, escaped
}

// TestPlainBlocks: plainBlocks steps over exactly the blocks of its
// definition (where it has a vector version; elsewhere it steps over
// none), on string bodies built from strPieces and on blocks of every
// byte value.
func TestPlainBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b []byte
	check := func() {
		t.Helper()
		want, wantEsc := plainBlocksRef(b)
		got, gotEsc := plainBlocks(b)
		if !useAVX2 || len(b) < 64 {
			want, wantEsc = 0, false
		}
		if got != want || gotEsc != wantEsc {
			t.Fatalf("%q: plainBlocks %d %v, want %d %v", b, got, gotEsc, want, wantEsc)
		}
	}
	for c := range 256 {
		b = bytes.Repeat([]byte{byte(c)}, 130)
		check()
		b = bytes.Repeat([]byte{'a', byte(c)}, 65)
		check()
	}
	// Half the bodies are built from the pieces plain blocks may hold, so
	// that runs of them occur, ended by one hostile piece or none.
	friendly := []string{"a", "abcdefgh", " ", "\\n", "\\\"", "\\\\", "\\/", "\\t", "é", "—", "日本", "Ж"}
	stepped, escapes := 0, 0
	for range 40000 {
		b = b[:0]
		pieces := strPieces
		if rng.IntN(2) == 0 {
			pieces = friendly
		}
		for k := rng.IntN(80); k > 0; k-- {
			if rng.IntN(2) == 0 {
				b = append(b, bytes.Repeat([]byte("y"), rng.IntN(40))...)
			}
			if rng.IntN(3) != 0 {
				b = append(b, pieces[rng.IntN(len(pieces))]...)
			}
		}
		if rng.IntN(2) == 0 {
			b = append(b, strPieces[rng.IntN(len(strPieces))]...)
		}
		check()
		if n, esc := plainBlocksRef(b); n > 0 {
			stepped++
			if esc {
				escapes++
			}
		}
	}
	t.Logf("%d bodies start with plain blocks, %d of them with escapes", stepped, escapes)
}

// TestStringStops: for every byte value at every position of eight plain
// bytes (and after an earlier special byte), StringStops's lowest flag names
// the first '"', '\\' or control byte.
func TestStringStops(t *testing.T) {
	special := func(b byte) bool { return b == '"' || b == '\\' || b < 0x20 }
	for pos := 0; pos < 8; pos++ {
		for v := 0; v < 256; v++ {
			for _, fill := range []byte{'a', 0xc3, 0x7f, 0x20, 0x00} {
				var b [8]byte
				for i := range b {
					b[i] = 'x'
				}
				for i := pos + 1; i < 8; i++ {
					b[i] = fill
				}
				b[pos] = byte(v)
				want := 8
				for i, c := range b {
					if special(c) {
						want = i
						break
					}
				}
				got := 8
				if m := StringStops(binary.LittleEndian.Uint64(b[:])); m != 0 {
					got = bits.TrailingZeros64(m) / 8
				}
				if got != want {
					t.Fatalf("%q: first special byte at %d, want %d", b, got, want)
				}
			}
		}
	}
}

// TestDigitsEnd compares the word-at-a-time digit run with a byte loop,
// for every byte after runs of every length up to two words and more.
func TestDigitsEnd(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for c := 0; c < 256; c++ {
			d := append([]byte(strings.Repeat("7", n)), byte(c), '0', '1')
			want := 0
			for want < len(d) && d[want] >= '0' && d[want] <= '9' {
				want++
			}
			if got := digitsEnd(d, 0); got != want {
				t.Fatalf("digitsEnd(%q) = %d, want %d", d, got, want)
			}
		}
	}
}
