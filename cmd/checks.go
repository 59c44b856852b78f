package cmd

import (
	"github.com/spf13/cobra"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
)

const checksLong = `checks lists every check id openclaw-doctor can report, with its severity,
whether "openclaw-doctor fix" repairs what it finds ("fix"), and what it finds:
the transcript checks, the store checks (OpenClaw 2026.9's SQLite store) and
the replay checks of "check --provider". These are the ids --only and --skip
take. --format json adds each check's fix hint.
` + exitStatusHelp

func newChecksCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List every check id with its severity",
		Long:  checksLong,
		Args:  exactArgs(0),
		RunE:  func(cmd *cobra.Command, _ []string) error { return listChecks(a, "checks") },
	}
	cmd.Flags().String("format", "text", "output format: text or json")
	addJSONFlag(cmd.Flags())
	return cmd
}

// listChecks prints the check catalogue in the configured format; it serves
// both the checks command and check --list.
func listChecks(a *app, command string) error {
	switch format := a.settings.Format; format {
	case "", "text":
		return report.ChecksText(a.Out, check.All())
	case "json":
		return report.ChecksJSON(a.Out, check.All())
	default:
		return usageErrorf("%s: --format must be text or json, not %q", command, format)
	}
}
