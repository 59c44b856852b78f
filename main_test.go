package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

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
			// The committed OpenClaw stores, read in place (never written).
			stores, err := filepath.Abs(filepath.Join("testdata", "stores"))
			env.Setenv("STORES", stores)
			return err
		},
	})
}

// TestScriptExamplesMatch: scripts that carry a copy of a bundled example
// session carry it byte for byte, so they test what users run.
func TestScriptExamplesMatch(t *testing.T) {
	for script, example := range map[string]string{
		"check-provider-examples.txtar": "replay-damaged.jsonl",
	} {
		ar, err := txtar.ParseFile(filepath.Join("testdata", "script", script))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "examples", example))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range ar.Files {
			if f.Name == example {
				found = true
				if !bytes.Equal(f.Data, want) {
					t.Errorf("%s: its %s differs from testdata/examples/%s", script, example, example)
				}
			}
		}
		if !found {
			t.Errorf("%s carries no %s", script, example)
		}
	}
}
