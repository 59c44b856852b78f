package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
)

// fixOptions are the flags and arguments of `fix`.
type fixOptions struct {
	DryRun     bool
	Stdout     bool
	KeepBackup bool
	Force      bool
	Format     string
	Paths      []string
}

func (o *fixOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVarP(&o.DryRun, "dry-run", "n", false, "write nothing; print what would change, line by line")
	fs.BoolVar(&o.Stdout, "stdout", false, "write the repaired content of FILE to standard output; never touch the file")
	fs.BoolVar(&o.KeepBackup, "keep-backup", false, "keep the <file>.bak-<pid>-<ms> backup after a repair")
	fs.BoolVar(&o.Force, "force", false, "repair even when a running OpenClaw holds the session's write lock")
	fs.StringVar(&o.Format, "format", "text", "report format: text or json")
}

const fixLong = `WARNING: fix removes data. Lines that are not valid JSON and message entries
without a usable role are dropped for good, empty assistant error turns and
blank user turns are rewritten, and corrupted images are replaced by a text
placeholder, exactly as OpenClaw's own session-file repair does. The original
is kept in <file>.bak-<pid>-<ms> only during the replace (or with
--keep-backup). Run with --dry-run first.

fix repairs OpenClaw session transcripts (JSONL) as OpenClaw 2026.7.35's
repairSessionFileIfNeeded would: the same dropped lines, rewritten entries,
synthetic "aborted" tool results and counts. Unlike OpenClaw, lines that no
rule changes keep their original bytes (invalid UTF-8 is replaced, line
endings become "\n", blank lines go). A file that needs nothing is not touched.

The repair takes OpenClaw's write lock (<file>.lock) from the first read until
the file is replaced, refuses a session locked by a running OpenClaw unless
--force, writes the new content to a temp file beside the original, keeps a
hard-linked backup while it renames it into place, and then removes the backup.

  fix FILE|DIR...          repair in place
  fix                      repair the sessions of the local OpenClaw install
  fix --dry-run FILE...    print what would change (text, or --format json)
  fix --stdout FILE        write the result to standard output (the input
                           itself when nothing changes); the file is untouched
  fix -                    the same for standard input

With --format json the report is {"files":[{path, repaired, reason, droppedLines,
rewrittenAssistantMessages, droppedBlankUserMessages, rewrittenUserMessages,
removedCorruptedImageBlocks, insertedToolResults, backupPath}]}: OpenClaw's
result fields, flat; under --dry-run "repaired" means "would be rewritten".

fix exits 1 when --dry-run found something to change, or when a file could
not be repaired (an early exit such as an invalid session header, a live
lock, a failed replace), and 2 when no input could be read at all.
` + exitStatusHelp

func newFixCmd(a *app) *cobra.Command {
	opts := &fixOptions{}
	cmd := &cobra.Command{
		Use:   "fix [FILE|DIR|-]...",
		Short: "Repair session files on disk exactly as OpenClaw does",
		Long:  fixLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if f := a.settings.Format; f != "" {
				opts.Format = f
			}
			return runFix(cmd.Context(), a, opts)
		},
	}
	opts.addFlags(cmd.Flags())
	return cmd
}

// runFix checks the flags, lists the inputs and repairs each.
func runFix(ctx context.Context, a *app, opts *fixOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	d, err := discoverSessions(opts.Paths, a)
	if err != nil {
		return err
	}
	if len(d.Roots) > 0 {
		fmt.Fprintf(a.Err, "openclaw-doctor: scanned %s (%d session file(s))\n", strings.Join(d.Roots, ", "), len(d.Inputs))
	}
	var paths []string
	for _, in := range d.Inputs {
		paths = append(paths, in.Path)
	}
	if opts.Stdout && len(paths) != 1 {
		return usageErrorf("fix: --stdout takes exactly one session file, not %d", len(paths))
	}
	if opts.Stdout || (len(paths) == 1 && paths[0] == "-" && !opts.DryRun) {
		return fixToStdout(a, paths[0])
	}
	run := &fixRun{app: a, opts: opts}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		run.file(p)
	}
	return run.finish()
}

