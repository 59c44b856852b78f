package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestSpilledFindingsAgree: with findings moved to a temp file past a
// bound (as low as one), a result yields exactly the findings, in exactly
// the order, of a run that holds them all: on every conformance case, the
// corpus and the examples, on one input holding them all (with and
// without its header, which settles the hint of every fixable finding),
// on a file of malformed lines and on sessions whose image findings the
// many-image check amends at the end.
func TestSpilledFindingsAgree(t *testing.T) {
	inputs := map[string][]byte{}
	var all bytes.Buffer
	files := append(sessiontest.ConformanceCases(t), sessiontest.Glob(t, "testdata/corpus/*.jsonl")...)
	files = append(files, sessiontest.Glob(t, "testdata/examples/*.jsonl")...)
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = b
		all.Write(b)
		all.WriteString("\n")
	}
	inputs["all"] = all.Bytes()
	_, headless, _ := bytes.Cut(all.Bytes(), []byte("\n"))
	inputs["all, headless"] = headless
	var dropped bytes.Buffer
	if err := sessiontest.WriteDropped(&dropped, 3000); err != nil {
		t.Fatal(err)
	}
	inputs["dropped"] = dropped.Bytes()
	small, wide := pngBase64(t, 10, 10), pngBase64(t, 2500, 4)
	images := []string{wide}
	for range 30 {
		images = append(images, small, "not an image at all", wide)
	}
	inputs["many images"] = []byte(imageSession(images...) + "not json\n")
	sel := mustSelection(t, Options{})
	for name, data := range inputs {
		want := Run(context.Background(), bytes.NewReader(data), "f", -1, sel, Options{Workers: 1})
		if len(want.Findings) == 0 && name != "all" {
			continue // nothing to spill
		}
		for _, bound := range []int{1, 2, 7, 100} {
			got := Run(context.Background(), bytes.NewReader(data), "f", -1, sel, Options{Workers: 2, SpillAbove: bound})
			if len(got.Findings) > 0 && got.spilled != nil {
				t.Fatalf("%s, bound %d: Findings holds %d findings beside the spilled ones", name, bound, len(got.Findings))
			}
			fs := slices.Collect(got.All())
			if !equalFindings(fs, want.Findings) {
				t.Errorf("%s, bound %d: %d findings, want %d%s", name, bound, len(fs), len(want.Findings), findingsDifference(fs, want.Findings))
			}
		}
	}
}

// findingsDifference describes where two lists of findings part.
func findingsDifference(got, want []Finding) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("; first difference at %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	return ""
}

// TestSpillKeepsTheOrderOfEqualFindings: findings of one line and one
// check keep the order they were found in across runs of the spill file
// and the findings still held, as the stable sort keeps it.
func TestSpillKeepsTheOrderOfEqualFindings(t *testing.T) {
	sel := mustSelection(t, Options{})
	p := newPass("f", -1, sel, Options{SpillAbove: 1})
	var want []string
	for i := range 9 {
		msg := fmt.Sprint("finding ", i)
		p.add(MissingParent, 3, "", msg)
		p.add(MissingParent, 9-i, "", "later line") // interleaved: every run needs sorting
		want = append(want, msg)
	}
	if p.spill == nil || len(p.spill.found) < 3 {
		t.Fatal("the findings were not spilled in several runs")
	}
	var got []string
	for f := range p.spilledResult(p.findings) {
		if f.Line == 3 && f.Message != "later line" {
			got = append(got, f.Message)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("line 3's findings came as %q, want %q", got, want)
	}
}
