package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

const configLong = `Print the effective settings and where each came from.

Each setting is taken from the first of these that sets it:
  1. a flag                  --image-max-dimension-px, --state-dir, --color,
                             --format, --severity-min
  2. the environment         OPENCLAW_DOCTOR_IMAGE_MAX_DIMENSION_PX,
                             OPENCLAW_DOCTOR_STATE_DIR (then OpenClaw's own
                             OPENCLAW_STATE_DIR), OPENCLAW_DOCTOR_COLOR,
                             OPENCLAW_DOCTOR_FORMAT, OPENCLAW_DOCTOR_SEVERITY_MIN
  3. our config file         --config, else $XDG_CONFIG_HOME/openclaw-doctor/config.yaml
                             (else ~/.config/openclaw-doctor/config.yaml); keys
                             imageMaxDimensionPx, stateDir, color, format, severityMin
  4. OpenClaw's config       $OPENCLAW_CONFIG_PATH, else openclaw.json in the state
                             folder (JSON5); only agents.defaults.imageMaxDimensionPx
  5. the defaults            1200, ~/.openclaw, auto, text, warning

A malformed config file or an invalid value is an error naming the file
and line (exit 2); nothing falls back to a default silently.

--format json prints {"settings":[{name, value, source, origin, note}],
"configFile":{path, found}, "openclawConfig":{path, found}}; source is one
of flag, env, config-file, openclaw-config, default.
` + exitStatusHelp

func newConfigCmd(a *app) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective settings and where each came from",
		Long:  configLong,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f := a.settings.Format; f != "" {
				format = f
			}
			switch format {
			case "text":
				return printSettingsText(a.Out, a.settings)
			case "json":
				return printSettingsJSON(a.Out, a.settings)
			}
			return usageErrorf("config: --format must be text or json, not %q", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// printSettingsText prints one line per setting (name, value, source,
// origin), then the config files looked for.
func printSettingsText(w io.Writer, s *settings) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, o := range s.origins {
		value := fmt.Sprint(o.Value)
		if o.Key == "format" && value == "" {
			value = "text"
		}
		if o.Origin == "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", o.Key, value, o.Source)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Key, value, o.Source, o.Origin)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, o := range s.origins {
		if o.Note != "" {
			fmt.Fprintf(w, "note: %s\n", o.Note)
		}
	}
	fmt.Fprintf(w, "config file: %s\n", describeFile(s.ConfigFile))
	fmt.Fprintf(w, "openclaw config: %s\n", describeFile(s.OpenClawConfig))
	return nil
}

func describeFile(f configFileInfo) string {
	if f.Found {
		return f.Path
	}
	return f.Path + " (not found)"
}

// printSettingsJSON prints the settings as one JSON document.
func printSettingsJSON(w io.Writer, s *settings) error {
	doc := struct {
		Settings       []settingOrigin `json:"settings"`
		ConfigFile     configFileInfo  `json:"configFile"`
		OpenClawConfig configFileInfo  `json:"openclawConfig"`
	}{s.origins, s.ConfigFile, s.OpenClawConfig}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
