package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
)

// CheckEntry is one check of `openclaw-doctor checks --format json`.
type CheckEntry struct {
	ID       check.ID `json:"id"`
	Severity string   `json:"severity"`
	// Fixed: `openclaw-doctor fix` repairs what the check finds.
	Fixed   bool   `json:"fixedByFix"`
	Summary string `json:"summary"`
	FixHint string `json:"fixHint"`
}

// ChecksJSON writes {"checks":[…]}, one entry per check, in catalogue
// order.
func ChecksJSON(w io.Writer, checks []check.Check) error {
	entries := make([]CheckEntry, 0, len(checks))
	for _, c := range checks {
		entries = append(entries, CheckEntry{c.ID, c.Severity.String(), c.Fixed, c.Summary, c.Hint})
	}
	return encode(w, struct {
		Checks []CheckEntry `json:"checks"`
	}{entries})
}

// ChecksText writes one line per check (its id, severity, whether fix
// repairs it, and what it finds) under a header, and a count.
func ChecksText(w io.Writer, checks []check.Check) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK ID\tSEVERITY\tFIX\tFINDS")
	for _, c := range checks {
		fixed := "-"
		if c.Fixed {
			fixed = "fix"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, c.Severity, fixed, oneLine(c.Summary))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d checks; docs/checks.md has each one's fix hint\n", len(checks))
	return err
}
