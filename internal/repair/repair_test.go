package repair

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestRepairFileInPlace repairs a copy of every conformance case in place
// and checks that the file then holds what the two passes produce, that
// nothing is left beside it (no backup, lock or temp file), and that a file
// needing nothing keeps its bytes and its mtime. First RepairTo, whose
// passes read the file itself, must write those same bytes (the input's
// own when the repair gives up).
func TestRepairFileInPlace(t *testing.T) {
	cases := sessiontest.ConformanceCases(t)
	for _, src := range cases {
		name := filepath.Base(src)
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			input, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, input, 0o640); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			plan, want := runBothPasses(t, input)
			var out bytes.Buffer
			res, err := RepairTo(&out, path, Options{Now: goldenClock, UUID: goldenUUIDs()})
			if err != nil {
				t.Fatalf("RepairTo: %v", err)
			}
			gaveUp := res.Reason != "" && bytes.Equal(out.Bytes(), input) // written unchanged
			if !bytes.Equal(out.Bytes(), want) && !gaveUp {
				t.Errorf("RepairTo (from the file) wrote bytes other than the two passes over a reader")
			}
			res, err = RepairFile(path, Options{Now: goldenClock, UUID: goldenUUIDs()})
			if err != nil {
				t.Fatalf("RepairFile: %v", err)
			}
			if res.Repaired != plan.NeedsRewrite() || res.Reason != plan.Reason {
				t.Errorf("repaired=%v reason=%q, want %v %q", res.Repaired, res.Reason, plan.NeedsRewrite(), plan.Reason)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, want) {
				t.Errorf("file content differs from the planned output")
			}
			fi, _ := os.Stat(path)
			if !res.Repaired && !fi.ModTime().Equal(old) {
				t.Errorf("an untouched file's mtime changed")
			}
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640", fi.Mode().Perm())
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("files left beside the session: %v", entries)
			}
		})
	}
}

func TestRepairFileKeepBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	input := []byte(header + "\n" + userHello + "\n{\"type\":\"message\"")
	os.WriteFile(path, input, 0o600)
	res, err := RepairFile(path, Options{KeepBackup: true})
	if err != nil || !res.Repaired || res.DroppedLines != 1 {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if !strings.HasPrefix(filepath.Base(res.BackupPath), "s.jsonl.bak-") {
		t.Fatalf("backup path %q", res.BackupPath)
	}
	if b, _ := os.ReadFile(res.BackupPath); !bytes.Equal(b, input) {
		t.Errorf("backup does not hold the original")
	}
}

func TestRepairFileEarlyExits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	tests := []struct {
		name, path, reason string
		dropped            int
	}{
		{"empty path", "  ", ReasonMissing, 0},
		{"missing", filepath.Join(dir, "nope.jsonl"), ReasonMissing, 0},
		{"directory", dir, "failed to read session file: EISDIR: illegal operation on a directory, read", 0},
		{"empty", write("e.jsonl", ""), ReasonEmpty, 0},
		{"garbage only", write("g.jsonl", "garbage\n{\"type\":\"message\""), ReasonEmpty, 2},
		{"no header", write("h.jsonl", userHello+"\n{\"type\":\"message\""), ReasonInvalidHeader, 1},
		{"sqlite marker", "sqlite:agent/main/session-1", ReasonMissing, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before []byte
			if fi, err := os.Stat(tt.path); err == nil && !fi.IsDir() {
				before, _ = os.ReadFile(tt.path)
			}
			res, err := RepairFile(tt.path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Repaired || res.Reason != tt.reason || res.DroppedLines != tt.dropped {
				t.Errorf("got repaired=%v reason=%q dropped=%d, want %q %d", res.Repaired, res.Reason, res.DroppedLines, tt.reason, tt.dropped)
			}
			if before != nil {
				if after, _ := os.ReadFile(tt.path); !bytes.Equal(after, before) {
					t.Errorf("file changed")
				}
			}
		})
	}
}

func TestRepairFileRefusesLiveLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	input := []byte(header + "\n{\"type\":\"message\"")
	os.WriteFile(path, input, 0o600)
	lock := []byte(`{"pid":1,"createdAt":"` + time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + `"}`)
	os.WriteFile(path+".lock", lock, 0o600)
	_, err := RepairFile(path, Options{})
	var live *LiveLockError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &live) {
		t.Fatalf("err = %v, want a live lock refusal", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, input) {
		t.Errorf("a locked file was changed")
	}
	res, err := RepairFile(path, Options{Force: true})
	if err != nil || !res.Repaired || len(res.OverriddenLocks) != 1 {
		t.Fatalf("forced: res=%+v err=%v", res, err)
	}
	if _, err := os.Stat(path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
}

func TestRepairToLeavesFileAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	input := []byte(header + "\r\n\r\n" + userHello + "\r\n{\"type\":\"message\"")
	os.WriteFile(path, input, 0o600)
	var out bytes.Buffer
	res, err := RepairTo(&out, path, Options{})
	if err != nil || !res.Repaired {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	if want := header + "\n" + userHello + "\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, input) {
		t.Errorf("RepairTo changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

const (
	header    = `{"type":"session","version":7,"id":"session-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`
	userHello = `{"type":"message","id":"msg-1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hello"}}`
)
