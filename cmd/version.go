package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at link time by release builds (.goreleaser.yaml):
//
//	-X github.com/openclaw-doctor/openclaw-doctor/cmd.buildVersion=1.2.3
//
// and likewise buildCommit and buildDate. Empty in a source build, where
// version falls back to the module's build information.
var buildVersion, buildCommit, buildDate string

// version is what --version and `openclaw-doctor version` print after the
// program's name: the injected release version, commit and date, else the
// module version from the build information ("(devel)" for a source build)
// with the VCS revision and time when the build recorded them.
func version() string {
	if buildVersion != "" {
		return joinVersion(buildVersion, buildCommit, buildDate)
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var commit, date string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.time":
			date = s.Value
		}
	}
	return joinVersion(v, commit, date)
}

// joinVersion prints "VERSION (commit C, built D)", leaving out what is
// unknown; the commit is shortened to 12 characters.
func joinVersion(v, commit, date string) string {
	if len(commit) > 12 {
		commit = commit[:12]
	}
	switch {
	case commit != "" && date != "":
		return fmt.Sprintf("%s (commit %s, built %s)", v, commit, date)
	case commit != "":
		return fmt.Sprintf("%s (commit %s)", v, commit)
	case date != "":
		return fmt.Sprintf("%s (built %s)", v, date)
	}
	return v
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Long:  "Print openclaw-doctor's version, as --version does.\n" + exitStatusHelp,
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.Out, "openclaw-doctor %s\n", version())
			return err
		},
	}
}
