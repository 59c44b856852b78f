package cmd

import (
	"os"
	"testing"
)

// TestMain gives the tests a home folder of their own: commands run
// in-process with an empty environment fall back to the OS's home, where
// fix would keep its lost-and-found records.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "openclaw-doctor-cmd-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Unsetenv("XDG_STATE_HOME")
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
