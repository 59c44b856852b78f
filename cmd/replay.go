package cmd

import "github.com/spf13/cobra"

func newReplayCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:  "replay",
		Long: "placeholder\n" + exitStatusHelp,
		RunE: func(cmd *cobra.Command, args []string) error { return usageErrorf("replay: not available yet") },
	}
}
