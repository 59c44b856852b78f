package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
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
	fs.BoolVar(&o.Force, "force", false, "repair even when a running OpenClaw holds the session's write lock, or when the repaired file cannot keep its owner")
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
	d, err := discoverSessions(ctx, opts.Paths, a)
	if err != nil {
		return err
	}
	if len(d.Roots) > 0 {
		report.Scanned(a.Err, d.Roots, d.files())
	}
	var paths []string
	stored := 0
	for _, in := range d.Inputs {
		if in.Store == nil {
			paths = append(paths, in.Path)
		} else {
			stored++
		}
	}
	if err := listStoreSessions(a, opts, d); err != nil {
		return err
	}
	switch {
	case len(paths) == 0 && stored > 0:
		return nil // only store sessions, listed as read-only: nothing failed
	case len(paths) == 0:
		return noSessionFiles(opts.Paths, d)
	}
	if opts.Stdout && len(paths) != 1 {
		return usageErrorf("fix: --stdout takes exactly one session file, not %d", len(paths))
	}
	ctx, prog := startProgress(ctx, a, "fix", opts.Format == "json", paths, 0)
	defer prog.finish()
	if opts.Stdout || (len(paths) == 1 && paths[0] == "-" && !opts.DryRun) {
		err := fixToStdout(ctx, a, paths[0])
		if ctx.Err() != nil {
			return ctx.Err() // the output may be cut short: say so with exit 130
		}
		return err
	}
	run := &fixRun{app: a, opts: opts, ctx: ctx}
	for _, p := range paths {
		run.file(p)
		prog.fileDone()
		if err := ctx.Err(); err != nil {
			return err // the file being repaired is left as it was, or repaired
		}
	}
	return run.finish()
}

