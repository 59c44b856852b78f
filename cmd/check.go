package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
)

// checkOptions are the flags and arguments of `check`.
type checkOptions struct {
	Only, Skip     []string
	Paths          []string
	All            bool
	list           bool // --list: print the check catalogue instead of checking
	provider       providerFlags
	session, agent string // --session, --agent: one store session
}

func (o *checkOptions) addFlags(fs *pflag.FlagSet) {
	fs.String("format", "text", "output format: text or json (openclaw doctor --lint --json's shape)")
	addJSONFlag(fs)
	fs.String("severity-min", "warning", "lowest severity printed and counted for the exit status: info, warning or error")
	fs.StringSliceVar(&o.Only, "only", nil, "run only these check ids (repeatable, comma-separated)")
	fs.StringSliceVar(&o.Skip, "skip", nil, "skip these check ids (repeatable, comma-separated)")
	fs.StringVar(&o.session, "session", "", "check one session of OpenClaw's SQLite store: a session key or id")
	fs.StringVar(&o.agent, "agent", "", "with --session: the agent, when the session exists in several")
	fs.BoolVar(&o.All, "all", false, fmt.Sprintf("text output: print every finding (default: at most %d of each check id per file)", textLimit))
	o.provider.addFlags(fs)
}

const checkLong = `check reads OpenClaw session transcripts (JSONL) and reports, without writing
anything, what OpenClaw's repair would change (fix), what makes a file load as
an empty session, and the structural problems providers reject.

  check FILE|DIR...   check files; folders are searched recursively for
                      transcripts (sessions.json, locks, backups, archives,
                      trajectories and checkpoints are skipped), except a
                      state folder (see check STATE_DIR)
  check -             check standard input
  check               check the sessions of the local OpenClaw install:
                      $OPENCLAW_STATE_DIR/agents/*/sessions when it is set,
                      otherwise ~/.openclaw/agents/*/sessions, ~/.openclaw/sessions
                      and the legacy ~/.clawdbot and ~/.moltbot folders, and
                      the sessions of the state folder's SQLite store
                      (OpenClaw 2026.9: agents/*/agent/openclaw-agent.sqlite)
  check STATE_DIR|DB  a state folder's or one agent database's store sessions;
                      with a state folder (one holding agents/*/sessions or
                      agents/*/agent/openclaw-agent.sqlite), also the JSONL
                      transcripts directly in agents/*/sessions, as OpenClaw
                      finds them: no sub-folders, import archives or
                      lost-and-found records
  check --session KEY|ID [--agent A] [STATE_DIR|DB]
                      one store session, by session key or session id

Each finding prints as

  path:line: severity check-id message
    fix: hint

where line is the physical line (blank lines count), followed by a summary.
A store session prints as DATABASE#KEY:LINE (the session id instead of the
key for a session its key no longer points to), LINE being the line of the
session's export (openclaw-doctor export); the store is only read.

Text output prints at most 20 findings of each check id per file, then
"path: … and N more check-id"; --all prints them all (JSON always has all).
Findings of checks that fix repairs name "openclaw-doctor fix" in their hint;
check reports none of those exactly when fix has nothing to do. The
catalogue of check ids, severities and hints is docs/checks.md.

--format json prints the document of "openclaw doctor --lint --json":
{"schemaVersion":1,"ok":…,"checksRun":…,"checksSkipped":…,"findings":[{"checkId",
"severity","message","path","line","fixHint"}]} (path "-" is standard input; a
store session's findings add "sessionKey", "sessionId" and "seq").

--provider P also replays each session for P as "openclaw-doctor replay" does
(--model-api, --model-id, --reasoning as there; OPENCLAW_DOCTOR_NOW freezes its
clock) and reports what OpenClaw's replay would change, one check id per rule
(replay/<rule>): errors where OpenClaw refuses the history, warnings for
rewrites, info for transcript state the provider never sees. --provider all
replays for every provider family and prints a compatibility matrix per file
(in JSON: one finding per target and rule). A store session is replayed as
"openclaw-doctor replay --session" replays it: OpenClaw's bounded view for a
context window of 200,000 tokens (--context-tokens N; --full: the whole
branch), its replay findings at lines of that view (the header is line 1), as
replay names them; JSON's seq names the row either way.
` + exitStatusHelp + `
  check exits 1 when a finding is at or above --severity-min (default
  warning), and 2 when no input could be read at all. With the default
  threshold, check exits 0 exactly when no provider would reject a session
  and no finding needs a person (docs/checks.md): after a successful fix,
  what OpenClaw's replay repairs for every provider is info, and notes
  (file/…: locks, backups, files that are not transcripts) never count.`

func newCheckCmd(a *app) *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [FILE|DIR|-]...",
		Short: "Report what is wrong with session files, without changing them",
		Long:  checkLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.list {
				if len(args) > 0 {
					return usageErrorf("check --list takes no FILE or DIR")
				}
				return listChecks(a, "check --list")
			}
			opts.Paths = args
			if err := opts.provider.validate(); err != nil {
				return err
			}
			return runCheck(cmd.Context(), a, opts)
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&opts.list, "list", false, "list every check id with its severity and what it finds (as the checks command), then exit")
	return cmd
}

