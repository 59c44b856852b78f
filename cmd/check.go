package cmd

import "github.com/spf13/cobra"

func newCheckCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:  "check",
		Long: "placeholder\n" + exitStatusHelp,
		RunE: func(cmd *cobra.Command, args []string) error { return usageErrorf("check: not available yet") },
	}
}