func (o *fixOptions) validate() error {
	if o.Format != "text" && o.Format != "json" {
		return usageErrorf("fix: --format must be text or json, not %q", o.Format)
	}
	if o.Stdout && o.DryRun {
		return usageErrorf("fix: --stdout and --dry-run cannot be combined")
	}
	if o.Stdout && len(o.Paths) != 1 {
		return usageErrorf("fix: --stdout takes exactly one FILE (or -)")
	}
	if len(o.Paths) > 1 {
		for _, p := range o.Paths {
			if p == "-" {
				return usageErrorf("fix: - (standard input) cannot be combined with other inputs")
			}
		}
	}
	return nil
}

// fixToStdout writes the repaired content of one input to standard output.
func fixToStdout(a *app, path string) error {
	name, cleanup, err := fixSource(a, path)
	if err != nil {
		return err
	}
	defer cleanup()
	res, err := repair.RepairTo(a.Out, name, repair.Options{})
	res.Path = path
	if err != nil {
		return &exitError{code: exitFindings, err: err}
	}
	switch {
	case isReadFailure(res.Reason):
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s", path, res.Reason)}
	case res.Reason != "":
		return &exitError{code: exitFindings, err: fmt.Errorf("%s: not repaired: %s (written unchanged)", path, res.Reason)}
	case res.Repaired:
		fmt.Fprintf(a.Err, "openclaw-doctor: %s: %s\n", path, res.Counts.Summary())
	}
	return nil
}

// fixSource returns a file name for the input: the path itself, or for "-"
// standard input spooled to a temp file (the repair reads its input twice).
func fixSource(a *app, path string) (string, func(), error) {
	if path != "-" {
		return path, func() {}, nil
	}
	f, err := os.CreateTemp("", "openclaw-doctor-stdin-*.jsonl")
	if err != nil {
		return "", nil, &exitError{code: exitUsage, err: fmt.Errorf("spool standard input: %w", err)}
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	if _, err := io.Copy(f, a.In); err != nil {
		cleanup()
		return "", nil, &exitError{code: exitUsage, err: fmt.Errorf("read standard input: %w", err)}
	}
	return f.Name(), cleanup, nil
}

// fixRun repairs (or plans) the files one after the other and reports.
type fixRun struct {
	*app
	opts     *fixOptions
	reports  []fixReport
	failed   int // files that could not be repaired
	unread   int // files that could not be read at all
	changing int // dry run: files that would change
}

// fixReport is one file's entry in the JSON report: OpenClaw's result
// fields, flat.
type fixReport struct {
	Path     string  `json:"path"`
	Repaired bool    `json:"repaired"`
	Reason   *string `json:"reason"`
	repair.Counts
	BackupPath *string `json:"backupPath"`
}

func (r *fixRun) file(path string) {
	var lines []repair.Verdict
	opts := repair.Options{DryRun: r.opts.DryRun, KeepBackup: r.opts.KeepBackup, Force: r.opts.Force}
	if r.opts.DryRun && r.opts.Format == "text" {
		opts.OnVerdict = func(v repair.Verdict) {
			if v.Action != repair.Blank {
				v.Value = nil
				lines = append(lines, v)
			}
		}
	}
	name, cleanup, err := fixSource(r.app, path)
	if err != nil {
		r.unread++
		r.failed++
		fmt.Fprintf(r.Err, "openclaw-doctor: %v\n", err)
		return
	}
	res, err := repair.RepairFile(name, opts)
	cleanup()
	res.Path = path
	r.record(res, err)
	if r.opts.Format == "text" {
		r.printText(res, err, lines)
	}
	if path != "-" {
		r.reportLeftovers(path)
	}
}

// reportLeftovers handles what an interrupted earlier repair left beside
// the file: temp files of dead processes hold nothing the session lacks and
// are removed; backups are only reported, since one may hold bytes a
// lock-ignoring writer appended.
func (r *fixRun) reportLeftovers(path string) {
	if r.opts.DryRun {
		return
	}
	leftovers, err := repair.FindLeftovers(path)
	if err != nil {
		return // the file's own report already says what is wrong with it
	}
	for _, l := range leftovers {
		switch {
		case l.PIDAlive:
			continue // another repair is running: leave its files alone
		case l.Kind == "temp" && l.Redundant:
			if err := os.Remove(l.Path); err == nil {
				fmt.Fprintf(r.Err, "openclaw-doctor: %s: removed the temp file of an interrupted repair: %s\n", path, l.Path)
			}
		case l.Kind == "backup" && l.Redundant:
			fmt.Fprintf(r.Err, "openclaw-doctor: %s: leftover backup of an interrupted repair (same content as the file; safe to delete): %s\n", path, l.Path)
		case l.Kind == "backup":
			fmt.Fprintf(r.Err, "openclaw-doctor: %s: leftover backup of an earlier repair (holds the file as it was before that repair): %s\n", path, l.Path)
		}
	}
}

// record counts the outcome for the exit status and the JSON report.
func (r *fixRun) record(res repair.Result, err error) {
	rep := fixReport{Path: res.Path, Repaired: res.Repaired, Counts: res.Counts}
	if res.Reason != "" {
		reason := res.Reason
		rep.Reason = &reason
	}
	if res.BackupPath != "" {
		b := res.BackupPath
		rep.BackupPath = &b
	}
	r.reports = append(r.reports, rep)
	switch {
	case isReadFailure(res.Reason):
		r.unread++
		r.failed++
	case res.Reason != "" || err != nil:
		// err with Repaired set: the file was replaced, but a lock-ignoring
		// writer appended to the old inode; its bytes are in the kept backup.
		r.failed++
	case r.opts.DryRun && res.Repaired:
		r.changing++
	}
}

func isReadFailure(reason string) bool {
	return reason == repair.ReasonMissing || strings.HasPrefix(reason, "failed to read session file: ")
}

// printText writes the text report of one file.
func (r *fixRun) printText(res repair.Result, err error, lines []repair.Verdict) {
	out := r.Out
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
	case r.opts.DryRun:
		fmt.Fprintf(out, "%s: would repair: %s\n", res.Path, res.Counts.Summary())
		printPlanLines(out, lines, res.Plan.Inserts)
	default:
		fmt.Fprintf(out, "%s: repaired: %s\n", res.Path, res.Counts.Summary())
	}
	if err != nil && locked == nil && res.Reason == "" {
		fmt.Fprintf(r.Err, "openclaw-doctor: %v\n", err) // repaired, with a warning (e.g. a concurrent writer)
	}
	if res.BackupCleanupErr != nil {
		// OpenClaw's own wording for a backup it could not delete.
		fmt.Fprintf(r.Err, "openclaw-doctor: session file repair backup cleanup failed: %v (%s)\n", res.BackupCleanupErr, filepath.Base(res.BackupPath))
	}
	if res.BackupPath != "" {
		fmt.Fprintf(out, "  backup kept: %s\n", res.BackupPath)
	}
	for _, l := range res.ReplacedStaleLocks {
		fmt.Fprintf(r.Err, "openclaw-doctor: %s: removed a stale write lock (%s)\n", res.Path, l.String())
	}
	for _, l := range res.OverriddenLocks {
		fmt.Fprintf(r.Err, "openclaw-doctor: %s: took over a live write lock (--force; %s)\n", res.Path, l.String())
	}
}