// textLimit is the number of findings of one check id text output prints
// per file without --all.
const textLimit = 20

// checkRun holds what one invocation needs while files are checked.
type checkRun struct {
	limit int // findings of one id printed per file (0: all)
	app   *app
	sel   check.Selection
	opts  check.Options
	// fileOpts are opts for the line pass of a file, a pipe or standard
	// input: with --format json, a file's findings beyond
	// spillFindingsAbove wait in a temp file, not in memory.
	fileOpts  check.Options
	threshold check.Severity
	json      bool
	provider  *providerRun // check --provider; nil without it
	progress  *progress    // nil without a progress line
}

func runCheck(ctx context.Context, a *app, o *checkOptions) error {
	r, err := newCheckRun(a, o)
	if err != nil {
		return err
	}
	d, err := r.inputs(ctx, o)
	if err != nil {
		if r.json {
			_ = report.JSONFailure(a.Out, err.Error())
		}
		return err
	}
	defer d.closeStores()
	if len(d.Roots) > 0 && !a.ui.Quiet {
		report.Scanned(a.Err, d.Roots, d.files())
	}
	if len(d.Databases) > 0 && len(o.Paths) == 0 && !a.ui.Quiet {
		report.ScannedStores(a.Err, d.Databases, d.Sessions, d.Cold)
	}
	defer r.provider.close()
	if err := r.provider.prepare(ctx, a, d); err != nil {
		return err
	}
	// A whole-list replay keeps a whole branch: the collector goes back to
	// its usual pace once one begins.
	pace := collectSooner
	if r.provider.matrixTargets() > 0 {
		pace = collectSoonerForMatrix
	}
	restoreGC := sync.OnceFunc(pace())
	defer restoreGC()
	r.provider.onWholeReplay(restoreGC)
	ctx, r.progress = startProgress(ctx, a, "check", r.json, d.paths(), r.provider.matrixTargets())
	defer r.progress.finish()
	r.provider.onTargetDone(r.progress)
	return r.run(ctx, d)
}

func newCheckRun(a *app, o *checkOptions) (*checkRun, error) {
	format := a.settings.Format
	if format == "" {
		format = "text"
	}
	if format != "text" && format != "json" {
		return nil, usageErrorf("check: --format must be text or json, not %q", format)
	}
	threshold, err := check.ParseSeverity(a.settings.SeverityMin)
	if err != nil {
		return nil, usageErrorf("check: --severity-min: %v", err)
	}
	opts := check.Options{Only: checkIDs(o.Only), Skip: checkIDs(o.Skip), ImageMaxDimensionPx: a.settings.ImageMaxDimensionPx}
	if err := knownCheckIDs(opts); err != nil {
		return nil, err
	}
	sel, err := opts.Selection()
	if err != nil {
		return nil, usageErrorf("check: %v", err)
	}
	provider, err := newProviderRun(a, o.provider, opts, &sel)
	if err != nil {
		return nil, err
	}
	r := &checkRun{app: a, sel: sel, opts: opts, threshold: threshold, json: format == "json", provider: provider}
	if !r.json && !o.All {
		r.limit = textLimit
		r.opts.Limit = textLimit
	}
	r.fileOpts = r.opts
	if r.json {
		r.fileOpts.SpillAbove = spillFindingsAbove
	}
	return r, nil
}

// spillFindingsAbove is the number of findings of one file `check --format
// json` holds in memory (a few MiB of them) before it moves them to a temp
// file: a file of millions of malformed lines has millions of findings,
// all in the document.
var spillFindingsAbove = 1 << 16 // tests lower it

// knownCheckIDs refuses an unknown id in --only or --skip, naming the
// nearest known one.
func knownCheckIDs(opts check.Options) error {
	for _, f := range []struct {
		flag string
		ids  []check.ID
	}{{"--only", opts.Only}, {"--skip", opts.Skip}} {
		for _, id := range f.ids {
			if _, ok := check.Lookup(id); !ok {
				return checkIDError(f.flag, id)
			}
		}
	}
	return nil
}

func checkIDs(args []string) []check.ID {
	var out []check.ID
	for _, s := range args {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, check.ID(s))
		}
	}
	return out
}

