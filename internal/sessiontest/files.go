package sessiontest

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FileState is what the read-only tests compare of a file: its content
// (SHA-256), modification time and mode.
type FileState struct {
	Sum     string
	ModTime time.Time
	Mode    fs.FileMode
}

// FileStates records every file under dir, by its path relative to dir.
func FileStates(t testing.TB, dir string) map[string]FileState {
	t.Helper()
	out := map[string]FileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = FileState{hex.EncodeToString(sum[:]), st.ModTime(), st.Mode()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SameFiles fails for every file added, removed or changed between two
// [FileStates], except the files named in allowed (which may change but
// not appear or disappear).
func SameFiles(t testing.TB, before, after map[string]FileState, allowed ...string) {
	t.Helper()
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for p, b := range before {
		a, found := after[p]
		switch {
		case !found:
			t.Errorf("%s disappeared", p)
		case a != b && !ok[p]:
			t.Errorf("%s changed: %+v -> %+v", p, b, a)
		}
	}
	for p := range after {
		if _, found := before[p]; !found {
			t.Errorf("%s appeared", p)
		}
	}
}
