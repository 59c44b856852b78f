package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
)

// matrixSample has one row of each verdict, and an ok row with
// transcript-state changes.
func matrixSample() []check.MatrixRow {
	tg := func(p, api, model string) hygiene.Target {
		return hygiene.Target{Provider: p, ModelAPI: api, ModelID: model}
	}
	return []check.MatrixRow{
		{Name: "anthropic-sonnet45", Target: tg("anthropic", "anthropic-messages", "claude-sonnet-4-5"), Verdict: check.Rewrites,
			Rewrites: 3, Rules: []string{"thinking/drop", "tool-call-ids/strict"}, Metadata: 2},
		{Name: "openai-responses", Target: tg("openai", "openai-responses", "gpt-5"), Verdict: check.Rejects,
			Reason: "invalid_replay_transcript: orphan_tool_result\ntoolCallId=x"},
		{Name: "google", Target: tg("google", "google-generative-ai", "gemini-2.5-pro"), Verdict: check.Compatible, Metadata: 1},
		{Name: "default", Target: tg("custom", "", ""), Verdict: check.Compatible},
	}
}

func TestMatrixGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		color bool
	}{{"matrix.txt", false}, {"matrix-color.txt", true}} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			tx := NewText(&b, TextOptions{Color: c.color})
			tx.Matrix("s.jsonl", matrixSample())
			if tx.Err() != nil {
				t.Fatal(tx.Err())
			}
			if hasEsc := strings.Contains(b.String(), "\x1b["); hasEsc != c.color {
				t.Errorf("escape codes present: %v, colour: %v", hasEsc, c.color)
			}
			if strings.Count(b.String(), "\n") != 1+len(matrixSample()) {
				t.Errorf("want a heading and one line per row:\n%s", b.String())
			}
			golden(t, c.name, b.Bytes())
		})
	}
}

func TestMatrixEmpty(t *testing.T) {
	var b bytes.Buffer
	NewText(&b, TextOptions{}).Matrix("s.jsonl", nil)
	if b.Len() != 0 {
		t.Errorf("no rows printed %q", b.String())
	}
}
