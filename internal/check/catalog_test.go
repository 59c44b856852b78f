package check

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/checks.md from the catalogue")

const catalogueDoc = "../../docs/checks.md"

// TestCatalogueDoc keeps docs/checks.md generated from the catalogue.
func TestCatalogueDoc(t *testing.T) {
	want := CatalogueMarkdown()
	if *update {
		if err := os.WriteFile(catalogueDoc, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(catalogueDoc)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/check -run TestCatalogueDoc -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("docs/checks.md is out of date (run with -update): %s", firstDifference(string(want), string(got)))
	}
}

// TestCatalogueIsConsistent: ids are unique and well-formed, fixed checks
// are errors whose hint names the fix command, the others never do.
func TestCatalogueIsConsistent(t *testing.T) {
	seen := map[ID]bool{}
	for _, c := range Catalogue {
		if seen[c.ID] {
			t.Errorf("%s listed twice", c.ID)
		}
		seen[c.ID] = true
		if !strings.HasPrefix(string(c.ID), "transcript/") || c.Summary == "" || c.Hint == "" {
			t.Errorf("%s: malformed entry %+v", c.ID, c)
		}
		names := strings.Contains(c.Hint, FixCommand)
		if c.Fixed != names {
			t.Errorf("%s: fixed=%v but the hint names %q: %v", c.ID, c.Fixed, FixCommand, names)
		}
		if c.Fixed && c.Severity != Error {
			t.Errorf("%s: fix drops or rewrites what it finds, so it is an error", c.ID)
		}
	}
}

func TestParseSeverity(t *testing.T) {
	for in, want := range map[string]Severity{"info": Info, "warning": Warning, "WARN": Warning, " error ": Error} {
		if got, err := ParseSeverity(in); err != nil || got != want {
			t.Errorf("ParseSeverity(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal) accepted")
	}
}

func TestSelection(t *testing.T) {
	s := mustSelection(t, Options{Only: []ID{MalformedLine, LongLine}, Skip: []ID{LongLine}})
	if s.Run != 1 || s.Skipped != len(Catalogue)-1 || !s.Enabled(MalformedLine) || s.Enabled(LongLine) {
		t.Errorf("selection = %+v", s)
	}
	if _, err := (&Options{Skip: []ID{"transcript/nope"}}).Selection(); err == nil {
		t.Error("unknown id accepted")
	}
}

// firstDifference describes the first line where want and got differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, wl, gl)
		}
	}
	return "no difference"
}
