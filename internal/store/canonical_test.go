package store

import (
	"bytes"
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
	{`{"a": 1}`, false},        // space
	{` {"a":1}`, false},        // leading space
	{`{"a":1.0}`, false},       // 1.0 is written 1
	{`{"a":1E+21}`, false},     // upper-case exponent
	{`{"a":-0}`, false},        // -0 is written 0
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
	{"{\"a\":\"\xff\"}", false}, // invalid UTF-8 becomes U+FFFD
	{"{\"a\":\"\x01\"}", false}, // a raw control character: not JSON
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
