package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/openclaw-doctor/openclaw-doctor/cmd"
)

// TestMain lets testscript scripts run the real binary in-process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"openclaw-doctor": func() { os.Exit(cmd.Main()) },
	})
}

// TestScripts runs the CLI behaviour scripts in testdata/script. Set
// OPENCLAW_UPDATE=1 to rewrite their expected output in place.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("OPENCLAW_UPDATE") == "1",
		Setup: func(env *testscript.Env) error {
			// Scripts must not see the developer's own install or config.
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/xdg")
			env.Setenv("OPENCLAW_STATE_DIR", "")
			env.Setenv("OPENCLAW_CONFIG_PATH", "")
			env.Setenv("NO_COLOR", "")
			return nil
		},
	})
}
