package repair

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// conformanceDir holds OpenClaw's own outputs (never edited; see its
// README): cases/<case>.jsonl and expected/<case>.fix.json.
const conformanceDir = "../../testdata/conformance"

// expectedFix is the part of a <case>.fix.json the repair must reproduce.
type expectedFix struct {
	Result  map[string]any `json:"result"`
	Reason  *string        `json:"reason"`
	Changed bool           `json:"changed"`
	Logs    []struct {
		Level   string `json:"level"`
		Message string `json:"message"`
	} `json:"logs"`
	Lines []string `json:"lines"`
}

// goldenClock and goldenUUIDs reproduce the deterministic run the goldens were recorded with: the
// clock frozen at 2026-01-01T00:00:00.000Z and crypto.randomUUID replaced by
// a counter restarted for every case.
var goldenClock = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

func goldenUUIDs() func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}
}

// TestConformance runs every conformance case through the two passes and
// compares records, counts, reason and log message with OpenClaw's.
func TestConformance(t *testing.T) {
	cases := sessiontest.ConformanceCases(t)
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			exp := readExpected(t, filepath.Join(conformanceDir, "expected", name+".fix.json"))
			input, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			plan, out := runBothPasses(t, input)
			checkResult(t, &plan, exp)
			checkLog(t, &plan, filepath.Base(path), exp)
			if !exp.Changed {
				if !bytes.Equal(out, input) {
					t.Fatalf("unchanged file: output differs from the input")
				}
				return
			}
			checkLines(t, input, out, exp.Lines)
		})
	}
}

func readExpected(t *testing.T, path string) expectedFix {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var exp expectedFix
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return exp
}

// runBothPasses plans the repair of input and returns the plan and the
// output: the repaired content, or the input itself when nothing is
// rewritten.
func runBothPasses(t *testing.T, input []byte) (Plan, []byte) {
	t.Helper()
	plan, err := Analyze(bytes.NewReader(input), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !plan.NeedsRewrite() {
		return plan, input
	}
	var out bytes.Buffer
	if err := WriteRepaired(&out, bytes.NewReader(input), &plan, goldenClock, goldenUUIDs()); err != nil {
		t.Fatal(err)
	}
	return plan, out.Bytes()
}

func checkResult(t *testing.T, plan *Plan, exp expectedFix) {
	t.Helper()
	r := exp.Result
	num := func(k string) int {
		f, _ := r[k].(float64)
		return int(f)
	}
	want := Counts{num("droppedLines"), num("rewrittenAssistantMessages"), num("droppedBlankUserMessages"), num("rewrittenUserMessages"), num("removedCorruptedImageBlocks"), num("insertedToolResults")}
	got := plan.Counts
	if plan.Reason != "" {
		got = Counts{DroppedLines: plan.Counts.DroppedLines} // early exits report droppedLines only
	}
	if got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	if repaired, _ := r["repaired"].(bool); plan.NeedsRewrite() != repaired {
		t.Errorf("repaired = %v, want %v", plan.NeedsRewrite(), repaired)
	}
	wantReason := ""
	if exp.Reason != nil {
		wantReason = *exp.Reason
	}
	if plan.Reason != wantReason {
		t.Errorf("reason = %q, want %q", plan.Reason, wantReason)
	}
}

func checkLog(t *testing.T, plan *Plan, base string, exp expectedFix) {
	t.Helper()
	level, msg := plan.Log(base)
	var wantLevel, wantMsg string
	if len(exp.Logs) > 0 {
		wantLevel, wantMsg = exp.Logs[0].Level, exp.Logs[0].Message
	}
	if level != wantLevel || msg != wantMsg || len(exp.Logs) > 1 {
		t.Errorf("log = %s %q, want %s %q (%d messages)", level, msg, wantLevel, wantMsg, len(exp.Logs))
	}
}

// checkLines compares the repaired content with OpenClaw's line by line as
// JSON values. Each line must also be byte-identical either to OpenClaw's
// line (rewritten and inserted entries are serialized as OpenClaw does) or
// to an input line (kept lines keep their bytes, invalid UTF-8 replaced).
func checkLines(t *testing.T, input, out []byte, want []string) {
	t.Helper()
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("output does not end with a newline")
	}
	got := strings.Split(string(out[:len(out)-1]), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), out)
	}
	inputLines := map[string]bool{}
	for _, l := range strings.Split(string(jsonl.ToValidUTF8(input)), "\n") {
		inputLines[strings.TrimRight(l, "\r")] = true
	}
	for i := range want {
		g, err := jsonl.Parse([]byte(got[i]))
		if err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, got[i])
		}
		w, err := jsonl.Parse([]byte(want[i]))
		if err != nil {
			t.Fatalf("expected line %d: %v", i+1, err)
		}
		if !jsonl.Equal(&g, &w) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
		if got[i] != want[i] && !inputLines[got[i]] {
			t.Errorf("line %d is neither OpenClaw's bytes nor an input line: %s", i+1, got[i])
		}
	}
}

// Summary is OpenClaw's debug message for a repair of the file named base.
func (p *Plan) Summary(base string) string {
	return fmt.Sprintf("session file repaired: %s (%s)", p.Counts.Summary(), base)
}

// Log returns the message OpenClaw logs for this plan on the file named
// base, and its level: the "session file repaired" summary (debug) when the
// file is rewritten, the "repair skipped" warning for an invalid header,
// nothing ("", "") otherwise.
func (p *Plan) Log(base string) (level, message string) {
	switch {
	case p.Reason == ReasonInvalidHeader:
		return "warn", fmt.Sprintf("session file repair skipped: %s (%s)", p.Reason, base)
	case p.NeedsRewrite():
		return "debug", p.Summary(base)
	}
	return "", ""
}
