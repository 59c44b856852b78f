package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// sample is a run over two files with one finding of each severity.
func sample() (Summary, []check.Finding) {
	fs := []check.Finding{
		{ID: check.MalformedLine, Severity: check.Error, Path: "a.jsonl", Line: 3, Message: "not valid JSON: unexpected end of input at byte 17; OpenClaw skips the line", Hint: `run "openclaw-doctor fix"`, Fixable: true},
		{ID: check.EmptySession, Severity: check.Error, Path: "b.jsonl", Message: "the file is empty", Hint: "by hand"},
		{ID: check.MissingParent, Severity: check.Warning, Path: "-", Line: 12, Message: "parentId \"x\ny\" names no entry", Hint: "restore it"},
		{ID: check.LongLine, Severity: check.Info, Path: "a.jsonl", Line: 7, Message: "line is 70.0 KiB long", Hint: "no action needed"},
	}
	s := Summary{Files: 3, SkippedFiles: 2, ChecksRun: 16, ChecksSkipped: 1, Threshold: check.Warning}
	return s, fs
}

func TestTextGolden(t *testing.T) {
	for _, c := range []struct {
		name      string
		threshold check.Severity
		color     bool
	}{{"text-warning", check.Warning, false}, {"text-info", check.Info, false}, {"text-error-color", check.Error, true}} {
		t.Run(c.name, func(t *testing.T) {
			s, fs := sample()
			s.Threshold = c.threshold
			shown := Shown(fs, s.Threshold)
			s.Count(shown)
			var b bytes.Buffer
			tx := NewText(&b, TextOptions{Color: c.color})
			for _, f := range shown {
				tx.finding(f)
			}
			tx.Summary(s)
			if tx.Err() != nil {
				t.Fatal(tx.Err())
			}
			if hasEsc := strings.Contains(b.String(), "\x1b["); hasEsc != c.color {
				t.Errorf("escape codes present: %v, colour: %v", hasEsc, c.color)
			}
			golden(t, c.name+".txt", b.Bytes())
		})
	}
}

func TestJSONGolden(t *testing.T) {
	s, fs := sample()
	shown := Shown(fs, s.Threshold)
	s.Count(shown)
	var b bytes.Buffer
	if err := wholeJSON(&b, s, shown); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", b.Bytes())
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["ok"] != false || doc["checksRun"] != float64(16) || len(doc["findings"].([]any)) != 3 {
		t.Errorf("document = %v", doc)
	}
	b.Reset()
	if err := JSONFailure(&b, "no input could be read"); err != nil {
		t.Fatal(err)
	}
	golden(t, "failure.json", b.Bytes())
}

func TestSummaryThreshold(t *testing.T) {
	_, fs := sample()
	for sev, want := range map[check.Severity]int{check.Info: 4, check.Warning: 3, check.Error: 2} {
		s := Summary{Threshold: sev}
		s.Count(fs)
		if s.Total() != want || s.Failed() != (want > 0) || len(Shown(fs, sev)) != want {
			t.Errorf("threshold %s: total %d, want %d", sev, s.Total(), want)
		}
	}
	clean := Summary{Threshold: check.Warning}
	clean.Count(fs[3:])
	if clean.Failed() {
		t.Error("an info finding failed a warning run")
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestThousands(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0"}, {5, "5"}, {999, "999"}, {1000, "1,000"}, {123456, "123,456"}, {2000000, "2,000,000"}, {5299980, "5,299,980"}} {
		if got := thousands(c.n); got != c.want {
			t.Errorf("thousands(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// TestJSONStreamBytes: the streamed document is byte for byte the whole
// document encoded at once, whether the findings come in one call, one by
// one or none at all.
func TestJSONStreamBytes(t *testing.T) {
	s, fs := sample()
	fs = append(fs, check.Finding{ID: check.MissingParent, Severity: check.Error, Path: "db.sqlite#agent:main", Line: 4,
		Message: "a <b> & c", Hint: "h", Store: &check.StoreLocation{SessionKey: "agent:main", SessionID: "s1", Seq: 9}})
	for _, c := range []struct {
		name      string
		fs        []check.Finding
		threshold check.Severity
		failed    bool // the summary fails with no finding shown (omitted ones)
	}{
		{"none", nil, check.Warning, false},
		{"none-failed", nil, check.Warning, true},
		{"below-threshold", fs[3:4], check.Warning, false},
		{"one", fs[:1], check.Warning, false},
		{"all-info", fs, check.Info, false},
		{"all-error", fs, check.Error, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.Threshold = c.threshold
			shown := Shown(c.fs, s.Threshold)
			sum := s
			sum.Count(shown)
			if c.failed {
				sum.Shown[check.Error]++
			}
			want := jsonReport{SchemaVersion: SchemaVersion, OK: !sum.Failed(), ChecksRun: s.ChecksRun,
				ChecksSkipped: s.ChecksSkipped, Findings: []jsonFinding{}}
			for _, f := range shown {
				want.Findings = append(want.Findings, toJSONFinding(f))
			}
			var wb bytes.Buffer
			if err := encode(&wb, want); err != nil {
				t.Fatal(err)
			}
			var whole, oneByOne bytes.Buffer
			if err := wholeJSON(&whole, sum, shown); err != nil {
				t.Fatal(err)
			}
			st := NewJSONStream(&oneByOne, s)
			for i := range c.fs { // unfiltered: the stream applies the threshold
				st.Add(c.fs[i : i+1])
			}
			if err := st.Close(sum); err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string][]byte{"JSON": whole.Bytes(), "stream": oneByOne.Bytes()} {
				if !bytes.Equal(got, wb.Bytes()) {
					t.Errorf("%s:\n%s\nwant:\n%s", name, got, wb.Bytes())
				}
			}
		})
	}
}

// wholeJSON writes the document for a run in one go: shown are the
// findings at or above the threshold. It is the reference the stream's
// bytes are compared with.
func wholeJSON(w io.Writer, s Summary, shown []check.Finding) error {
	st := NewJSONStream(w, s)
	st.Add(shown)
	return st.Close(s)
}
