package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestCheckJSONSpillSameBytes: `check --format json` writes the same
// document, byte for byte, whether a file's findings wait in a temp file
// past a bound (as low as one finding) or are all held in memory (the
// document the stream writes then is the whole-document encoding, see
// internal/report's tests): over damaged examples, a file of malformed
// lines, one without a header, standard input and every threshold.
func TestCheckJSONSpillSameBytes(t *testing.T) {
	dir := t.TempDir()
	var dropped bytes.Buffer
	if err := sessiontest.WriteDropped(&dropped, 500); err != nil {
		t.Fatal(err)
	}
	damaged, err := os.ReadFile(filepath.Join("..", "testdata", "examples", "damaged.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_, headless, _ := bytes.Cut(damaged, []byte("\n"))
	files := map[string][]byte{"dropped.jsonl": dropped.Bytes(), "headless.jsonl": headless}
	args := []string{"check", "--format", "json"}
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, path)
	}
	args = append(args, sessiontest.Glob(t, "testdata/examples/*.jsonl")...)
	args = append(args, "-")
	defer func(n int) { spillFindingsAbove = n }(spillFindingsAbove)
	for _, severity := range []string{"info", "warning", "error"} {
		args := append([]string{args[0], "--severity-min", severity}, args[1:]...)
		spillFindingsAbove = 0
		want, wantCode := runCheckJSON(t, args, dropped.Bytes())
		for _, bound := range []int{1, 5, 64} {
			spillFindingsAbove = bound
			got, code := runCheckJSON(t, args, dropped.Bytes())
			if code != wantCode || !bytes.Equal(got, want) {
				t.Errorf("--severity-min %s, bound %d: exit %d and %d bytes, want exit %d and %d bytes", severity, bound, code, len(got), wantCode, len(want))
			}
		}
	}
}

func runCheckJSON(t *testing.T, args []string, stdin []byte) ([]byte, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, streams{In: bytes.NewReader(stdin), Out: &out, Err: &errOut}, func(string) string { return "" })
	if !strings.Contains(out.String(), `"findings": [`) {
		t.Fatalf("no document: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	return out.Bytes(), code
}
