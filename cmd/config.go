package cmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// settings are the effective configuration values shared by commands.
// Commands read them after loadSettings ran (PersistentPreRunE).
type settings struct {
	ImageMaxDimensionPx int    // agents.defaults.imageMaxDimensionPx (default 1200)
	StateDir            string // OpenClaw's state folder, resolved and absolute (default ~/.openclaw)
	Color               string // auto, always, never
	Format              string // "", text, json ("" = text; commands choose)
	SeverityMin         string // info, warning, error

	// Where each value came from, in settingDefs order, and the files
	// consulted; printed by `openclaw-doctor config`.
	origins        []settingOrigin
	ConfigFile     configFileInfo // our own config file
	OpenClawConfig configFileInfo // OpenClaw's openclaw.json
}

// A setting's source, highest precedence first.
const (
	sourceFlag     = "flag"
	sourceEnv      = "env"
	sourceFile     = "config-file"
	sourceOpenClaw = "openclaw-config"
	sourceDefault  = "default"
)

// settingOrigin says where one effective value came from.
type settingOrigin struct {
	Key    string `json:"name"`
	Value  any    `json:"value"`
	Source string `json:"source"`           // one of the source* constants
	Origin string `json:"origin,omitempty"` // flag, variable, file (and key) it came from
	Note   string `json:"note,omitempty"`   // e.g. an ignored OpenClaw value
}

// configFileInfo describes a config file that was looked for.
type configFileInfo struct {
	Path  string `json:"path"`
	Found bool   `json:"found"`
}

// settingDef declares one setting: its key (in our config file and in
// `config` output), flag, environment variables (first set one wins), its
// place in OpenClaw's config (nil when OpenClaw has none), default, and the
// parser that validates and converts a raw value.
type settingDef struct {
	key          string
	flag         string
	envs         []string
	openclawPath []string
	def          func(c *loadContext) any
	parse        func(c *loadContext, raw any) (any, error)
	set          func(s *settings, v any)
	// flagUnchecked leaves a flag's value to the command that owns the
	// flag (--format: each command knows its own formats).
	flagUnchecked bool
}

// settingDefs lists the settings in the order `config` prints them. The
// state folder comes first because OpenClaw's config is found through it.
var settingDefs = []settingDef{
	{
		key: "stateDir", flag: "state-dir",
		envs:  []string{"OPENCLAW_DOCTOR_STATE_DIR", "OPENCLAW_STATE_DIR"},
		def:   func(c *loadContext) any { return c.defaultStateDir() },
		parse: func(c *loadContext, raw any) (any, error) { return c.parsePath(raw) },
		set:   func(s *settings, v any) { s.StateDir = v.(string) },
	},
	{
		key: "imageMaxDimensionPx", flag: "image-max-dimension-px",
		envs:         []string{"OPENCLAW_DOCTOR_IMAGE_MAX_DIMENSION_PX"},
		openclawPath: []string{"agents", "defaults", "imageMaxDimensionPx"},
		def:          func(*loadContext) any { return 1200 },
		parse:        func(_ *loadContext, raw any) (any, error) { return parsePositiveInt(raw) },
		set:          func(s *settings, v any) { s.ImageMaxDimensionPx = v.(int) },
	},
	{
		key: "color", flag: "color", envs: []string{"OPENCLAW_DOCTOR_COLOR"},
		def:   func(*loadContext) any { return "auto" },
		parse: oneOf("auto", "always", "never"),
		set:   func(s *settings, v any) { s.Color = v.(string) },
	},
	{
		key: "format", flag: "format", envs: []string{"OPENCLAW_DOCTOR_FORMAT"},
		def:           func(*loadContext) any { return "" },
		parse:         oneOf("text", "json"),
		set:           func(s *settings, v any) { s.Format = v.(string) },
		flagUnchecked: true,
	},
	{
		key: "severityMin", flag: "severity-min", envs: []string{"OPENCLAW_DOCTOR_SEVERITY_MIN"},
		def:   func(*loadContext) any { return "warning" },
		parse: oneOf("info", "warning", "error"),
		set:   func(s *settings, v any) { s.SeverityMin = v.(string) },
	},
}

// addGlobalFlags registers the flags every command shares. --format and
// --severity-min belong to the commands that use them; loadSettings reads
// them wherever they are defined.
func (a *app) addGlobalFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.String("color", "auto", "colour: auto, always or never (NO_COLOR disables it)")
	pf.String("config", "", "config file (default $XDG_CONFIG_HOME/openclaw-doctor/config.yaml)")
	pf.Int("image-max-dimension-px", 1200, "longest image side replayed, in pixels (OpenClaw's agents.defaults.imageMaxDimensionPx)")
	pf.String("state-dir", "", "OpenClaw's state folder (default $OPENCLAW_STATE_DIR, else ~/.openclaw)")
}