// noSessionFiles is the error of a fix whose folders hold no session file
// (exit 2: no input could be read).
func noSessionFiles(args []string, d discovery) error {
	where := args
	if len(args) == 0 {
		where = d.Roots
	}
	msg := "fix: no session files (*.jsonl) in " + strings.Join(where, ", ")
	if d.Skipped > 0 {
		msg += fmt.Sprintf(" (%d other file(s) skipped: indexes, locks, backups, archives, trajectories)", d.Skipped)
	}
	return &unreadableError{err: errors.New(msg)}
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
func fixToStdout(ctx context.Context, a *app, path string) error {
	var res repair.Result
	var err error
	switch {
	case path == "-":
		in, closeIn, serr := spoolFixStdin(a)
		if serr != nil {
			return serr
		}
		defer closeIn()
		res, err = repair.RepairStream(a.Out, in, path, repair.Options{Context: ctx})
	case isPipe(inputMode(path)):
		in, closeIn, serr := openSeekableInput(ctx, path)
		if serr != nil {
			return &unreadableError{err: serr}
		}
		defer closeIn()
		res, err = repair.RepairStream(a.Out, in, path, repair.Options{Context: ctx})
	default:
		if terr := checkInputType(path); terr != nil {
			return &unreadableError{err: terr}
		}
		res, err = repair.RepairTo(a.Out, path, repair.Options{Context: ctx})
	}
	res.Path = path
	if err != nil {
		return &findingsError{err: err}
	}
	switch {
	case isReadFailure(res.Reason):
		return &unreadableError{err: fmt.Errorf("%s: %s", path, res.Reason)}
	case res.Reason != "":
		return &findingsError{err: fmt.Errorf("%s: not repaired: %s (written unchanged)", path, res.Reason)}
	case res.Repaired:
		report.FixStdoutSummary(a.Err, res)
	}
	return nil
}

// spoolFixStdin spools standard input (the repair reads it twice), with
// fix's own wording of a failure.
func spoolFixStdin(a *app) (*os.File, func(), error) {
	f, closeF, err := spoolStdin(a)
	var se *spoolError
	switch {
	case !errors.As(err, &se):
		return f, closeF, err
	case se.copying:
		return nil, nil, &unreadableError{err: fmt.Errorf("read standard input: %w", se.err)}
	}
	return nil, nil, &unreadableError{err: fmt.Errorf("spool standard input: %w", se.err)}
}

// fixRun repairs (or plans) the files one after the other and reports.
type fixRun struct {
	*app
	ctx      context.Context
	opts     *fixOptions
	files    []report.FixFile
	failed   int // files that could not be repaired
	unread   int // files that could not be read at all
	changing int // dry run: files that would change
}

func (r *fixRun) file(path string) {
	var lines []repair.Verdict
	opts := repair.Options{DryRun: r.opts.DryRun, KeepBackup: r.opts.KeepBackup, Force: r.opts.Force, Context: r.ctx}
	if r.opts.DryRun && r.opts.Format == "text" {
		opts.OnVerdict = func(v repair.Verdict) {
			if v.Action != repair.Blank {
				v.Value = nil
				lines = append(lines, v)
			}
		}
	}
	res, err := r.repair(path, opts)
	if r.ctx.Err() != nil {
		return // interrupted: runFix exits 130 without a report on this file
	}
	var spoolErr *unreadableError
	if errors.As(err, &spoolErr) {
		r.unread++
		r.failed++
		fmt.Fprintf(r.Err, "openclaw-doctor: %v\n", err)
		return
	}
	res.Path = path
	r.record(res, err)
	if r.opts.Format == "text" {
		report.FixText(r.Out, r.Err, report.FixOutcome{Result: res, Err: err, DryRun: r.opts.DryRun, Lines: lines})
	} else if !r.opts.DryRun {
		report.FixWarnings(r.Err, res)
	}
	if path != "-" && inputMode(path) == 0 { // a regular file (or none): not a pipe or a device
		r.removeLeftovers(path)
	}
}

// repair repairs the file at path, or plans the repair of standard input
// for "-" and of a named pipe (neither can be repaired in place: fix
// repairs them only to standard output). A device is refused unread. An
// *unreadableError means standard input or a pipe could not be spooled.
func (r *fixRun) repair(path string, opts repair.Options) (repair.Result, error) {
	var in *os.File
	var closeIn func()
	var err error
	switch m := inputMode(path); {
	case path == "-":
		in, closeIn, err = spoolFixStdin(r.app)
	case isDevice(m):
		return repair.Result{Reason: "failed to read session file: " + notRegular(path, m).Error()}, nil
	case isPipe(m) && !opts.DryRun:
		return repair.Result{Reason: "a pipe cannot be repaired in place (fix --stdout PIPE writes the repaired content, fix --dry-run PIPE plans it)"}, nil
	case isPipe(m):
		in, closeIn, err = openSeekableInput(r.ctx, path)
		if err != nil {
			err = &unreadableError{err: err}
		}
	default:
		return repair.RepairFile(path, opts)
	}
	if err != nil {
		return repair.Result{}, err
	}
	defer closeIn()
	return repair.RepairStream(io.Discard, in, path, opts)
}

// removeLeftovers clears what an interrupted earlier repair left beside the
// file (repair.ClearLeftovers) and reports it.
func (r *fixRun) removeLeftovers(path string) {
	if r.opts.DryRun {
		return
	}
	leftovers, err := repair.ClearLeftovers(path)
	if err != nil {
		return // the file's own report already says what is wrong with it
	}
	for _, l := range leftovers {
		report.FixLeftover(r.Err, path, l)
	}
}

// record counts the outcome for the exit status and the JSON report.
func (r *fixRun) record(res repair.Result, err error) {
	r.files = append(r.files, report.NewFixFile(res))
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

// finish writes the JSON report and turns the outcome into the exit status.
func (r *fixRun) finish() error {
	if r.opts.Format == "json" {
		if err := report.FixJSON(r.Out, r.files); err != nil {
			return err
		}
	}
	switch {
	case len(r.files) > 0 && r.unread == len(r.files):
		return errNoInput
	case r.failed > 0 || r.changing > 0:
		return errFindings
	}
	return nil
}
