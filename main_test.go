package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"livelock": liveLock},
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

// liveLock is the script command "livelock FILE.lock": it starts a
// process that sleeps until the script ends and writes OpenClaw's write
// lock naming it into FILE.lock, as a running OpenClaw would; $LOCKPID is
// its pid.
func liveLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: livelock FILE.lock")
	}
	sleeper := exec.Command("sleep", "600")
	ts.Check(sleeper.Start())
	ts.Defer(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	pid := strconv.Itoa(sleeper.Process.Pid)
	body := `{"pid":` + pid + `,"createdAt":"` + time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + `"}`
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(body), 0o644))
	ts.Setenv("LOCKPID", pid)
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
