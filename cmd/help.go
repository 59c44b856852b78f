package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// exitStatusHeading starts the exit status section of a command's Long
// help (exitStatusHelp, and what a command adds after it).
const exitStatusHeading = "\nEXIT STATUS\n"

// printHelp prints a command's help as cobra does, except that the EXIT
// STATUS section of its Long text comes last, after the flags, where the
// README says every help ends. A command without one gets exitStatusHelp.
func printHelp(c *cobra.Command, _ []string) {
	body, exit := splitExitStatus(c.Long)
	if body == "" {
		body = c.Short
	}
	w := c.OutOrStdout()
	if body = strings.TrimRight(body, " \t\n"); body != "" {
		fmt.Fprintf(w, "%s\n\n", body)
	}
	if c.Runnable() || c.HasSubCommands() {
		fmt.Fprint(w, c.UsageString())
	}
	fmt.Fprintf(w, "%s\n", strings.TrimRight(exit, " \t\n"))
}

// splitExitStatus splits a Long help into its description and its exit
// status section (exitStatusHelp when it has none).
func splitExitStatus(long string) (body, exit string) {
	i := strings.Index(long, exitStatusHeading)
	if i < 0 {
		return long, exitStatusHelp
	}
	return long[:i], long[i:]
}

// helpCommand names the command whose help a usage error points to: the
// one that ran, or the root when none was found.
func helpCommand(root, ran *cobra.Command) string {
	if ran == nil {
		ran = root
	}
	return ran.CommandPath()
}
