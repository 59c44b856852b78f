package jsonl

import (
	"strings"
	"testing"
)

func TestBlankEscaped(t *testing.T) {
	tests := []string{``, ` `, `\n\t\r\f`, `\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u000b`,
		`\u000B `, `\b`, `\/`, `\"`, `\\`, `x`, `\u0020x`, `\ud800`, `\u0041`, "\u3000 \u00a0", "\u3000x", `\u200b`, `\u180e`}
	for _, body := range tests {
		quoted := `"` + body + `"`
		v, err := Parse([]byte(quoted))
		if err != nil {
			t.Fatalf("%s: %v", quoted, err)
		}
		s, _ := v.Str()
		f := Field{text: []byte(body), kind: String, present: true}
		if strings.Contains(body, `\`) {
			f.form = escapedBody
		}
		if got, want := f.IsBlankString(), IsBlankJS(s); got != want {
			t.Errorf("%s: blank %v, want %v", quoted, got, want)
		}
	}
}

// FuzzScanner: the Scanner accepts exactly what JSON.parse accepts, and
// notes a number outside float64's range and invalid UTF-8 as a full
// parse sees them; a line without NumberForms (or Overflow) holds only
// numbers JSON.stringify writes as they stand.
func FuzzScanner(f *testing.F) {
	for _, l := range []string{`{"a":[1,2,{"b":"\u00e9"}],"c":null}`, `1e400`, `[1,]`, `{"a" 1}`, "\"\xff\"", `"\ud800"`, ` true `, `{}`, `[[[]]]`, `-0.5e-3`, `01`,
		`[-0,0,-1,123456789012345,1234567890123456,-123456789012345,9007199254740993,1.0,1E2,1e21]`} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var s Scanner
		s.Reset(line)
		_, err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if (err == nil) != Valid(line) {
			t.Fatalf("%q: scan error %v, JSON.parse accepts: %v", line, err, Valid(line))
		}
		if err != nil || s.NumberForms() || s.Overflow() {
			return
		}
		v, err := Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := restated(&v); !ok {
			t.Errorf("%q: no NumberForms, but JSON.stringify writes %s otherwise", line, n)
		}
	})
}

// restated reports whether every number of v is written by JSON.stringify
// as it stands, or returns the first that is not.
func restated(v *Value) (string, bool) {
	switch v.Kind() {
	case Number:
		n, _ := v.NumberText()
		return n, string(AppendJSNumber(nil, n)) == n
	case Array, Object:
		for i := range v.Items() {
			if n, ok := restated(&v.Items()[i].Value); !ok {
				return n, false
			}
		}
	}
	return "", true
}

// TestNumberForms: the numbers a scan notes as written otherwise, and
// those it leaves as they stand.
func TestNumberForms(t *testing.T) {
	for n, forms := range map[string]bool{
		"0": false, "7": false, "-1": false, "123456789012345": false, "-12345678901234": false,
		"-0": true, "1.0": true, "0.5": true, "1e2": true, "1E2": true, "-0.0": true,
		"1234567890123456": true, "-123456789012345": true, "9007199254740993": true, "1e999": true,
	} {
		var s Scanner
		s.Reset([]byte(`{"a":[` + n + `]}`))
		if _, err := s.Skip(); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if s.NumberForms() != forms {
			t.Errorf("%s: NumberForms %v, want %v", n, s.NumberForms(), forms)
		}
	}
}

// TestFieldStrMatchesParse: the string a noted Field decodes to is the one
// JSON.parse gives, whether invalid UTF-8 comes before, in or after it on
// the line (a Field scanned before any invalid byte skips the UTF-8 check).
func TestFieldStrMatchesParse(t *testing.T) {
	bodies := []string{"plain", "é and 日本", "\xff", "a\xc3", `\u00e9`, `x\"y`, "\xed\xa0\x80", "", "😀", "\xf0\x9f\x98"}
	for _, a := range bodies {
		for _, b := range bodies {
			for _, c := range bodies {
				line := []byte(`{"a":"` + a + `","b":"` + b + `","c":"` + c + `"}`)
				v, err := Parse(line)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				var s Scanner
				s.Reset(line)
				_, err = s.Object(func(key string) error {
					f, err := s.Value()
					if err != nil {
						return err
					}
					got, _ := f.Str()
					if want, _ := v.GetStr(key); got != want {
						t.Errorf("%q: member %s decodes to %q, JSON.parse %q", line, key, got, want)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
			}
		}
	}
}
