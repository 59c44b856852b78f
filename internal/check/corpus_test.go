package check

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// fixExpectation is the part of OpenClaw's repair output the test needs.
type fixExpectation struct {
	Changed bool `json:"changed"`
	Result  struct {
		Repaired                    bool `json:"repaired"`
		DroppedLines                int  `json:"droppedLines"`
		RewrittenAssistantMessages  int  `json:"rewrittenAssistantMessages"`
		RewrittenUserMessages       int  `json:"rewrittenUserMessages"`
		RemovedCorruptedImageBlocks int  `json:"removedCorruptedImageBlocks"`
		InsertedToolResults         int  `json:"insertedToolResults"`
	} `json:"result"`
	Reason *string `json:"reason"`
}

// TestCheckAgreesWithFixOnConformanceCases runs check over every
// conformance case: a case OpenClaw's repair changes has at least one
// fixable finding, one per counted change; a case it leaves unchanged has
// none.
func TestCheckAgreesWithFixOnConformanceCases(t *testing.T) {
	cases := sessiontest.ConformanceCases(t)
	sel := mustSelection(t, Options{})
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			want := readExpectation(t, name)
			res := checkFile(t, path, sel, Options{})
			counts := map[ID]int{}
			for _, f := range res.Findings {
				if f.Fixable {
					counts[f.ID]++
				}
				if f.Line < 0 || f.Line > res.Lines {
					t.Errorf("finding on line %d of a %d-line file: %+v", f.Line, res.Lines, f)
				}
			}
			r := want.Result
			wantCounts := map[ID]int{
				MalformedLine + "|" + InvalidMessageRole: r.DroppedLines,
				EmptyErrorTurn:                           r.RewrittenAssistantMessages,
				BlankUserText:                            r.RewrittenUserMessages,
				MissingCodeModeRes:                       r.InsertedToolResults,
			}
			if !want.Changed {
				for id := range wantCounts {
					wantCounts[id] = 0
				}
			}
			got := map[ID]int{
				MalformedLine + "|" + InvalidMessageRole: counts[MalformedLine] + counts[InvalidMessageRole],
				EmptyErrorTurn:                           counts[EmptyErrorTurn],
				BlankUserText:                            counts[BlankUserText],
				MissingCodeModeRes:                       counts[MissingCodeModeRes],
			}
			for id, n := range wantCounts {
				if got[id] != n {
					t.Errorf("%s: %d fixable finding(s), OpenClaw's repair counts %d", id, got[id], n)
				}
			}
			if want.Changed != (len(counts) > 0) {
				t.Errorf("fix changes the file: %v; fixable findings: %v", want.Changed, counts)
			}
			if (r.RemovedCorruptedImageBlocks > 0 && want.Changed) != (counts[CorruptedImage] > 0) {
				t.Errorf("corrupted images: OpenClaw removes %d, check reports %d line(s)", r.RemovedCorruptedImageBlocks, counts[CorruptedImage])
			}
			reason := ""
			if want.Reason != nil {
				reason = *want.Reason
			}
			assertEarlyExit(t, reason, res.Findings)
		})
	}
}

// assertEarlyExit checks the report-only findings of fix's early exits.
func assertEarlyExit(t *testing.T, reason string, fs []Finding) {
	t.Helper()
	has := func(id ID) bool {
		for _, f := range fs {
			if f.ID == id {
				return true
			}
		}
		return false
	}
	if got, want := has(InvalidHeader), reason == repair.ReasonInvalidHeader; got != want {
		t.Errorf("invalid-header finding: %v, want %v (reason %q)", got, want, reason)
	}
	if got, want := has(EmptySession), reason == repair.ReasonEmpty; got != want {
		t.Errorf("empty-session finding: %v, want %v (reason %q)", got, want, reason)
	}
}

// TestCheckCorpus runs check over the public sessions of testdata/corpus,
// inline and in parallel: no crash, every finding on an existing line, and
// the same findings either way.
func TestCheckCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	sel := mustSelection(t, Options{})
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inline := Run(context.Background(), bytes.NewReader(data), path, int64(len(data)), sel, Options{})
		parallel := Run(context.Background(), bytes.NewReader(data), path, -1, sel, Options{Workers: 2})
		if len(inline.Findings) == 0 {
			t.Errorf("%s: no findings in a session known to hold calls without results", path)
		}
		if !equalFindings(inline.Findings, parallel.Findings) {
			t.Errorf("%s: inline and parallel runs differ: %d vs %d findings", path, len(inline.Findings), len(parallel.Findings))
		}
		for _, f := range inline.Findings {
			if f.Line < 0 || f.Line > inline.Lines || f.Message == "" || f.Hint == "" {
				t.Errorf("bad finding %+v", f)
			}
		}
	}
}

func equalFindings(a, b []Finding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func readExpectation(t *testing.T, name string) fixExpectation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../testdata/conformance/expected", name+".fix.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e fixExpectation
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func mustSelection(t testing.TB, o Options) Selection {
	t.Helper()
	s, err := o.Selection()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkFile(t testing.TB, path string, sel Selection, o Options) Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	return Run(context.Background(), f, filepath.Base(path), st.Size(), sel, o)
}
