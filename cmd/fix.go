package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	// NoLostFound: save no lost-and-found record of the removed lines.
	NoLostFound bool
	Paths       []string
}

func (o *fixOptions) addFlags(fs *pflag.FlagSet) {
	fs.BoolVarP(&o.DryRun, "dry-run", "n", false, "write nothing; print what would change, line by line")
	fs.BoolVar(&o.Stdout, "stdout", false, "write the repaired content of FILE to standard output; never touch the file")
	fs.BoolVar(&o.KeepBackup, "keep-backup", false, "keep the <file>.bak-<pid>-<ms> backup after a repair")
	fs.BoolVar(&o.Force, "force", false, "repair even when a running OpenClaw holds the session's write lock, or when the repaired file cannot keep its owner")
	fs.StringVar(&o.Format, "format", "text", "report format: text or json")
	addJSONFlag(fs)
	fs.BoolVar(&o.NoLostFound, "no-lost-found", false, "do not save the lines a repair removes or rewrites in a lost-and-found record")
	fs.Bool("repair", false, "the same as fix (OpenClaw's doctor --repair spelling)")
	_ = fs.MarkHidden("repair")
}

const fixLong = `WARNING: fix removes data. Lines that are not valid JSON and message entries
without a usable role are dropped for good, empty assistant error turns and
blank user turns are rewritten, and corrupted images are replaced by a text
placeholder, exactly as OpenClaw's own session-file repair does. Every line
removed or rewritten is first saved, with its bytes and line number, in a
lost-and-found record (unless --no-lost-found) whose path the summary
prints: <state>/openclaw-doctor/lost-found/<agent>/<session>-<time>.jsonl for
a session of an install, else under $XDG_STATE_HOME/openclaw-doctor (or
~/.local/state/openclaw-doctor)/lost-found. The original is kept in
<file>.bak-<pid>-<ms> only during the replace (or with --keep-backup). Run
with --dry-run first.

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

A run that would rewrite more than one file lists them and asks once when
standard input is a terminal; --yes, --non-interactive or a standard input
that is not a terminal never ask, and a sweep then proceeds (as OpenClaw's
doctor --non-interactive does). A summary line ends the run:
"2 repaired, 1 refused (locked by running OpenClaw pid 4711), 27 clean;
removed lines saved to ...". --quiet prints only errors and that line.
Under --dry-run a session locked by a running OpenClaw shows "would refuse".

With --format json (or --json) the report is {"files":[{path, repaired,
reason, droppedLines, rewrittenAssistantMessages, droppedBlankUserMessages,
rewrittenUserMessages, removedCorruptedImageBlocks, insertedToolResults,
backupPath, lostFoundPath}], "summary":{dryRun, repaired, refused,
lockedPids, notRepaired, clean, lostFound}}: OpenClaw's result fields, flat,
and the summary's counts; under --dry-run "repaired" means "would be
rewritten". With --stdout or - the report goes to standard error.

fix exits 1 when --dry-run found something to change, or when a file could
not be repaired (an early exit such as an invalid session header, a live
lock, a failed replace), and 2 when no input could be read at all.
` + exitStatusHelp

