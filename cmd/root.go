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
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"
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
}

// app is what every command shares: streams, the environment and the
// effective settings.
type app struct {
	streams
	getenv   func(string) string
	settings *settings
}

// Main runs openclaw-doctor with the process's arguments and streams and
// returns the exit status.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, OutIsTerminal: isTerminal(os.Stdout),
		ErrIsTerminal: isTerminal(os.Stderr)}
	return run(ctx, os.Args[1:], s, os.Getenv)
}

// run executes one invocation; tests call it in-process.
func run(ctx context.Context, args []string, s streams, getenv func(string) string) int {
	s.In = cancelOnDone(ctx, s.In) // a read waiting on an idle standard input ends with ctx
	a := &app{streams: s, getenv: getenv}
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	err := root.ExecuteContext(ctx)
	if ctx.Err() != nil && err != nil {
		err = fmt.Errorf("%w: %w", errInterrupted, err)
	}
	return exitCode(err, s.Err)
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "openclaw-doctor",
		Short: "Check, repair and replay OpenClaw session transcripts",
		Long: `openclaw-doctor checks OpenClaw session transcripts (JSONL files) for the damage
that makes providers reject a session, repairs the durable records on disk
exactly as OpenClaw's own session-file repair does, and shows the message list
OpenClaw would send to a given provider.
` + exitStatusHelp,
		Version:           version(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return a.loadSettings(cmd) },
	}
	root.SetVersionTemplate("openclaw-doctor {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErrorf("%v", err) })
	a.addGlobalFlags(root)
	root.AddCommand(newCheckCmd(a), newFixCmd(a), newReplayCmd(a), newExportCmd(a), newSessionsCmd(a), newConfigCmd(a), newCompletionCmd(a))
	return root
}

// version is the module version from the build info ("(devel)" for a
// source build), with the VCS revision when known.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

func newCompletionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script",
		Long:      "Print a completion script for the named shell to standard output.\n" + exitStatusHelp,
		Args:      exactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(a.Out, true)
			case "zsh":
				return root.GenZshCompletion(a.Out)
			case "fish":
				return root.GenFishCompletion(a.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(a.Out)
			}
			return usageErrorf("unknown shell %q (want bash, zsh, fish or powershell)", args[0])
		},
	}
}
