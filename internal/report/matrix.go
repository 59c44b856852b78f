package report

import (
	"fmt"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
)

// Matrix writes the compatibility matrix of one file (`check --provider
// all`): a heading, then one row per target with its name, provider, api
// and model, and its verdict:
//
//	path: replay compatibility (17 provider families)
//	  anthropic-sonnet45  anthropic anthropic-messages claude-sonnet-4-5  rewrites (2 changes: thinking/drop)
//	  openai-responses    openai openai-responses gpt-5                   rejects (invalid_replay_transcript: …)
//	  google              google google-generative-ai gemini-2.5-pro      ok
//
// Rows are printed whatever the severity threshold: the matrix compares
// targets; the threshold decides only what counts for the exit status.
func (t *Text) Matrix(path string, rows []check.MatrixRow) {
	if len(rows) == 0 {
		return
	}
	nameW, targetW := 0, 0
	targets := make([]string, len(rows))
	for i, r := range rows {
		targets[i] = strings.Join([]string{r.Target.Provider, orDash(r.Target.ModelAPI), orDash(r.Target.ModelID)}, " ")
		nameW, targetW = max(nameW, len(r.Name)), max(targetW, len(targets[i]))
	}
	t.printf("%s: replay compatibility (%s)\n", t.styles.path.Render(path), count(len(rows), "provider family", "provider families"))
	for i, r := range rows {
		t.printf("  %-*s  %-*s  %s\n", nameW, r.Name, targetW, oneLine(targets[i]), t.verdict(r))
	}
}

// verdict is a row's outcome: "ok", "rewrites (N changes: rules)" or
// "rejects (reason)", coloured as warnings and errors are.
func (t *Text) verdict(r check.MatrixRow) string {
	switch r.Verdict {
	case check.Rejects:
		return t.styles.sev[check.Error].Render("rejects") + " (" + oneLine(r.Reason) + ")"
	case check.Rewrites:
		return t.styles.sev[check.Warning].Render("rewrites") +
			fmt.Sprintf(" (%s: %s)", count(r.Rewrites, "change", "changes"), strings.Join(r.Rules, ", "))
	}
	if r.Metadata > 0 {
		return fmt.Sprintf("ok (%s to transcript state only)", count(r.Metadata, "change", "changes"))
	}
	return "ok"
}
