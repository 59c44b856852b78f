package cmd

import (
	"os"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, tc := range []struct {
		name, version, commit, date, want string
	}{
		{"release", "1.2.3", "0123456789abcdef0123", "2026-12-01T10:00:00Z", "1.2.3 (commit 0123456789ab, built 2026-12-01T10:00:00Z)"},
		{"no date", "1.2.3", "abc", "", "1.2.3 (commit abc)"},
		{"no commit", "1.2.3", "", "2026-12-01", "1.2.3 (built 2026-12-01)"},
		{"version only", "1.2.3", "", "", "1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(v, c, d string) { buildVersion, buildCommit, buildDate = v, c, d }(buildVersion, buildCommit, buildDate)
			buildVersion, buildCommit, buildDate = tc.version, tc.commit, tc.date
			if got := version(); got != tc.want {
				t.Errorf("version() = %q, want %q", got, tc.want)
			}
		})
	}
	// Not injected: the build information's version (a test binary's is
	// "(devel)" or empty, shown as "(devel)").
	if got := version(); !strings.HasPrefix(got, "(devel)") && !strings.HasPrefix(got, "v") {
		t.Errorf("version() without injection = %q, want the module version or (devel)", got)
	}
}

// TestReleaseConfigInjectsVersion: the release build sets the variables
// version reads, by their full names.
func TestReleaseConfigInjectsVersion(t *testing.T) {
	cfg, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"buildVersion={{ .Version }}", "buildCommit={{ .Commit }}", "buildDate={{ .Date }}"} {
		if !strings.Contains(string(cfg), "-X github.com/openclaw-doctor/openclaw-doctor/cmd."+v) {
			t.Errorf(".goreleaser.yaml does not set cmd.%s with -X", v)
		}
	}
}
