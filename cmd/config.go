package cmd

import (
	"strconv"

	"github.com/spf13/cobra"
)

// settings are the effective configuration values shared by commands.
// Commands read them after loadSettings ran (PersistentPreRunE).
type settings struct {
	ImageMaxDimensionPx int    // agents.defaults.imageMaxDimensionPx (default 1200)
	StateDir            string // OPENCLAW_STATE_DIR, "" = ~/.openclaw
	Color               string // auto, always, never
	Format              string // "", text, json ("" = text; commands choose)
	SeverityMin         string // info, warning, error
}

// addGlobalFlags registers the flags every command shares.
func (a *app) addGlobalFlags(root *cobra.Command) {
	root.PersistentFlags().String("color", "auto", "colour: auto, always or never (NO_COLOR disables it)")
	root.PersistentFlags().String("config", "", "config file (default $XDG_CONFIG_HOME/openclaw-doctor/config.yaml)")
}

// loadSettings resolves the settings: flags, then environment, then defaults.
func (a *app) loadSettings(cmd *cobra.Command) error {
	s := &settings{ImageMaxDimensionPx: 1200, Color: "auto", SeverityMin: "warning"}
	if v := a.getenv("OPENCLAW_STATE_DIR"); v != "" {
		s.StateDir = v
	}
	if v := a.getenv("OPENCLAW_DOCTOR_IMAGE_MAX_DIMENSION_PX"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return usageErrorf("OPENCLAW_DOCTOR_IMAGE_MAX_DIMENSION_PX: %q is not a positive integer", v)
		}
		s.ImageMaxDimensionPx = n
	}
	for name, dst := range map[string]*string{"color": &s.Color, "format": &s.Format, "severity-min": &s.SeverityMin} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			*dst = f.Value.String()
		}
	}
	a.settings = s
	return nil
}

func newConfigCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective settings and where each came from",
		Long:  "Print the effective settings and where each came from.\n" + exitStatusHelp,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("config: not available yet")
		},
	}
}
