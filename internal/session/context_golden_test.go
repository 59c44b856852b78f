package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// golden is one file written by testdata/gen.sh from OpenClaw's own output.
type golden struct {
	Case    string          `json:"case"`
	Context json.RawMessage `json:"context"`
	Error   string          `json:"error"`
}

// caseFile finds the input of a golden: a conformance case or one of ours.
func caseFile(t *testing.T, name string) string {
	t.Helper()
	for _, dir := range []string{"../../testdata/conformance/cases", "testdata/cases"} {
		p := filepath.Join(dir, name+".jsonl")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("no input file for golden %s", name)
	return ""
}

// TestContextMatchesOpenClaw compares the context of every recorded case
// with the one OpenClaw 2026.9.6 built (testdata/context, from gen.sh):
// same messages, same values, same key order.
func TestContextMatchesOpenClaw(t *testing.T) {
	files, err := filepath.Glob("testdata/context/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	for _, gf := range files {
		name := strings.TrimSuffix(filepath.Base(gf), ".json")
		t.Run(name, func(t *testing.T) {
			var g golden
			data, err := os.ReadFile(gf)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &g); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(caseFile(t, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ctx, err := ReadContext(f)
			if g.Error != "" {
				var le *LoaderError
				if !errors.As(err, &le) || le.Msg != g.Error {
					t.Fatalf("want OpenClaw's error %q, got %v", g.Error, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadContext: %v", err)
			}
			want, err := jsonl.Parse(g.Context)
			if err != nil {
				t.Fatal(err)
			}
			got := jsonl.ArrayValue()
			for _, m := range ctx.Messages {
				got.Append(m.V)
			}
			// The goldens are JSON.stringify output (1e400 became null):
			// compare what our context stringifies to.
			got, err = jsonl.Parse(jsonl.Marshal(got))
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(&got, &want) {
				t.Errorf("context differs from OpenClaw's\n got: %s\nwant: %s", jsonl.Marshal(got), jsonl.Marshal(want))
			}
		})
	}
}

// sameJSON is value equality plus identical key order.
func sameJSON(a, b *jsonl.Value) bool {
	if !jsonl.Equal(a, b) {
		return false
	}
	if a.IsObject() {
		for i, m := range a.Items() {
			o := b.Items()[i]
			if m.Key != o.Key || !sameJSON(&m.Value, &o.Value) {
				return false
			}
		}
	}
	if a.IsArray() {
		for i := range a.Items() {
			if !sameJSON(a.Index(i), b.Index(i)) {
				return false
			}
		}
	}
	return true
}
