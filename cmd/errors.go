package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// The exit statuses, documented in every command's help (exitStatusHelp).
const (
	exitOK          = 0
	exitFindings    = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// Errors say what went wrong, not which status it earns: exitCode alone
// maps each kind below to its exit status. A kind with a nil err means the
// command already reported what happened and only the status is left.

// usageError is a mistake in the command line (exit 2, with a hint).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// unreadableError is input the run could not read or use — a session, a
// sessions folder, standard input, a config file or a setting's value —
// or another failure before the work completed (exit 2). Settings are
// reported this way, without the usage hint, because most of them come
// from files and variables rather than the command line.
type unreadableError struct{ err error }

func (e *unreadableError) Error() string { return errorText(e.err, "no input could be read") }
func (e *unreadableError) Unwrap() error { return e.err }

// findingsError is what a completed run found: findings at or above the
// threshold, a file that could not be repaired (exit 1).
type findingsError struct{ err error }

func (e *findingsError) Error() string { return errorText(e.err, "findings reported") }
func (e *findingsError) Unwrap() error { return e.err }

// refusedError is a session OpenClaw would refuse to send: its loader
// rejects the file, or its replay hygiene rejects the history (exit 1).
type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// errFindings means the command already reported what it found.
var errFindings error = &findingsError{}

// errNoInput means the command already reported that none of its inputs
// could be read.
var errNoInput error = &unreadableError{}

// errInterrupted marks a run stopped by SIGINT or SIGTERM (exit 130).
var errInterrupted = errors.New("interrupted")

func errorText(err error, reported string) string {
	if err == nil {
		return reported
	}
	return err.Error()
}

// exitCode is the one place that maps an error to an exit status and prints
// it. Output voice: "openclaw-doctor: " prefix, lowercase, no final period.
// A usage error points to the help of command, the one that was run
// ("openclaw-doctor check").
func exitCode(err error, stderr io.Writer, command string) int {
	var (
		usage      *usageError
		unreadable *unreadableError
		findings   *findingsError
		refused    *refusedError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "openclaw-doctor: interrupted")
		return exitInterrupted
	case errors.As(err, &usage):
		printUsage(stderr, usage.msg, command)
		return exitUsage
	case errors.As(err, &findings):
		printCause(stderr, findings.err)
		return exitFindings
	case errors.As(err, &refused):
		printCause(stderr, refused.err)
		return exitFindings
	case errors.As(err, &unreadable):
		printCause(stderr, unreadable.err)
		return exitUsage
	}
	// Errors of cobra's own parsing, and failures no kind names (writing
	// the output, for one): the work did not complete.
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") {
		printUsage(stderr, msg, command)
		return exitUsage
	}
	fmt.Fprintf(stderr, "openclaw-doctor: %s\n", msg)
	return exitUsage
}

func printUsage(stderr io.Writer, msg, command string) {
	fmt.Fprintf(stderr, "openclaw-doctor: %s\nhint: run '%s --help' for usage\n", msg, command)
}

// printCause prints err unless the command already reported it (nil).
func printCause(stderr io.Writer, err error) {
	if err != nil {
		fmt.Fprintf(stderr, "openclaw-doctor: %s\n", err)
	}
}

// exactArgs and maxArgs wrap cobra's argument checks as usage errors.
func exactArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.ExactArgs(n)) }

func maxArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.MaximumNArgs(n)) }

func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageErrorf("%s: %v", cmd.Name(), err)
		}
		return nil
	}
}
