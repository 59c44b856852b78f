package cmd

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpEndsWithExitStatus: every command's help ends with its EXIT
// STATUS section, after the usage and the flags.
func TestHelpEndsWithExitStatus(t *testing.T) {
	root := newRootCmd(&app{streams: streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, getenv: func(string) string { return "" }})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var b bytes.Buffer
		c.SetOut(&b)
		printHelp(c, nil)
		help := b.String()
		exit := strings.LastIndex(help, exitStatusHeading)
		_, want := splitExitStatus(c.Long)
		switch {
		case exit < 0:
			t.Errorf("%s --help has no EXIT STATUS section", c.CommandPath())
		case strings.TrimRight(help[exit:], "\n") != strings.TrimRight(want, "\n"):
			t.Errorf("%s --help does not end with its EXIT STATUS section:\n%s", c.CommandPath(), help[exit:])
		case !strings.Contains(help[:exit], "Usage:"):
			t.Errorf("%s --help prints EXIT STATUS before the usage", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
