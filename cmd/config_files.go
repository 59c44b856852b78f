package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"github.com/titanous/json5"
)

// loadContext is what resolving the settings needs: the environment, the
// command's flags, and OpenClaw's parsed config.
type loadContext struct {
	getenv   func(string) string
	flags    *pflag.FlagSet
	openclaw *openclawConfig // nil when there is none
}

// homeOptions choose what a home lookup honours beyond the user's home.
type homeOptions struct {
	// openclaw asks for OpenClaw's effective home: OPENCLAW_HOME when set
	// (not "undefined" or "null", as OpenClaw reads it), with ~ expanded
	// against the user's home, else the user's home; made absolute.
	// Settings resolve OpenClaw's paths against it, and the install
	// discovery of check and fix looks under it.
	openclaw bool
}

// homeDir is the user's home folder, HOME, else USERPROFILE, else the
// OS's; or OpenClaw's home with opts.openclaw.
func homeDir(getenv func(string) string, opts homeOptions) string {
	home := ""
	for _, name := range []string{"HOME", "USERPROFILE"} {
		if home = strings.TrimSpace(getenv(name)); home != "" {
			break
		}
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if !opts.openclaw {
		return home
	}
	if v := strings.TrimSpace(getenv("OPENCLAW_HOME")); v != "" && v != "undefined" && v != "null" {
		return absPath(expandTilde(v, home))
	}
	return absPath(home)
}

// home is the user's home folder (see homeDir).
func (c *loadContext) home() string { return homeDir(c.getenv, homeOptions{}) }

// openclawHome is OpenClaw's effective home (see homeOptions.openclaw).
func (c *loadContext) openclawHome() string { return homeDir(c.getenv, homeOptions{openclaw: true}) }

// expandTilde replaces a leading "~" followed by a separator or the end,
// as OpenClaw's expandHomePrefix does.
func expandTilde(p, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		return home + p[1:]
	}
	return p
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// parsePath trims a path, expands ~ against OpenClaw's home and makes it
// absolute (OpenClaw's resolveUserPath).
func (c *loadContext) parsePath(raw any) (any, error) {
	s, ok := raw.(string)
	if !ok || strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%v is not a path", quoteAny(raw))
	}
	return absPath(expandTilde(strings.TrimSpace(s), c.openclawHome())), nil
}

// defaultStateDir is OpenClaw's default state folder: ~/.openclaw, or the
// legacy ~/.clawdbot when only that one exists.
func (c *loadContext) defaultStateDir() string {
	home := c.openclawHome()
	current := filepath.Join(home, ".openclaw")
	if exists(current) {
		return current
	}
	if legacy := filepath.Join(home, ".clawdbot"); exists(legacy) {
		return legacy
	}
	return current
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ---- our own config file (read with viper) ----

// ownConfig is our config file's content.
type ownConfig struct {
	info configFileInfo
	v    *viper.Viper // nil when there is no file
}

// ownConfigPath is --config, else $XDG_CONFIG_HOME/openclaw-doctor/
// config.yaml (XDG_CONFIG_HOME must be absolute), else that file under
// ~/.config. explicit is true for --config.
func (c *loadContext) ownConfigPath() (path string, explicit bool) {
	if f := c.flags.Lookup("config"); f != nil && f.Value.String() != "" {
		return absPath(expandTilde(f.Value.String(), c.home())), true
	}
	dir := strings.TrimSpace(c.getenv("XDG_CONFIG_HOME"))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.home(), ".config")
	}
	return filepath.Join(dir, "openclaw-doctor", "config.yaml"), false
}

// readOwnConfig reads our config file. A missing default file is fine; a
// missing --config file, an unreadable or malformed file, or an unknown key
// is an error naming the file (and line when the parser gives one).
func (c *loadContext) readOwnConfig() (ownConfig, error) {
	path, explicit := c.ownConfigPath()
	own := ownConfig{info: configFileInfo{Path: path}}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && !explicit {
		return own, nil
	}
	v := viper.New()
	v.SetConfigFile(path)
	if ext := strings.TrimPrefix(filepath.Ext(path), "."); !knownConfigExt(ext) {
		v.SetConfigType("yaml")
	}
	if err := v.ReadInConfig(); err != nil {
		return own, &unreadableError{err: describeFileError(path, err)}
	}
	if err := checkKnownKeys(path, v.AllKeys()); err != nil {
		return own, &unreadableError{err: err}
	}
	own.info.Found, own.v = true, v
	return own, nil
}

