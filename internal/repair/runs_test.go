package repair

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestMalformedRunsShareAnEdit: consecutive malformed lines make one edit,
// so that a file of garbage costs one edit whatever its length, and both
// second passes (whole ranges and line by line) still check every line of
// the run.
func TestMalformedRunsShareAnEdit(t *testing.T) {
	const hdr = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`
	const user = `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}`
	cases := []struct {
		name      string
		lines     []string
		crlf      bool // "\r\n" line ends: the line-by-line second pass
		wantEdits int
	}{
		{"one run", []string{hdr, "{x", "nope", "{\"a\":", user}, false, 1},
		{"two runs", []string{hdr, "{x", "nope", user, "]", "[", user}, false, 2},
		{"one run, line by line", []string{hdr, "{x", "nope", "{\"a\":", user}, true, 1},
		{"a run ends the file", []string{hdr, user, "{x", "{y"}, false, 1},
	}
	now := func() time.Time { return time.Unix(0, 0) }
	uuid := func() string { return "00000000-0000-0000-0000-000000000000" }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			end := "\n"
			if c.crlf {
				end = "\r\n"
			}
			in := strings.Join(c.lines, end) + end
			plan, err := Analyze(strings.NewReader(in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Edits) != c.wantEdits {
				t.Fatalf("%d edits, want %d: %+v", len(plan.Edits), c.wantEdits, plan.Edits)
			}
			var want strings.Builder
			for _, l := range c.lines {
				if l == hdr || l == user {
					want.WriteString(l + "\n")
				}
			}
			var out bytes.Buffer
			if err := WriteRepaired(&out, strings.NewReader(in), &plan, now, uuid); err != nil {
				t.Fatal(err)
			}
			if out.String() != want.String() {
				t.Errorf("repaired:\n%s\nwant:\n%s", out.String(), want.String())
			}
			// A line of the run that became valid JSON is a changed file.
			changed := strings.Replace(in, "{x", "{}", 1)
			if err := WriteRepaired(&bytes.Buffer{}, strings.NewReader(changed), &plan, now, uuid); !errors.Is(err, errChanged) {
				t.Errorf("a run line turned valid: err %v, want errChanged", err)
			}
		})
	}
}
