package hygiene

import (
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// TestIdentical: identical tells apart what JSON.stringify prints apart,
// and only that.
func TestIdentical(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[true,null,"x"]}`, `{"a":1,"b":[true,null,"x"]}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
		{`{"a":1}`, `{"a":1.0}`, false},
		{`{"a":1}`, `{"a":1,"b":1}`, false},
		{`[true]`, `[false]`, false},
		{`[null]`, `[false]`, false},
		{`["x"]`, `["y"]`, false},
		{`["1"]`, `[1]`, false},
		{`[[]]`, `[{}]`, false},
		{`{"a":{"b":[1,{"c":"d"}]}}`, `{"a":{"b":[1,{"c":"d"}]}}`, true},
		{`{"a":{"b":[1,{"c":"d"}]}}`, `{"a":{"b":[1,{"c":"e"}]}}`, false},
	} {
		a, err := jsonl.Parse([]byte(c.a))
		if err != nil {
			t.Fatal(err)
		}
		b, err := jsonl.Parse([]byte(c.b))
		if err != nil {
			t.Fatal(err)
		}
		if got := identical(&a, &b); got != c.want {
			t.Errorf("identical(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := identical(&a, &a); !got {
			t.Errorf("identical(%s, itself) = false", c.a)
		}
	}
}