// loadSettings resolves every setting from, highest first: flags, the
// environment (OPENCLAW_DOCTOR_<NAME>, and OPENCLAW_STATE_DIR as OpenClaw
// reads it), our config file, OpenClaw's own config, and the defaults. A
// malformed file or value is an error (exit 2) naming where it came from;
// nothing falls back to a default silently.
func (a *app) loadSettings(cmd *cobra.Command) error {
	c := &loadContext{getenv: a.getenv, flags: cmd.Flags()}
	own, err := c.readOwnConfig()
	if err != nil {
		return err
	}
	s := &settings{ConfigFile: own.info}
	for _, d := range settingDefs {
		if d.key == "imageMaxDimensionPx" {
			// OpenClaw's config lives in the state folder resolved above.
			if c.openclaw, s.OpenClawConfig, err = c.readOpenClawConfig(s.StateDir); err != nil {
				return err
			}
		}
		o, err := c.resolve(d, own)
		if err != nil {
			return &unreadableError{err: err}
		}
		d.set(s, o.Value)
		s.origins = append(s.origins, o)
	}
	a.settings = s
	return nil
}

// resolve walks the layers for one setting and returns the first value set.
func (c *loadContext) resolve(d settingDef, own ownConfig) (settingOrigin, error) {
	o := settingOrigin{Key: d.key}
	raw, source, origin, found := c.lookupFlagOrEnv(d)
	if !found {
		raw, source, origin, found = own.lookup(d.key)
	}
	if found && source == sourceFlag && d.flagUnchecked {
		o.Value, o.Source, o.Origin = raw, source, origin
		return o, nil
	}
	if found {
		v, err := d.parse(c, raw)
		if err != nil {
			return o, fmt.Errorf("%s: %w", origin, err)
		}
		o.Value, o.Source, o.Origin = v, source, origin
		return o, nil
	}
	if d.openclawPath != nil {
		if v, origin, note, ok := c.openclawValue(d.openclawPath); ok {
			o.Value, o.Source, o.Origin = v, sourceOpenClaw, origin
			return o, nil
		} else {
			o.Note = note
		}
	}
	o.Value, o.Source = d.def(c), sourceDefault
	return o, nil
}

// lookupFlagOrEnv returns a changed flag's value, else the first set
// environment variable's.
func (c *loadContext) lookupFlagOrEnv(d settingDef) (raw any, source, origin string, found bool) {
	if f := c.flags.Lookup(d.flag); f != nil && f.Changed {
		return flagValue(f), sourceFlag, "--" + d.flag, true
	}
	if f := c.flags.Lookup("json"); d.key == "format" && f != nil && f.Changed && f.Value.String() == "true" {
		return "json", sourceFlag, "--json", true // --json is --format json
	}
	for _, name := range d.envs {
		if v := c.getenv(name); strings.TrimSpace(v) != "" {
			return v, sourceEnv, name, true
		}
	}
	return nil, "", "", false
}

func flagValue(f *pflag.Flag) any { return f.Value.String() }

// maxConfigInt is the largest count a setting takes: 2^31, or 2^31-1
// where an int has 32 bits.
const maxConfigInt = min(1<<31, math.MaxInt)

// parsePositiveInt accepts an integer ≥ 1 given as a number or as decimal
// text, up to maxConfigInt.
func parsePositiveInt(raw any) (any, error) {
	var n int64
	switch v := raw.(type) {
	case int:
		n = int64(v)
	case int64:
		n = v
	case uint64:
		if v > 1<<62 {
			return nil, fmt.Errorf("%d is too large", v)
		}
		n = int64(v)
	case float64:
		if v != float64(int64(v)) {
			return nil, fmt.Errorf("%v is not a whole number", v)
		}
		n = int64(v)
	case string:
		p, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a positive integer", v)
		}
		n = p
	default:
		return nil, fmt.Errorf("%v is not a positive integer", raw)
	}
	if n < 1 || n > maxConfigInt {
		return nil, fmt.Errorf("%d is out of range (1 to %d)", n, int64(maxConfigInt))
	}
	return int(n), nil
}

// oneOf returns a parser accepting exactly the given words.
func oneOf(words ...string) func(*loadContext, any) (any, error) {
	return func(_ *loadContext, raw any) (any, error) {
		s, ok := raw.(string)
		if ok {
			for _, w := range words {
				if s == w {
					return s, nil
				}
			}
		}
		return nil, fmt.Errorf("%v is not one of %s", quoteAny(raw), strings.Join(words, ", "))
	}
}

func quoteAny(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}
