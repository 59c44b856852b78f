package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
)

// This file renders `openclaw-doctor fix` (docs/fix.md): the text report,
// one outcome per file (with the planned changes line by line under
// --dry-run) on standard output and the warnings around it on standard
// error, and the JSON document of OpenClaw's result fields. Whether an
// outcome fails the command is the caller's decision.

// FixOutcome is one file's repair as fix reports it.
type FixOutcome struct {
	// Result and Err are what repair.RepairFile returned.
	Result repair.Result
	Err    error
	// DryRun: the repair was only planned ("would repair").
	DryRun bool
	// Lines are the lines a dry run changes, in line order (the verdicts
	// repair.Options.OnVerdict saw, blank lines left out).
	Lines []repair.Verdict
}

// FixText writes the text report of one file to out, and to errOut the
// warnings around it: a repair that succeeded with an error (a concurrent
// writer), a backup that could not be deleted, stale locks removed, live
// locks taken over.
func FixText(out, errOut io.Writer, o FixOutcome) {
	res, err := o.Result, o.Err
	var locked *repair.LiveLockError
	switch {
	case errors.As(err, &locked):
		fmt.Fprintf(out, "%s: not repaired: %v\nhint: stop the OpenClaw session first, or use --force\n", res.Path, locked)
	case res.Reason == repair.ReasonMissing && strings.HasPrefix(res.Path, "sqlite:"):
		fmt.Fprintf(out, "%s: not repaired: %s (not a file: an SQLite transcript marker of OpenClaw 2026.9+; fix repairs JSONL files)\n", res.Path, res.Reason)
	case res.Reason != "":
		fmt.Fprintf(out, "%s: not repaired: %s\n", res.Path, res.Reason)
		if res.Reason == repair.ReasonInvalidHeader && res.Plan.FirstEntryLine > 0 {
			fmt.Fprintf(out, "  line %d: the first entry is not a session header\n", res.Plan.FirstEntryLine)
		}
	case !res.Repaired:
		fmt.Fprintf(out, "%s: nothing to repair\n", res.Path)
	case o.DryRun:
		fmt.Fprintf(out, "%s: would repair: %s\n", res.Path, res.Counts.Summary())
		fixPlanLines(out, o.Lines, res.Plan.Inserts)
	default:
		fmt.Fprintf(out, "%s: repaired: %s\n", res.Path, res.Counts.Summary())
	}
	if err != nil && locked == nil && res.Reason == "" {
		fmt.Fprintf(errOut, "openclaw-doctor: %v\n", err) // repaired, with a warning (e.g. a concurrent writer)
	}
	if res.BackupCleanupErr != nil {
		// OpenClaw's own wording for a backup it could not delete.
		fmt.Fprintf(errOut, "openclaw-doctor: session file repair backup cleanup failed: %v (%s)\n", res.BackupCleanupErr, filepath.Base(res.BackupPath))
	}
	if res.BackupPath != "" {
		fmt.Fprintf(out, "  backup kept: %s\n", res.BackupPath)
	}
	for _, l := range res.ReplacedStaleLocks {
		fmt.Fprintf(errOut, "openclaw-doctor: %s: removed a stale write lock (%s)\n", res.Path, l.String())
	}
	for _, l := range res.OverriddenLocks {
		fmt.Fprintf(errOut, "openclaw-doctor: %s: took over a live write lock (--force; %s)\n", res.Path, l.String())
	}
	if o.DryRun {
		fixDryRunNotes(out, res)
	} else {
		FixWarnings(errOut, res)
	}
}

// fixDryRunNotes says, under a planned repair, what the repair would do
// besides changing the content: leave other hard links behind, change the
// owner (or be refused for it).
func fixDryRunNotes(out io.Writer, res repair.Result) {
	if !res.Repaired {
		return
	}
	if res.OtherLinks > 0 {
		fmt.Fprintf(out, "  note: the file has %d other hard link(s); a repair gives only this name the new content, the other names keep the old\n", res.OtherLinks)
	}
	if c := res.OwnerChange; c != nil {
		fmt.Fprintf(out, "  note: owned by uid %d gid %d, which this user (uid %d) cannot keep: a repair is refused without --force, and with it the file becomes owned by uid %d gid %d\n",
			c.UID, c.GID, c.ProcUID, c.NewUID, c.NewGID)
	}
}