func newFixCmd(a *app) *cobra.Command {
	opts := &fixOptions{}
	cmd := &cobra.Command{
		Use:     "fix [FILE|DIR|-]...",
		Aliases: []string{"repair"},
		Short:   "Repair session files on disk exactly as OpenClaw does",
		Long:    fixLong,
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
	if len(d.Roots) > 0 && !a.ui.Quiet {
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
	if opts.Stdout || (len(paths) == 1 && paths[0] == "-" && !opts.DryRun) {
		ctx, prog := startProgress(ctx, a, "fix", opts.Format == "json", paths, 0)
		defer prog.finish()
		err := fixToStdout(ctx, a, paths[0], opts.Format == "json")
		if ctx.Err() != nil {
			return ctx.Err() // the output may be cut short: say so with exit 130
		}
		return err
	}
	run := &fixRun{app: a, opts: opts, ctx: ctx}
	run.tally.DryRun = opts.DryRun
	if !opts.NoLostFound && !opts.DryRun {
		run.lostFound = &repair.LostFound{Home: lostFoundHome(a.getenv)}
	}
	if proceed, err := run.confirmSweep(paths); !proceed || err != nil {
		return err
	}
	ctx, prog := startProgress(ctx, a, "fix", opts.Format == "json", paths, 0) // after the question, never over it
	defer prog.finish()
	run.ctx = ctx
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

// lostFoundHome is openclaw-doctor's folder in the user's state folder,
// which receives the lost-and-found records of sessions outside an
// install: $XDG_STATE_HOME/openclaw-doctor (an absolute XDG_STATE_HOME),
// else ~/.local/state/openclaw-doctor.
func lostFoundHome(getenv func(string) string) string {
	dir := strings.TrimSpace(getenv("XDG_STATE_HOME"))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(homeDir(getenv, homeOptions{}), ".local", "state")
	}
	return filepath.Join(dir, "openclaw-doctor")
}

// fixToStdout writes the repaired content of one input to standard output
// and its report to standard error: the JSON report with asJSON, else a
// note of what was repaired.
func fixToStdout(ctx context.Context, a *app, path string, asJSON bool) error {
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
	if asJSON && ctx.Err() == nil {
		var t report.FixTally
		t.Add(res, err)
		if jerr := report.FixJSON(a.Err, []report.FixFile{report.NewFixFile(res)}, t); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return &findingsError{err: err}
	}
	switch {
	case isReadFailure(res.Reason):
		return &unreadableError{err: fmt.Errorf("%s: %s", path, res.Reason)}
	case res.Reason != "":
		return &findingsError{err: fmt.Errorf("%s: not repaired: %s (written unchanged)", path, res.Reason)}
	case res.Repaired && !asJSON:
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
	ctx       context.Context
	opts      *fixOptions
	lostFound *repair.LostFound // nil: no record (--no-lost-found, --dry-run)
	tally     report.FixTally
	files     []report.FixFile
	failed    int // files that could not be repaired
	unread    int // files that could not be read at all
	changing  int // dry run: files that would change
}

func (r *fixRun) file(path string) {
	var lines []repair.Verdict
	opts := repair.Options{DryRun: r.opts.DryRun, KeepBackup: r.opts.KeepBackup, Force: r.opts.Force, Context: r.ctx, LostFound: r.lostFound}
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
		r.tally.NotRepaired++
		fmt.Fprintf(r.Err, "openclaw-doctor: %v\n", err)
		return
	}
	res.Path = path
	r.record(res, err)
	if r.opts.Format == "text" && (!r.ui.Quiet || res.Reason != "" || err != nil) {
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
	r.tally.Add(res, err)
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

// finish writes the summary line (text) or the JSON report and turns the
// outcome into the exit status.
func (r *fixRun) finish() error {
	if r.opts.Format == "json" {
		if err := report.FixJSON(r.Out, r.files, r.tally); err != nil {
			return err
		}
	} else {
		report.FixSummary(r.Out, r.tally)
	}
	switch {
	case len(r.files) > 0 && r.unread == len(r.files):
		return errNoInput
	case r.failed > 0 || r.changing > 0:
		return errFindings
	}
	return nil
}

// confirmSweep asks, when it may (a terminal, no --yes, no
// --non-interactive), before a repair that would rewrite more than one
// file: it plans every file, lists those that would change, and asks once.
// It reports whether to go on; a refusal is a findings error (exit 1:
// the files still need repair).
func (r *fixRun) confirmSweep(paths []string) (bool, error) {
	if r.opts.DryRun || len(paths) < 2 || !r.mayAsk() {
		return true, nil
	}
	var changing []string
	for _, p := range paths {
		res, err := repair.RepairFile(p, repair.Options{DryRun: true, Force: r.opts.Force, Context: r.ctx})
		if err == nil && res.Repaired {
			changing = append(changing, p)
		}
		if err := r.ctx.Err(); err != nil {
			return false, err
		}
	}
	if len(changing) < 2 {
		return true, nil
	}
	fmt.Fprintf(r.Err, "fix would rewrite %d files:\n", len(changing))
	for _, p := range changing {
		fmt.Fprintf(r.Err, "  %s\n", p)
	}
	fmt.Fprintf(r.Err, "Repair them? [y/N] ")
	answer, _ := bufio.NewReader(r.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true, nil
	}
	return false, &findingsError{err: errors.New("fix: nothing repaired (not confirmed)")}
}
