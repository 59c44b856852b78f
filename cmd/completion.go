package cmd

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
)

func newCompletionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for the named shell to standard output. It
completes commands, flags, and the values of --provider, --format, --only,
--skip, --severity-min and --color.

  bash:  source <(openclaw-doctor completion bash)
  zsh:   openclaw-doctor completion zsh > "${fpath[1]}/_openclaw-doctor"
  fish:  openclaw-doctor completion fish > ~/.config/fish/completions/openclaw-doctor.fish

Release archives carry these scripts in completions/.
` + exitStatusHelp,
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

// flagValues are the values shell completion offers for a flag, by flag
// name, wherever a command defines it.
var flagValues = map[string]func(c *cobra.Command) []string{
	"format":       func(*cobra.Command) []string { return []string{"text\tfor people", "json\tfor programs"} },
	"severity-min": func(*cobra.Command) []string { return []string{"info", "warning", "error"} },
	"color":        func(*cobra.Command) []string { return []string{"auto\ton a terminal", "always", "never"} },
	"provider":     providerValues,
	"only":         checkIDValues,
	"skip":         checkIDValues,
}

// listFlags take comma-separated values: completion continues the list.
var listFlags = map[string]bool{"only": true, "skip": true}

// completeFlagValues registers the completion of flagValues' flags on every
// command of the tree that defines them (root's persistent flags on root).
func completeFlagValues(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, values := range flagValues {
			if c.LocalNonPersistentFlags().Lookup(name) == nil && c.PersistentFlags().Lookup(name) == nil {
				continue
			}
			fn := fixedValues(values)
			if listFlags[name] {
				fn = listValues(values)
			}
			_ = c.RegisterFlagCompletionFunc(name, fn) // fails only for a name registered twice
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func fixedValues(values func(*cobra.Command) []string) cobra.CompletionFunc {
	return func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return values(c), cobra.ShellCompDirectiveNoFileComp
	}
}

// listValues completes the last item of a comma-separated list, offering
// the values not already in it.
func listValues(values func(*cobra.Command) []string) cobra.CompletionFunc {
	return func(c *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		prefix := toComplete[:strings.LastIndex(toComplete, ",")+1]
		given := strings.Split(prefix, ",")
		var out []string
		for _, v := range values(c) {
			if id, _, _ := strings.Cut(v, "\t"); !slices.Contains(given, id) {
				out = append(out, prefix+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// providerValues are the providers the replay knows (the list an unknown
// --provider's warning prints), and, for check, "all".
func providerValues(c *cobra.Command) []string {
	var out []string
	if c.Name() == "check" {
		out = append(out, check.ProviderAll+"\tevery provider family, as a matrix")
	}
	return append(out, hygiene.KnownProviders()...)
}

// checkIDValues are every check id, described by its severity.
func checkIDValues(*cobra.Command) []string {
	var out []string
	for _, c := range check.All() {
		out = append(out, string(c.ID)+"\t"+c.Severity.String())
	}
	return out
}
