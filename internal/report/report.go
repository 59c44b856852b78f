// Package report renders check findings for people (text, coloured only
// when asked to) and for programs (the JSON document of OpenClaw's
// `openclaw doctor --lint --json`), and decides the exit status from a
// severity threshold.
//
// Guarantees:
//
//   - Only findings at or above the threshold are printed, and exactly
//     those decide [Summary.Failed] (exit status 1); notes
//     ([check.IsNote]: a write lock, a backup, a file that is not a
//     transcript) are printed at every threshold and never decide it.
//   - Text output has no escape codes unless [TextOptions.Color] is set;
//     the caller decides (a terminal, no NO_COLOR, --color).
//   - The JSON document has OpenClaw's field names and order:
//     schemaVersion, ok, checksRun, checksSkipped, findings (checkId,
//     severity, message, path, line, fixHint).
//
// It also renders fix's report (fix.go: text, and OpenClaw's result
// fields as JSON) and replay's (replay.go, matrix.go).
//
// It does not find anything itself: findings come from package check,
// repair outcomes from package repair.
package report

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
)

// Summary totals a run.
type Summary struct {
	Files         int            // files checked (readable or not)
	StoreSessions int            // sessions of OpenClaw's SQLite store checked
	SkippedFiles  int            // sibling files skipped in folders
	ChecksRun     int            // check ids run
	ChecksSkipped int            // check ids not run (--only/--skip)
	Threshold     check.Severity // the --severity-min
	// Shown counts the findings at or above the threshold, per severity,
	// notes aside; Notes counts the notes.
	Shown [3]int
	Notes int
}

// Count adds the findings at or above the threshold, and the notes.
func (s *Summary) Count(fs []check.Finding) {
	for _, f := range fs {
		if check.IsNote(f.ID) {
			s.Notes++
		} else if f.Severity >= s.Threshold {
			s.Shown[f.Severity]++
		}
	}
}

// CountOmitted adds the findings a check left out ([check.Result.Omitted])
// that are at or above the threshold.
func (s *Summary) CountOmitted(omitted map[check.ID]int) {
	for id, n := range omitted {
		if c, ok := check.Lookup(id); ok && c.Severity >= s.Threshold {
			s.Shown[c.Severity] += n
		}
	}
}

// ShownOmitted is omitted without the checks below the threshold.
func ShownOmitted(omitted map[check.ID]int, threshold check.Severity) map[check.ID]int {
	var out map[check.ID]int
	for id, n := range omitted {
		if c, ok := check.Lookup(id); ok && c.Severity >= threshold {
			if out == nil {
				out = map[check.ID]int{}
			}
			out[id] = n
		}
	}
	return out
}

// Total is the number of findings at or above the threshold.
func (s *Summary) Total() int { return s.Shown[0] + s.Shown[1] + s.Shown[2] }

// Failed reports that a finding met the threshold: the run exits 1.
func (s *Summary) Failed() bool { return s.Total() > 0 }

// Shown filters findings to those at or above the threshold, and notes.
func Shown(fs []check.Finding, threshold check.Severity) []check.Finding {
	out := fs[:0:0]
	for _, f := range fs {
		if f.Severity >= threshold || check.IsNote(f.ID) {
			out = append(out, f)
		}
	}
	return out
}
