// Package cmd wires openclaw-doctor's commands: flags, configuration,
// files, signals and streams. The work itself lives in internal/, and so
// does the rendering (internal/report). Errors say what went wrong (usage,
// unreadable input, findings, a refusal, an interruption: errors.go), and
// only exitCode, through Main, turns them into exit statuses.
package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitStatusHelp is appended to every command's Long help.
const exitStatusHelp = `
EXIT STATUS
  0    clean: nothing found at or above the threshold, or the work succeeded
  1    findings at or above the threshold, or a file could not be repaired
  2    usage error, or a runtime error before the work completed
  130  interrupted
Treat any other status as a failure.`

// streams are the standard streams a command reads and writes.
type streams struct {
	In       io.Reader
	Out, Err io.Writer
	// OutIsTerminal is true when Out is a terminal (colour and text defaults).
	OutIsTerminal bool
	// ErrIsTerminal is true when Err is a terminal (the progress line).
	ErrIsTerminal bool
	// InIsTerminal is true when In is a terminal: only then may a command
	// ask a question (fix's sweep prompt).
	InIsTerminal bool
}

// interaction holds the root flags that say how much to print and whether
// to ask: --quiet, --yes, --non-interactive. It is the one place commands
// (and anything that draws on the terminal, such as a progress display)
// read them.
type interaction struct {
	// Quiet (--quiet, -q): print only errors and the closing summary.
	Quiet bool
	// Yes (--yes, -y): answer yes to every question.
	Yes bool
	// NonInteractive (--non-interactive): never ask; a question's default
	// is taken as OpenClaw's doctor takes it (fix proceeds with a sweep).
	NonInteractive bool
}

// mayAsk reports whether a command may put a question to the user on
// standard input.
func (a *app) mayAsk() bool {
	return a.InIsTerminal && !a.ui.Yes && !a.ui.NonInteractive
}

// app is what every command shares: streams, the environment and the
// effective settings.
type app struct {
	streams
	getenv   func(string) string
	settings *settings
	ui       interaction
}

// Main runs openclaw-doctor with the process's arguments and streams and
// returns the exit status.
//
// SIGINT and SIGTERM are caught from its first statement on (exit 130). A
// signal that arrives earlier, in the few milliseconds the Go runtime and
// the packages' initialisation take, meets the system's default action:
// the process dies of it, and a shell reports 130 for SIGINT but 143 for
// SIGTERM. No handler can be installed before that point; a caller that
// sends SIGTERM right after starting the command sees 143.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, OutIsTerminal: isTerminal(os.Stdout),
		ErrIsTerminal: isTerminal(os.Stderr), InIsTerminal: isTerminal(os.Stdin)}
	return run(ctx, os.Args[1:], s, os.Getenv)
}

// run executes one invocation; tests call it in-process.
func run(ctx context.Context, args []string, s streams, getenv func(string) string) int {
	s.In = cancelOnDone(ctx, s.In) // a read waiting on an idle standard input ends with ctx
	a := &app{streams: s, getenv: getenv}
	root := newRootCmd(a)
	args, err := doctorSpellings(root, args)
	if err != nil {
		return exitCode(err, s.Err, root.CommandPath())
	}
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	ran, err := root.ExecuteContextC(ctx)
	if ctx.Err() != nil && err != nil {
		err = fmt.Errorf("%w: %w", errInterrupted, err)
	}
	return exitCode(err, s.Err, helpCommand(root, ran))
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "openclaw-doctor",
		Short: "Check, repair and replay OpenClaw session transcripts",
		Long: `openclaw-doctor checks OpenClaw session transcripts (JSONL files) for the damage
that makes providers reject a session, repairs the durable records on disk
exactly as OpenClaw's own session-file repair does, and shows the message list
OpenClaw would send to a given provider.

OpenClaw's doctor spellings work too: openclaw-doctor --fix (or --repair)
runs fix, and openclaw-doctor --lint runs check, on the sessions of the
local install or on the FILE|DIR arguments that follow, with the command's
flags (--dry-run, --json, --yes, ...).
` + exitStatusHelp,
		Version:           version(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.loadSettings(cmd) },
	}
	root.SetVersionTemplate("openclaw-doctor {{.Version}}\n")
	root.SetHelpFunc(printHelp)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	a.addGlobalFlags(root)
	a.addInteractionFlags(root)
	root.AddCommand(newCheckCmd(a), newFixCmd(a), newReplayCmd(a), newExportCmd(a), newSessionsCmd(a), newConfigCmd(a), newCompletionCmd(a),
		newChecksCmd(a), newVersionCmd(a))
	completeFlagValues(root)
	return root
}

// addInteractionFlags registers --quiet, --yes and --non-interactive for
// every command, and the root's doctor spellings for help (doctorSpellings
// acts on them before the command line is parsed).
func (a *app) addInteractionFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.BoolVarP(&a.ui.Quiet, "quiet", "q", false, "print only errors and the closing summary")
	pf.BoolVarP(&a.ui.Yes, "yes", "y", false, "answer yes to every question (fix: repair a sweep without asking)")
	pf.BoolVar(&a.ui.NonInteractive, "non-interactive", false, "never ask; a fix sweep proceeds without --yes, as OpenClaw's doctor --non-interactive does")
	fs := root.Flags()
	fs.Bool("fix", false, "run fix: openclaw-doctor --fix [flags] [FILE|DIR]...")
	fs.Bool("repair", false, "the same as --fix")
	fs.Bool("lint", false, "run check: openclaw-doctor --lint [flags] [FILE|DIR]...")
}

// doctorSpellings turns OpenClaw's doctor spellings into commands:
// "--fix ARGS" and "--repair ARGS" become "fix ARGS", "--lint ARGS"
// "check ARGS", wherever the spelling stands before a "--" and before any
// command name. Other command lines are returned as they are.
func doctorSpellings(root *cobra.Command, args []string) ([]string, error) {
	command, at, end := "", -1, len(args)
	for i, arg := range args {
		if arg == "--" {
			end = i
			break
		}
		var c string
		switch arg {
		case "--fix", "--repair":
			c = "fix"
		case "--lint":
			c = "check"
		default:
			continue
		}
		if command != "" && c != command {
			return nil, usageErrorf("%s and %s cannot be combined", args[at], arg)
		}
		if command == "" {
			command, at = c, i
		}
	}
	if command == "" || holdsCommand(root, args[:at]) {
		return args, nil
	}
	out := []string{command}
	for i, arg := range args {
		if i >= end || (arg != "--fix" && arg != "--repair" && arg != "--lint") {
			out = append(out, arg)
		}
	}
	return out, nil
}

// holdsCommand reports whether args, the words before a doctor spelling,
// name a command (then the spelling is that command's, e.g. fix --repair).
func holdsCommand(root *cobra.Command, args []string) bool {
	for _, arg := range args {
		for _, c := range root.Commands() {
			if c.Name() == arg || c.HasAlias(arg) {
				return true
			}
		}
	}
	return false
}

// addJSONFlag registers --json, the same as --format json (loadSettings
// reads it as the format setting).
func addJSONFlag(fs *pflag.FlagSet) { fs.Bool("json", false, "the same as --format json") }
