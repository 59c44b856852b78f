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

// errFindings means the command already reported what it found and only the
// exit status is left to set (1).
var errFindings = errors.New("findings reported")

// errInterrupted marks a run stopped by SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// usageError is a mistake in the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitError carries an explicit exit status, with a message already printed
// when err is nil.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitCode is the one place that maps an error to an exit status and prints
// it. Output voice: "openclaw-doctor: " prefix, lowercase, no final period.
func exitCode(err error, stderr io.Writer) int {
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "openclaw-doctor: interrupted")
		return exitInterrupted
	case errors.Is(err, errFindings):
		return exitFindings
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "openclaw-doctor: %s\nhint: run 'openclaw-doctor --help' for usage\n", ue.msg)
		return exitUsage
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(stderr, "openclaw-doctor: %s\n", ee.err)
		}
		return ee.code
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") {
		fmt.Fprintf(stderr, "openclaw-doctor: %s\nhint: run 'openclaw-doctor --help' for usage\n", msg)
		return exitUsage
	}
	fmt.Fprintf(stderr, "openclaw-doctor: %s\n", msg)
	return exitUsage
}

// exactArgs and friends wrap cobra's argument checks as usage errors.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return usageErrorf("%s: %v", cmd.Name(), err)
		}
		return nil
	}
}
