package repair

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// TestSecondPassFromMappingTruncated truncates the file between the two
// passes: the second pass, copying from the mapping, ends with
// ErrFileShrank, whether it copies kept lines or the whole file.
func TestSecondPassFromMappingTruncated(t *testing.T) {
	var lines strings.Builder
	lines.WriteString(header + "\n")
	for lines.Len() < 64<<10 {
		lines.WriteString(userHello + "\n")
	}
	for _, tc := range []struct {
		name, tail string
	}{
		{"rewritten", "{\"type\":\"message\"\n" + userHello + "\n"}, // a malformed line to drop
		{"unchanged", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(lines.String()+tc.tail), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := jsonl.WithContext(context.Background(), f)
			m := jsonl.MapFile(r)
			if m == nil {
				t.Skip("files are not mapped on this platform")
			}
			defer m.Close()
			plan, err := analyzeParallel(r, 2, m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, 100); err != nil {
				t.Fatal(err)
			}
			src, err := secondPassInput(context.Background(), r, m, plan.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = fromMapping(m, func() error {
				if !plan.NeedsRewrite() {
					_, err := io.Copy(&out, src)
					return err
				}
				return WriteRepaired(&out, src, &plan, goldenClock, goldenUUIDs())
			})
			if !errors.Is(err, jsonl.ErrFileShrank) {
				t.Fatalf("err = %v, want ErrFileShrank", err)
			}
		})
	}
}
