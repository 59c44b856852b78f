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
		f := Field{text: []byte(body), kind: String, present: true, escaped: strings.Contains(body, `\`)}
		if got, want := f.IsBlankString(), IsBlankJS(s); got != want {
			t.Errorf("%s: blank %v, want %v", quoted, got, want)
		}
	}
}

// FuzzScanner: the Scanner accepts exactly what JSON.parse accepts, and
// notes a number outside float64's range and invalid UTF-8 as a full
// parse sees them.
func FuzzScanner(f *testing.F) {
	for _, l := range []string{`{"a":[1,2,{"b":"\u00e9"}],"c":null}`, `1e400`, `[1,]`, `{"a" 1}`, "\"\xff\"", `"\ud800"`, ` true `, `{}`, `[[[]]]`, `-0.5e-3`, `01`} {
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
	})
}
