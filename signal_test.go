package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestSignalsStopLongWork runs the built binary on large generated files
// and signals it while it works: every command exits 130 within the
// deadline (generous: the machine may be busy; bench/signal-latency-long.sh
// measures the real latency) and leaves the file as it was.
func TestSignalsStopLongWork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and writes large files")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "openclaw-doctor")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	write := func(name string, gen func(*os.File) error) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := gen(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	garbage := write("garbage.jsonl", func(f *os.File) error { return sessiontest.WriteDropped(f, 3_000_000) })
	turn := write("turn.jsonl", func(f *os.File) error { return sessiontest.WriteToolTurn(f, 60_000, true) })
	cases := []struct {
		name string
		sig  syscall.Signal
		args []string
		file string
	}{
		{"check", syscall.SIGINT, []string{"check"}, garbage},
		{"check json", syscall.SIGTERM, []string{"check", "--format", "json"}, garbage},
		{"check provider all", syscall.SIGINT, []string{"check", "--provider", "all"}, turn},
		{"fix", syscall.SIGINT, []string{"fix"}, garbage},
		{"fix sweep, last file", syscall.SIGTERM, []string{"fix", filepath.Join(dir, "missing.jsonl")}, garbage},
		{"fix --stdout", syscall.SIGTERM, []string{"fix", "--stdout"}, garbage},
		{"replay", syscall.SIGINT, []string{"replay", "--provider", "anthropic"}, turn},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, append(c.args, c.file)...)
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+dir) // lost-and-found records stay in the test's folder
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitUntilOpen(t, cmd.Process.Pid, c.file)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 30 s after %v", c.sig)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Errorf("exit %v, want 130; stderr:\n%s", err, stderr.String())
			}
			after, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("the file changed")
			}
		})
	}
}

// waitUntilOpen returns once process pid holds path open (the command opens
// its input only after its signal handlers are in place, so a signal sent
// then tests the long work, not the start-up), or after 30 s. Where /proc is
// missing it falls back to a fixed pause.
func waitUntilOpen(t *testing.T, pid int, path string) {
	t.Helper()
	fdDir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	if _, err := os.Stat(fdDir); err != nil {
		time.Sleep(300 * time.Millisecond)
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		fds, _ := os.ReadDir(fdDir)
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && target == path {
				time.Sleep(100 * time.Millisecond) // well inside the work
				return
			}
		}
	}
	t.Fatalf("process %d never opened %s", pid, path)
}