// run checks the inputs, several at a time, and reports them in input
// order as they complete.
func (r *checkRun) run(ctx context.Context, d discovery) error {
	a := r.app
	sum := report.Summary{Files: d.files(), StoreSessions: d.Sessions, SkippedFiles: d.Skipped, ChecksRun: r.sel.Run,
		ChecksSkipped: r.sel.Skipped, Threshold: r.threshold}
	if len(d.Databases) > 0 {
		run, skipped := r.opts.StoreCounts()
		sum.ChecksRun += run
		sum.ChecksSkipped += skipped
	}
	text := report.NewText(a.Out, report.TextOptions{Color: useColor(a)})
	js := jsonOutput{stream: report.NewJSONStream(a.Out, sum)}
	readable := 0
	i := -1 // the input of res
	for res := range check.InOrder(len(d.Inputs), func(i int) check.Result {
		res := r.checkOne(ctx, d.Inputs[i])
		if r.progress != nil {
			return r.provider.add(withoutReadCounter(ctx), i, d.Inputs[i], res) // the line pass counted the bytes
		}
		return r.provider.add(ctx, i, d.Inputs[i], res)
	}) {
		if ctx.Err() != nil {
			break // interrupted: a read cut short by the signal is no finding
		}
		i++
		r.progress.fileDone()
		if !res.Unreadable {
			readable++
		}
		if r.json { // the stream applies the threshold: no copy of a file's findings
			sum.CountOmitted(report.ShownOmitted(res.Omitted, r.threshold))
			js.add(&sum, res.All(), !res.Unreadable, r.threshold)
			continue
		}
		fs := report.Shown(res.Findings, r.threshold)
		omitted := report.ShownOmitted(res.Omitted, r.threshold)
		sum.Count(fs)
		sum.CountOmitted(omitted)
		if r.app.ui.Quiet { // counted above; printed only when they are errors
			fs, omitted = report.Shown(fs, check.Error), report.ShownOmitted(omitted, check.Error)
		}
		r.provider.printFindings(text, i, d.Inputs[i], res.Path, fs, omitted, r.limit)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if readable == 0 && len(d.Inputs) > 0 {
		return r.noInput(text, sum, &js)
	}
	if r.json {
		if err := js.stream.Close(sum); err != nil {
			return err
		}
	} else {
		text.Summary(sum)
		if err := text.Err(); err != nil {
			return err
		}
	}
	if sum.Failed() {
		return errFindings
	}
	return nil
}

// jsonOutput streams check's JSON document as the files' results arrive.
// Until a file has been read, the findings are held (a few per unreadable
// file): a run that reads nothing prints a failure document naming the
// first of them instead (see noInput).
type jsonOutput struct {
	stream *report.JSONStream
	held   []check.Finding // shown findings of the unreadable files before the first readable one
	open   bool            // a file was read: findings go to the stream
}

func (j *jsonOutput) add(sum *report.Summary, fs iter.Seq[check.Finding], readable bool, threshold check.Severity) {
	if !j.open && !readable {
		for f := range fs {
			sum.Count([]check.Finding{f})
			j.held = append(j.held, report.Shown([]check.Finding{f}, threshold)...)
		}
		return
	}
	if !j.open {
		j.open = true
		j.stream.Add(j.held)
		j.held = nil
	}
	for f := range fs {
		one := []check.Finding{f}
		sum.Count(one)
		j.stream.Add(one)
	}
}

// noInput ends a run where nothing could be read (exit 2). The JSON
// document lists the findings of the unreadable inputs with their own
// check ids, as text does.
func (r *checkRun) noInput(text *report.Text, sum report.Summary, js *jsonOutput) error {
	msg := "no input could be read"
	if r.json {
		js.stream.Add(js.held)
		if err := js.stream.Close(sum); err != nil {
			return err
		}
	} else {
		text.Summary(sum)
	}
	return &unreadableError{err: errors.New(msg)}
}

// checkOne opens and checks one input.
func (r *checkRun) checkOne(ctx context.Context, in input) check.Result {
	if ctx.Err() != nil {
		return check.Result{Path: in.Path}
	}
	if in.Stdin {
		return check.Run(ctx, r.app.In, "-", -1, r.sel, r.fileOpts)
	}
	if in.Store != nil {
		return r.checkStore(ctx, in.Store)
	}
	if f := r.provider.spooled(in.Path); f != nil { // a pipe, read twice
		return check.Run(ctx, io.NewSectionReader(f, 0, 1<<62), in.Path, -1, r.sel, r.fileOpts)
	}
	if note, ok := check.NonTranscript(in.Path); ok {
		res := check.Result{Path: in.Path, NotTranscript: true}
		if r.sel.Enabled(note.ID) {
			res.Findings = []check.Finding{note}
		}
		return res
	}
	f, err := openInput(ctx, in.Path)
	if err != nil {
		return check.Unopened(in.Path, err, r.sel)
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	res := check.Run(ctx, f, in.Path, size, r.sel, r.fileOpts)
	notes := check.SideNotes(in.Path, r.sel)
	if note, ok := check.BackupNote(in.Path, r.sel); ok {
		notes = []check.Finding{note} // a backup's own lock and backups are no session's
	}
	if len(notes) > 0 && !res.Unreadable {
		res.Prepend(notes)
	}
	return res
}

// useColor: colour only on a terminal, never with NO_COLOR or TERM=dumb;
// --color always forces it (NO_COLOR still wins), never disables it.
func useColor(a *app) bool {
	if a.getenv("NO_COLOR") != "" {
		return false
	}
	switch a.settings.Color {
	case "always":
		return true
	case "never":
		return false
	}
	return a.OutIsTerminal && a.getenv("TERM") != "dumb"
}