func knownConfigExt(ext string) bool {
	for _, e := range viper.SupportedExts {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

// checkKnownKeys rejects keys that are not settings, so a typo is not
// silently ignored.
func checkKnownKeys(path string, keys []string) error {
	known := map[string]bool{}
	var names []string
	for _, d := range settingDefs {
		known[strings.ToLower(d.key)] = true
		names = append(names, d.key)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			return fmt.Errorf("%s: unknown setting %q (known: %s)", path, k, strings.Join(names, ", "))
		}
	}
	return nil
}

// lookup returns the file's value for key.
func (o ownConfig) lookup(key string) (raw any, source, origin string, found bool) {
	if o.v == nil || !o.v.InConfig(key) {
		return nil, "", "", false
	}
	return o.v.Get(key), sourceFile, o.info.Path + ": " + key, true
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// describeFileError turns a read or parse error into "file:line: message"
// when the parser reports a position, else "file: message".
func describeFileError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", path, pe.Err)
	}
	var perr viper.ConfigParseError
	if errors.As(err, &perr) {
		err = perr.Unwrap()
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if data, rerr := os.ReadFile(path); rerr == nil {
			line, col := lineCol(data, se.Offset)
			return fmt.Errorf("%s:%d:%d: %v", path, line, col, se)
		}
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", path, m[1], m[2])
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(msg, "yaml: "))
}

// lineCol converts the offset a decoder reports ("after reading offset
// bytes") into a 1-based line and column of the offending byte.
func lineCol(data []byte, offset int64) (line, col int) {
	off := int(min(max(offset-1, 0), int64(len(data))))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// ---- OpenClaw's config (openclaw.json, JSON5) ----

// openclawConfig is OpenClaw's parsed config.
type openclawConfig struct {
	path string
	root map[string]any
}

// openclawConfigPath is OpenClaw's config file: OPENCLAW_CONFIG_PATH, else
// the first existing of openclaw.json and the legacy clawdbot.json in the
// state folder (then in ~/.openclaw and ~/.clawdbot), else
// <state folder>/openclaw.json.
func (c *loadContext) openclawConfigPath(stateDir string) string {
	if v := strings.TrimSpace(c.getenv("OPENCLAW_CONFIG_PATH")); v != "" {
		return absPath(expandTilde(v, c.openclawHome()))
	}
	home := c.openclawHome()
	var candidates []string
	for _, dir := range []string{stateDir, filepath.Join(home, ".openclaw"), filepath.Join(home, ".clawdbot")} {
		candidates = append(candidates, filepath.Join(dir, "openclaw.json"), filepath.Join(dir, "clawdbot.json"))
	}
	for _, p := range candidates {
		if exists(p) {
			return p
		}
	}
	return filepath.Join(stateDir, "openclaw.json")
}

// readOpenClawConfig reads OpenClaw's config as JSON5 (comments, trailing
// commas, unquoted keys, single quotes). A missing file means no OpenClaw
// config; a malformed one is an error with its line and column.
func (c *loadContext) readOpenClawConfig(stateDir string) (*openclawConfig, configFileInfo, error) {
	path := c.openclawConfigPath(stateDir)
	info := configFileInfo{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, info, nil
	}
	if err != nil {
		return nil, info, &unreadableError{err: describeFileError(path, err)}
	}
	root, err := parseJSON5Object(data)
	if err != nil {
		return nil, info, &unreadableError{err: fmt.Errorf("%s%v", path, err)}
	}
	info.Found = true
	return &openclawConfig{path: path, root: root}, info, nil
}

// parseJSON5Object parses a JSON5 document whose top level is an object.
// Errors start with ":line:col: " when the position is known, else ": ".
func parseJSON5Object(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var root any
	if err := json5.Unmarshal(data, &root); err != nil {
		var se *json5.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf(":%d:%d: %v", line, col, se)
		}
		return nil, fmt.Errorf(": %v", err)
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(": the top level is not an object")
	}
	return obj, nil
}

// openclawValue reads a number from OpenClaw's config the way OpenClaw's
// resolveImageSanitizationLimits does: a finite number is floored and
// raised to at least 1; anything else is ignored (note says why).
func (c *loadContext) openclawValue(path []string) (v any, origin, note string, ok bool) {
	if c.openclaw == nil {
		return nil, "", "", false
	}
	var cur any = c.openclaw.root
	for _, k := range path {
		m, isObj := cur.(map[string]any)
		if !isObj {
			return nil, "", "", false
		}
		if cur, isObj = m[k]; !isObj {
			return nil, "", "", false
		}
	}
	origin = c.openclaw.path + ": " + strings.Join(path, ".")
	f, isNum := cur.(float64)
	if !isNum || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, "", fmt.Sprintf("%s = %s ignored, as OpenClaw ignores it: not a finite number", origin, jsonText(cur)), false
	}
	return int(max(1, math.Min(math.Floor(f), 1<<31))), origin, "", true
}

func jsonText(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
