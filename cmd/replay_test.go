package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestReplayLargeSessions: a session long enough to be replayed segment by
// segment prints exactly what the whole-list replay prints (JSON and text,
// with and without --diff); so does one whose late tool result reaches back
// over every cut, which the segmented replay must hand to the whole-list
// replay, and one where a rule's removal of a turn right after the first
// cut makes that cut a hazard, which a second attempt avoids (package
// hygiene's TestLongSessionHazards shows the sessions do that).
func TestReplayLargeSessions(t *testing.T) {
	dir := t.TempDir()
	clean := writeLongSession(t, dir, "clean.jsonl", "")
	hazard := writeLongSession(t, dir, "hazard.jsonl", sessiontest.LateResult)
	retry := writeLongSession(t, dir, "retry.jsonl", sessiontest.CallWithoutInput)
	targets := []hygiene.Target{
		{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"},
		{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5.5"},
		{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "mistral-large-latest"},
	}
	if testing.Short() {
		targets = targets[:1] // each target replays the three sessions in four output variants
	}
	for _, target := range targets {
		compareReplayOutputs(t, target, clean, hazard, retry)
	}
}

// compareReplayOutputs runs replay on each path in both formats and
// compares the output with the whole-list replay's.
func compareReplayOutputs(t *testing.T, target hygiene.Target, paths ...string) {
	t.Helper()
	for _, path := range paths {
		for _, variant := range []struct {
			format string
			diff   bool
		}{{"json", true}, {"text", true}, {"json", false}, {"text", false}} {
			format := variant.format
			args := []string{"replay", "--format", format, "--provider", target.Provider,
				"--model-api", target.ModelAPI, "--model-id", target.ModelID, path}
			if variant.diff {
				args = append(args, "--diff")
			}
			var out, errOut bytes.Buffer
			code := run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, frozenEnv)
			if code != exitOK {
				t.Fatalf("%s %s: exit %d: %s", filepath.Base(path), format, code, errOut.String())
			}
			want := wholeReplayOutput(t, path, target, format, variant.diff)
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s --format %s --provider %s (diff %v): output differs from the whole-list replay's (%d bytes, want %d)",
					filepath.Base(path), format, target.Provider, variant.diff, out.Len(), len(want))
			}
		}
	}
}

// frozenEnv freezes replay's clock.
func frozenEnv(k string) string {
	if k == nowEnv {
		return "2026-01-01T00:00:00Z"
	}
	return ""
}

// writeLongSession writes sessiontest.Long(damage) to dir/name.
func writeLongSession(t *testing.T, dir, name, damage string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, sessiontest.Long(damage), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// wholeReplayOutput renders the whole-list replay of path.
func wholeReplayOutput(t *testing.T, path string, target hygiene.Target, format string, diff bool) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, err := session.ReadContext(f)
	if err != nil {
		t.Fatal(err)
	}
	r := frozenRun(target)
	n := len(ctx.Messages)
	msgs, replayErr := hygiene.ReplayContext(r, ctx)
	var out bytes.Buffer
	var w io.Writer = &out
	if format == "json" {
		err = report.ReplayJSON(w, r, msgs, replayErr, diff)
	} else {
		err = report.ReplayText(w, r, n, msgs, replayErr, diff)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func frozenRun(target hygiene.Target) *hygiene.Run {
	r := &hygiene.Run{Config: hygiene.NewConfig(target)}
	r.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	return r
}
