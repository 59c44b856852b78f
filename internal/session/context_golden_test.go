package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// golden is one file written by testdata/gen.sh from OpenClaw's own output.
type golden struct {
	Case          string          `json:"case"`
	Context       json.RawMessage `json:"context"`
	Error         string          `json:"error"`
	ThinkingLevel string          `json:"thinkingLevel"`
	Model         *struct {
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	} `json:"model"`
	LeafID        *string  `json:"leafId"`
	Branch        []string `json:"branch"`
	CustomEntries []struct {
		CustomType string          `json:"customType"`
		Data       json.RawMessage `json:"data"`
	} `json:"customEntries"`
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
			checkFacts(t, &g, ctx)
			checkBranch(t, &g, caseFile(t, name))
		})
	}
}

// checkFacts compares what buildSessionContext returns besides messages,
// and the custom entries replay hooks read.
func checkFacts(t *testing.T, g *golden, ctx *Context) {
	t.Helper()
	if ctx.ThinkingLevel != g.ThinkingLevel {
		t.Errorf("thinking level %q, OpenClaw %q", ctx.ThinkingLevel, g.ThinkingLevel)
	}
	switch {
	case g.Model == nil && ctx.Model != nil:
		t.Errorf("model %+v, OpenClaw none", *ctx.Model)
	case g.Model != nil && (ctx.Model == nil || ctx.Model.Provider != g.Model.Provider || ctx.Model.ModelID != g.Model.ModelID):
		t.Errorf("model %+v, OpenClaw %+v", ctx.Model, *g.Model)
	}
	if len(ctx.CustomEntries) != len(g.CustomEntries) {
		t.Fatalf("%d custom entries, OpenClaw %d", len(ctx.CustomEntries), len(g.CustomEntries))
	}
	for i, want := range g.CustomEntries {
		got := ctx.CustomEntries[i]
		wantData, err := jsonl.Parse(want.Data)
		if len(want.Data) == 0 {
			wantData, err = jsonl.Value{}, nil // undefined data
		}
		if err != nil {
			t.Fatal(err)
		}
		gotData := jsonl.Value{}
		if got.Data != nil {
			gotData = *got.Data
		}
		if got.CustomType != want.CustomType || !sameJSON(&gotData, &wantData) {
			t.Errorf("custom entry %d: %s %s, OpenClaw %s %s", i, got.CustomType, jsonl.Marshal(gotData), want.CustomType, want.Data)
		}
	}
}

// checkBranch compares the leaf and the branch ids with OpenClaw's session
// manager (not for migrated files, whose ids OpenClaw draws at random).
func checkBranch(t *testing.T, g *golden, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Load(f)
	if err != nil || tr.Migrated {
		return
	}
	leaf := ""
	if i, ok := tr.Tree().Leaf(); ok {
		leaf = tr.Tree().Node(i).ID
	}
	if want := derefOr(g.LeafID, ""); leaf != want {
		t.Errorf("leaf %q, OpenClaw %q", leaf, want)
	}
	var ids []string
	for _, i := range tr.Tree().Branch().Nodes {
		ids = append(ids, tr.Tree().Node(i).ID)
	}
	if !slices.Equal(ids, g.Branch) {
		t.Errorf("branch %v, OpenClaw %v", ids, g.Branch)
	}
}

func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
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
