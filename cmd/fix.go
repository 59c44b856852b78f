package cmd

import "github.com/spf13/cobra"

func newFixCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:  "fix",
		Long: "placeholder\n" + exitStatusHelp,
		RunE: func(cmd *cobra.Command, args []string) error { return usageErrorf("fix: not available yet") },
	}
}
