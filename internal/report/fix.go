package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
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
	case errors.As(err, &locked) && o.DryRun:
		fmt.Fprintf(out, "%s: would refuse: %s\nhint: stop the OpenClaw session first, or use --force\n", res.Path, refusal(locked))
	case errors.As(err, &locked):
		fmt.Fprintf(out, "%s: not repaired: %v\nhint: stop the OpenClaw session first, or use --force\n", res.Path, locked)
	case res.Reason == repair.ReasonMissing && strings.HasPrefix(res.Path, "sqlite:"):
		fmt.Fprintf(out, "%s: not repaired: %s (not a file: an SQLite transcript marker of OpenClaw 2026.9+; fix repairs JSONL files)\n", res.Path, res.Reason)
	case res.Reason != "":
		fmt.Fprintf(out, "%s: not repaired: %s\n", res.Path, res.Reason)
		if strings.HasPrefix(res.Reason, repair.ReasonLostFoundFailed) {
			fmt.Fprintf(out, "hint: make the folder writable, or repair without saving the removed lines (--no-lost-found)\n")
		}
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
	if res.LostFoundPath != "" {
		fmt.Fprintf(out, "  removed lines saved to %s\n", res.LostFoundPath)
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

// refusal says why a live lock refuses a repair: "locked by running
// OpenClaw (pid N)", or the lock's own message when its body names no live
// owner (a lock being taken, or one without a pid).
func refusal(locked *repair.LiveLockError) string {
	if locked.Info.PID > 0 && locked.Info.HeldUntil.IsZero() {
		return fmt.Sprintf("locked by running OpenClaw (pid %d)", locked.Info.PID)
	}
	return locked.Error()
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

// FixTally counts the outcomes of one fix run for its closing summary.
type FixTally struct {
	DryRun bool `json:"dryRun"`
	// Repaired files were rewritten (under DryRun: would be).
	Repaired int `json:"repaired"`
	// Refused files are locked by a running OpenClaw; LockedPIDs are the
	// lock owners' pids, in the order met.
	Refused    int   `json:"refused"`
	LockedPIDs []int `json:"lockedPids"`
	// NotRepaired files could not be read or repaired for another reason
	// (an invalid header, an empty file, a failed replace).
	NotRepaired int `json:"notRepaired"`
	// Clean files needed nothing.
	Clean int `json:"clean"`
	// LostFound are the lost-and-found records written, in file order.
	LostFound []string `json:"lostFound"`
}

// Add counts one file's outcome.
func (t *FixTally) Add(res repair.Result, err error) {
	var locked *repair.LiveLockError
	switch {
	case errors.As(err, &locked):
		t.Refused++
		if pid := locked.Info.PID; pid > 0 && !slices.Contains(t.LockedPIDs, pid) {
			t.LockedPIDs = append(t.LockedPIDs, pid)
		}
	case res.Reason != "":
		t.NotRepaired++
	case res.Repaired:
		t.Repaired++
	default:
		t.Clean++
	}
	if res.LostFoundPath != "" {
		t.LostFound = append(t.LostFound, res.LostFoundPath)
	}
}

// FixSummary writes the line that ends a fix run, e.g. "2 repaired, 1
// refused (locked by running OpenClaw pid 4711), 27 clean; removed lines
// saved to …".
func FixSummary(w io.Writer, t FixTally) {
	repaired, refused := "repaired", "refused"
	if t.DryRun {
		repaired, refused = "would repair", "would refuse"
	}
	parts := []string{fmt.Sprintf("%d %s", t.Repaired, repaired)}
	if t.Refused > 0 {
		r := fmt.Sprintf("%d %s (locked", t.Refused, refused)
		if len(t.LockedPIDs) > 0 {
			pids := make([]string, len(t.LockedPIDs))
			for i, p := range t.LockedPIDs {
				pids[i] = strconv.Itoa(p)
			}
			r += " by running OpenClaw pid " + strings.Join(pids, ", ")
		}
		parts = append(parts, r+")")
	}
	if t.NotRepaired > 0 {
		parts = append(parts, fmt.Sprintf("%d not repaired", t.NotRepaired))
	}
	parts = append(parts, fmt.Sprintf("%d clean", t.Clean))
	line := strings.Join(parts, ", ")
	switch n := len(t.LostFound); {
	case n == 1:
		line += "; removed lines saved to " + t.LostFound[0]
	case n > 1:
		line += fmt.Sprintf("; removed lines saved to %s (%d records)", commonDir(t.LostFound), n)
	}
	fmt.Fprintln(w, line)
}

// commonDir is the deepest folder holding every path of paths.
func commonDir(paths []string) string {
	dir := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for dir != filepath.Dir(dir) && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			dir = filepath.Dir(dir)
		}
	}
	return dir
}

// FixFile is one file's entry in fix's JSON report: OpenClaw's result
// fields, flat, with null for an absent reason or backup.
type FixFile struct {
	Path     string  `json:"path"`
	Repaired bool    `json:"repaired"`
	Reason   *string `json:"reason"`
	repair.Counts
	BackupPath *string `json:"backupPath"`
	// LostFoundPath is the lost-and-found record of the lines the repair
	// dropped or rewrote, or null.
	LostFoundPath *string `json:"lostFoundPath"`
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
	if res.LostFoundPath != "" {
		l := res.LostFoundPath
		f.LostFoundPath = &l
	}
	return f
}

// FixJSON writes fix's JSON report, {"files":[…],"summary":{…}}: the
// summary holds the counts of the closing summary line.
func FixJSON(w io.Writer, files []FixFile, t FixTally) error {
	if t.LockedPIDs == nil {
		t.LockedPIDs = []int{}
	}
	if t.LostFound == nil {
		t.LostFound = []string{}
	}
	return encode(w, struct {
		Files   []FixFile `json:"files"`
		Summary FixTally  `json:"summary"`
	}{files, t})
}
