package store

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

var canonicalCases = []struct {
	text      string
	canonical bool
}{
	{`{"type":"message","id":"a1","parentId":null,"n":[1,-2,0,1.5,1e+21,-0.001]}`, true},
	{`{"s":"tab\tquote\"back\\ctl\u001f\u0000 é ☃ 😀"}`, true},
	{`[]`, true},
	{`{}`, true},
	{`"x"`, true},
	{`{"a":1,"b":{"a":2}}`, true},
	{`{"a": 1}`, false},    // space
	{` {"a":1}`, false},    // leading space
	{`{"a":1.0}`, false},   // 1.0 is written 1
	{`{"a":1E+21}`, false}, // upper-case exponent
	{`{"a":-0}`, false},    // -0 is written 0
	{`{"a":[0,-1,123456789012345,1234567890123456]}`, true},
	{`{"a":12345678901234567890}`, false}, // written 12345678901234567000
	{`{"a":05}`, false},                   // not JSON
	{`{"a":-}`, false},
	{`{"a":1-}`, false},
	{`{"a":-01}`, false},
	{`{"a":1e999}`, false},     // overflow is written null
	{`{"a":"\u00e9"}`, false},  // JSON.stringify writes é itself
	{`{"a":"\u000a"}`, false},  // written \n
	{`{"a":"\u001F"}`, false},  // upper-case hex
	{`{"a":"\/"}`, false},      // \/ is written /
	{`{"a":"\ud800"}`, false},  // a lone surrogate, kept escaped, but not proven
	{`{"a":1,"a":2}`, false},   // duplicate key
	{`{"1":1,"a":2}`, false},   // integer-like key moves first
	{`{"01":1}`, true},         // not integer-like
	{`{"4294967295":1}`, true}, // past the largest array index
	{`{"a":1}x`, false},
	{`{"a":1`, false},
	{"{\"a\":\"\xff\"}", false},                    // invalid UTF-8 becomes U+FFFD
	{"{\"a\":\"\x01\"}", false},                    // a raw control character: not JSON
	{"{\"a\":\"\xed\xa0\x80\"}", false},            // a surrogate half, encoded
	{"{\"a\":\"\xc0\xaf\"}", false},                // an overlong form
	{"{\"a\":\"\xe2\x98\"}", false},                // a sequence cut by the quote
	{"{\"a\xc3\xa9\":\"\xf0\x9f\x98\x80\"}", true}, // UTF-8 in keys and values
	{"{\"a\":1\xc3\xa9}", false},                   // past ASCII outside a string
	{``, false},
	{`tru`, false},
}

// TestCanonicalText: rows proven canonical are exactly what the export's
// parse-and-write path writes for them, and the rows it cannot prove are
// the ones that path changes (or rejects), for the forms above.
func TestCanonicalText(t *testing.T) {
	var c canonScanner
	for _, tc := range canonicalCases {
		if got := c.canonicalText([]byte(tc.text)); got != tc.canonical {
			t.Errorf("canonicalText(%q) = %v, want %v", tc.text, got, tc.canonical)
		}
		checkCanonical(t, &c, []byte(tc.text))
	}
}

// checkCanonical holds canonicalText to the parse-and-write path: a row it
// proves canonical is written unchanged, with the same id and parentId.
func checkCanonical(t *testing.T, c *canonScanner, d []byte) {
	t.Helper()
	if !c.canonicalText(d) {
		return
	}
	v, err := jsonl.Parse(d)
	if err != nil {
		t.Fatalf("canonicalText(%q) = true, but it does not parse: %v", d, err)
	}
	if out := jsonl.AppendJSON(nil, &v); !bytes.Equal(out, d) {
		t.Fatalf("canonicalText(%q) = true, but the export writes %q", d, out)
	}
	if !v.IsObject() {
		return
	}
	for _, f := range []struct {
		key  string
		scan topField
	}{{"id", c.id}, {"parentId", c.parent}} {
		want := valueField(&v, f.key)
		gotS, gotOK := f.scan.bytes()
		wantS, wantOK := want.bytes()
		if f.scan.escaped {
			continue // the export takes the parse path for these
		}
		if f.scan.present != want.present || gotOK != wantOK || !bytes.Equal(gotS, wantS) {
			t.Fatalf("%q: %s scanned as %+v, parsed as %+v", d, f.key, f.scan, want)
		}
	}
}