// FixWarnings writes to errOut what a repair in place did besides
// changing the content, in any report format: other hard links left with
// the old content, an owner changed under --force, a write lock that could
// not be removed.
func FixWarnings(errOut io.Writer, res repair.Result) {
	if res.Repaired && res.OtherLinks > 0 {
		fmt.Fprintf(errOut, "openclaw-doctor: %s: the file had %d other hard link(s); only this name has the repaired content, the other names keep the old\n", res.Path, res.OtherLinks)
	}
	if res.Repaired && res.OwnerChange != nil {
		fmt.Fprintf(errOut, "openclaw-doctor: %s (--force)\n", res.OwnerChange.Change())
	}
	if res.LockReleaseErr != nil {
		fmt.Fprintf(errOut, "openclaw-doctor: %s: the write lock was left behind: %v; delete it by hand (OpenClaw treats it as stale once this process has exited)\n", res.Path, res.LockReleaseErr)
	}
}

// fixPlanLines lists the planned changes in line order, insertions after
// the line of their assistant.
func fixPlanLines(w io.Writer, lines []repair.Verdict, inserts []repair.Insert) {
	flush := func(upTo int) {
		for len(inserts) > 0 && inserts[0].AfterLine <= upTo {
			fixInsertLine(w, inserts[0])
			inserts = inserts[1:]
		}
	}
	for _, v := range lines {
		flush(v.Line - 1)
		fmt.Fprintf(w, "  line %d: %s\n", v.Line, describeVerdict(v))
		flush(v.Line)
	}
	for _, in := range inserts {
		fixInsertLine(w, in)
	}
}

func fixInsertLine(w io.Writer, in repair.Insert) {
	fmt.Fprintf(w, "  after line %d: insert an \"aborted\" tool result for call %q (%s)\n", in.AfterLine, in.ToolCallID, in.ToolName)
}

// describeVerdict names what the repair does to one line and the rule
// that makes it.
func describeVerdict(v repair.Verdict) string {
	switch {
	case v.Action == repair.Drop && v.Rules == repair.RuleMalformedLine:
		return fmt.Sprintf("drop (malformed-line): %v", v.Err)
	case v.Action == repair.Drop:
		return "drop (invalid-message-role): message entry without an object message and a non-blank role"
	case v.Action == repair.Rewrite:
		var parts []string
		if v.Rules&repair.RuleEmptyErrorTurn != 0 {
			parts = append(parts, "empty-error-turn: content becomes the fallback text")
		}
		if v.Rules&repair.RuleCorruptedImage != 0 {
			parts = append(parts, fmt.Sprintf("corrupted-image: %d image block(s) become a placeholder", v.CorruptedImages))
		}
		if v.Rules&repair.RuleBlankUserText != 0 {
			parts = append(parts, "blank-user-text: blank text becomes (continue)")
		}
		return "rewrite (" + strings.Join(parts, "; ") + ")"
	}
	return "re-serialize (a number outside float64's range is written null)"
}

// FixStdoutSummary is the note of `fix --stdout` on standard error when
// the content written was repaired.
func FixStdoutSummary(errOut io.Writer, res repair.Result) {
	fmt.Fprintf(errOut, "openclaw-doctor: %s: %s\n", res.Path, res.Counts.Summary())
}

// FixLeftover reports on errOut what an interrupted earlier repair left
// beside the session at path: a temp file (l.Removed says fix deleted it) or
// a backup, which is only reported. Leftovers of a running repair, and
// temp files that were not removed, are not reported.
func FixLeftover(errOut io.Writer, path string, l repair.Leftover) {
	switch {
	case l.PIDAlive:
	case l.Kind == "temp" && l.Removed:
		fmt.Fprintf(errOut, "openclaw-doctor: %s: removed the temp file of an interrupted repair: %s\n", path, l.Path)
	case l.Kind == "backup" && l.Redundant:
		fmt.Fprintf(errOut, "openclaw-doctor: %s: leftover backup of an interrupted repair (same content as the file; safe to delete): %s\n", path, l.Path)
	case l.Kind == "backup":
		fmt.Fprintf(errOut, "openclaw-doctor: %s: leftover backup of an earlier repair (holds the file as it was before that repair): %s\n", path, l.Path)
	}
}

// FixFile is one file's entry in fix's JSON report: OpenClaw's result
// fields, flat, with null for an absent reason or backup.
type FixFile struct {
	Path     string  `json:"path"`
	Repaired bool    `json:"repaired"`
	Reason   *string `json:"reason"`
	repair.Counts
	BackupPath *string `json:"backupPath"`
}

// NewFixFile is the JSON entry of a repair's result.
func NewFixFile(res repair.Result) FixFile {
	f := FixFile{Path: res.Path, Repaired: res.Repaired, Counts: res.Counts}
	if res.Reason != "" {
		reason := res.Reason
		f.Reason = &reason
	}
	if res.BackupPath != "" {
		b := res.BackupPath
		f.BackupPath = &b
	}
	return f
}

// FixJSON writes fix's JSON report, {"files":[…]}.
func FixJSON(w io.Writer, files []FixFile) error {
	return encode(w, struct {
		Files []FixFile `json:"files"`
	}{files})
}