// printPlanLines lists the planned changes in line order, insertions after
// the line of their assistant.
func printPlanLines(w io.Writer, lines []repair.Verdict, inserts []repair.Insert) {
	flush := func(upTo int) {
		for len(inserts) > 0 && inserts[0].AfterLine <= upTo {
			printInsert(w, inserts[0])
			inserts = inserts[1:]
		}
	}
	for _, v := range lines {
		flush(v.Line - 1)
		fmt.Fprintf(w, "  line %d: %s\n", v.Line, describeVerdict(v))
		flush(v.Line)
	}
	for _, in := range inserts {
		printInsert(w, in)
	}
}

func printInsert(w io.Writer, in repair.Insert) {
	fmt.Fprintf(w, "  after line %d: insert an \"aborted\" tool result for call %q (%s)\n", in.AfterLine, in.ToolCallID, in.ToolName)
}

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

// finish writes the JSON report and turns the outcome into the exit status.
func (r *fixRun) finish() error {
	if r.opts.Format == "json" {
		enc := json.NewEncoder(r.Out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Files []fixReport `json:"files"`
		}{r.reports}); err != nil {
			return err
		}
	}
	switch {
	case len(r.reports) > 0 && r.unread == len(r.reports):
		return &exitError{code: exitUsage}
	case r.failed > 0 || r.changing > 0:
		return errFindings
	}
	return nil
}
