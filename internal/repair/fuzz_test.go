package repair

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// FuzzRepair checks what checkRepair checks on any input. Seeds: the
// conformance cases.
func FuzzRepair(f *testing.F) {
	cases := sessiontest.ConformanceCases(f)
	for _, c := range cases {
		if data, err := os.ReadFile(c); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(header + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"image","data":"SGVsbG8=","mimeType":"image/png"}]}}`))
	f.Fuzz(func(t *testing.T, input []byte) { checkRepair(t, input) })
}

// FuzzRepairDamaged checks what FuzzRepair checks on generated damaged
// sessions (sessiontest.Damaged: headers, turns with tool calls, thinking
// and results, branches, malformed lines, dropped parents), which reach
// the insertion passes and the rewrite rules far more often than
// arbitrary bytes; and that RepairStream, the repair `fix --stdout` and
// `fix -` write, prints the two passes' output (or the input itself when
// nothing changes), from a reader and from a file. Seeds: the examples and the conformance cases, whose base
// each input names by index (sessiontest.DamagedSeed says why).
func FuzzRepairDamaged(f *testing.F) {
	seeds := sessiontest.DamagedSeeds(f)
	for i, s := range seeds {
		f.Add(uint16(i), s.Program)
	}
	f.Fuzz(func(t *testing.T, base uint16, program []byte) {
		input := sessiontest.Damaged(seeds[int(base)%len(seeds)].Base, program)
		plan, want := checkRepair(t, input)
		file := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(file, input, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, in := range []struct {
			name string
			r    io.ReadSeeker
		}{{"a reader", bytes.NewReader(input)}, {"a file", f}} {
			var got bytes.Buffer
			res, err := RepairStream(&got, in.r, "-", Options{Now: goldenClock, UUID: goldenUUIDs()})
			if err != nil || res.Repaired != plan.NeedsRewrite() || res.Reason != plan.Reason {
				t.Fatalf("RepairStream from %s: repaired %v, reason %q, err %v; plan: rewrite %v, reason %q", in.name, res.Repaired, res.Reason, err, plan.NeedsRewrite(), plan.Reason)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("RepairStream from %s wrote %d bytes, the two passes %d\n%s", in.name, got.Len(), len(want), got.Bytes())
			}
		}
	})
}

// checkRepair checks, for input: the repair never panics; it agrees with
// the in-memory transcription of OpenClaw's rules (so a line OpenClaw
// keeps is never dropped, and the fast path never keeps a line a rule
// changes); the parallel first pass plans what the sequential one does;
// and repairing the repair's output changes nothing. It returns the plan
// and what the two passes write (input itself when nothing changes).
func checkRepair(t *testing.T, input []byte) (Plan, []byte) {
	checkLineVerdicts(t, input)
	checkAgainstReference(t, input)
	seq, _ := analyzeSequential(bytes.NewReader(input), nil)
	par, _ := analyzeParallel(bytes.NewReader(input), 2, nil)
	if !reflect.DeepEqual(normalized(seq), normalized(par)) {
		t.Fatalf("parallel plan differs:\nseq %+v\npar %+v", seq, par)
	}
	plan, _ := Analyze(bytes.NewReader(input), nil)
	if !plan.NeedsRewrite() {
		return plan, input
	}
	var out bytes.Buffer
	if err := WriteRepaired(&out, bytes.NewReader(input), &plan, goldenClock, goldenUUIDs()); err != nil {
		t.Fatal(err)
	}
	again, _ := Analyze(bytes.NewReader(out.Bytes()), nil)
	if again.NeedsRewrite() || again.Reason != "" {
		t.Fatalf("repairing the output again: reason %q, counts %+v\n%s", again.Reason, again.Counts, out.Bytes())
	}
	return plan, out.Bytes()
}

// checkLineVerdicts compares the classifier's verdict on every line with a
// full parse and the reference rules.
func checkLineVerdicts(t *testing.T, input []byte) {
	t.Helper()
	c := NewClassifier()
	rd := jsonl.NewReader(bytes.NewReader(input))
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		got := c.Line(l)
		want := Verdict{Line: l.Num}
		switch v, err := jsonl.Parse(l.Bytes); {
		case l.Blank:
			want.Action = Blank
		case err != nil:
			want.Action, want.Rules = Drop, RuleMalformedLine
		default:
			res := classifyEntry(v)
			want.Action, want.Rules, want.CorruptedImages = res.action, res.rules, res.images
		}
		if got.Action != want.Action || got.Rules != want.Rules || got.CorruptedImages != want.CorruptedImages {
			t.Fatalf("line %d %q: got %v %v %d, want %v %v %d", l.Num, l.Bytes, got.Action, got.Rules, got.CorruptedImages, want.Action, want.Rules, want.CorruptedImages)
		}
	}
}

// String names an Action in the failure messages above.
func (a Action) String() string {
	return [...]string{"keep", "blank", "drop", "rewrite"}[a]
}
