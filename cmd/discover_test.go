package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// TestIsStateDir: a folder is a state folder when its agents/ holds an
// agent's sessions/ folder or agent database, and only then.
func TestIsStateDir(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dirs  []string
		files []string
		want  bool
	}{
		{name: "sessions folder", dirs: []string{"agents/main/sessions"}, want: true},
		{name: "agent database only", files: []string{"agents/work/agent/" + store.DatabaseName}, want: true},
		{name: "plain folder", files: []string{"a.jsonl", "sub/b.jsonl"}},
		{name: "agents without sessions", dirs: []string{"agents/main/notes"}},
		{name: "sessions one level too deep", dirs: []string{"x/agents/main/sessions"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range tc.dirs {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := isStateDir(dir); got != tc.want {
				t.Errorf("isStateDir = %v, want %v", got, tc.want)
			}
		})
	}
}