func FuzzCanonicalText(f *testing.F) {
	for _, tc := range canonicalCases {
		f.Add([]byte(tc.text))
	}
	f.Add([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`))
	f.Add([]byte(`{"id":"x\n","parentId":"p","m":{"content":[{"type":"text","text":"a\u0007"}]}}`))
	var c canonScanner
	f.Fuzz(func(t *testing.T, d []byte) { checkCanonical(t, &c, d) })
}

// benchRows are rows shaped like a long agent session's (short keys and
// strings, small integers, a few long texts): what OpenClaw's rows hold.
func benchRows() [][]byte {
	var rows [][]byte
	for i := 0; i < 512; i++ {
		id, parent := fmt.Sprintf("%08x", i+1), fmt.Sprintf("%08x", i)
		var msg string
		switch i % 4 {
		case 0:
			msg = fmt.Sprintf(`{"role":"user","content":"question %d %s","timestamp":%d}`, i, strings.Repeat("x", i%97), 1767225600000+i)
		case 1:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"%s","thinkingSignature":"c2ln"},{"type":"text","text":"ok"},{"type":"toolCall","id":"toolu_%010d","name":"exec","arguments":{"command":"echo %d"}}],"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"stopReason":"toolUse","timestamp":%d,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5"}`, strings.Repeat("t", i%53), i, i, 1767225600000+i)
		case 2:
			msg = fmt.Sprintf(`{"role":"toolResult","toolCallId":"toolu_%010d","toolName":"exec","content":[{"type":"text","text":"%s\n\"é\""}],"isError":false,"timestamp":%d}`, i, strings.Repeat("y", 10+i%300), 1767225600000+i)
		default:
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"answer %d"}],"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":0.00125},"stopReason":"stop","timestamp":%d}`, i, 1767225600000+i)
		}
		rows = append(rows, []byte(fmt.Sprintf(`{"type":"message","id":"%s","parentId":"%s","timestamp":"2026-01-01T00:00:00.000Z","message":%s}`, id, parent, msg)))
	}
	return rows
}

// BenchmarkCanonicalText times canonicalText on benchRows, a quarter of
// which (escapes, bytes past ASCII) are not plain.
func BenchmarkCanonicalText(b *testing.B) {
	benchCanonical(b, benchRows(), (*canonScanner).canonicalText)
}

// TestCanonicalBenchRows: the benchmark's rows are canonical, and the
// scan agrees with the parse-and-write path on them.
func TestCanonicalBenchRows(t *testing.T) {
	var c canonScanner
	for _, r := range benchRows() {
		if !c.canonicalText(r) {
			t.Fatalf("not canonical: %s", r)
		}
		checkCanonical(t, &c, r)
	}
}

// plainRows are benchRows without the rows that have escapes or bytes
// past ASCII: the rows blocks proves alone.
func plainRows() [][]byte {
	var rows [][]byte
	for _, r := range benchRows() {
		if plainRow(r) {
			rows = append(rows, r)
		}
	}
	return rows
}

func benchCanonical(b *testing.B, rows [][]byte, prove func(*canonScanner, []byte) bool) {
	n := 0
	for _, r := range rows {
		n += len(r)
	}
	b.SetBytes(int64(n))
	var c canonScanner
	for b.Loop() {
		for _, r := range rows {
			if !prove(&c, r) {
				b.Fatalf("not canonical: %s", r)
			}
		}
	}
}

// BenchmarkCanonicalPlain times the plain rows through canonicalText
// (the blocks path) and through tree alone.
func BenchmarkCanonicalPlain(b *testing.B) {
	b.Run("blocks", func(b *testing.B) { benchCanonical(b, plainRows(), (*canonScanner).canonicalText) })
	b.Run("tree", func(b *testing.B) { benchCanonical(b, plainRows(), (*canonScanner).tree) })
}

// TestDigitsEnd holds digitsEnd to a byte loop, at every position of
// texts that mix digits with the bytes around them.
func TestDigitsEnd(t *testing.T) {
	texts := []string{"", "0", "123456789012345678901234", "12/34:5", "1234567\x80", "99999999x", "0123456789abc", "\xb0\xb9\x30\x39\x2f\x3a", "12345678901234567"}
	for b := 0; b < 256; b++ {
		texts = append(texts, "1234567"+string([]byte{byte(b)})+"89", "0"+string([]byte{byte(b)})+"123456789")
	}
	for _, s := range texts {
		for i := 0; i <= len(s); i++ {
			want := i
			for want < len(s) && s[want] >= '0' && s[want] <= '9' {
				want++
			}
			if got := digitsEnd([]byte(s), i); got != want {
				t.Errorf("digitsEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}
