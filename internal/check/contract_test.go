package check

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestExitContract proves the CI contract of docs/checks.md on every
// conformance case: after fix, check's default threshold (warning) is
// reached exactly when a matrix target still rejects the session or a
// finding only a person can repair remains.
func TestExitContract(t *testing.T) {
	ctx := context.Background()
	// -short keeps every third case and those the contract hinges on: a
	// rejection left after fix, and the by-hand findings.
	keep := func(path string) bool {
		return strings.Contains(path, "duplicates") || strings.Contains(path, "header") || strings.Contains(path, "empty")
	}
	for _, path := range sessiontest.ShortSample(sessiontest.ConformanceCases(t), 3, keep) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			fixed := fixedBytes(t, path)
			res := Run(ctx, bytes.NewReader(fixed), path, int64(len(fixed)), Selection{}, Options{})
			fails := slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Severity >= Warning })
			var byHand []ID
			for _, f := range res.Findings {
				if c, _ := Lookup(f.ID); c.ByHand && !slices.Contains(byHand, f.ID) {
					byHand = append(byHand, f.ID)
				}
			}
			matrix := FindReplayChanges(ctx, bytes.NewReader(fixed), path, ProviderOptions{
				Target: hygiene.Target{Provider: ProviderAll}, Now: corpusClock})
			var rejecting []string
			for _, row := range matrix.Matrix {
				if row.Verdict == Rejects {
					rejecting = append(rejecting, row.Name)
				}
			}
			if want := len(rejecting) > 0 || len(byHand) > 0; fails != want {
				t.Errorf("after fix, check fails = %v; want %v (rejected by %v; by-hand findings %v)\nfindings: %v",
					fails, want, rejecting, byHand, res.Findings)
			}
		})
	}
}

// fixedBytes is the content fix writes for the file at path (the file's
// own bytes when fix leaves it alone).
func fixedBytes(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	fixedUUID := func() string { return "00000000-0000-4000-8000-000000000000" }
	if _, err := repair.RepairStream(&out, f, path, repair.Options{Now: func() time.Time { return corpusClock() }, UUID: fixedUUID}); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	return out.Bytes()
}
