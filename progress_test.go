//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestProgressOnlyOnATerminal runs the binary with standard error on a
// pseudo-terminal and on a pipe: check, check --provider all, fix and
// replay draw the progress line on the terminal only, never on a pipe and
// never in JSON mode or with --quiet; work shorter than a second draws none.
// OPENCLAW_DOCTOR_PROGRESS=now draws it from the start, so that these short
// runs show it.
func TestProgressOnlyOnATerminal(t *testing.T) {
	bin, err := exec.LookPath("openclaw-doctor") // testscript.Main puts it on PATH
	if err != nil {
		t.Fatal(err)
	}
	session, err := os.ReadFile(filepath.Join("testdata", "examples", "replay-damaged.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(file, session, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args     []string
		terminal bool
		env      string
		want     string // in the progress line; "" for no line at all
	}{
		{[]string{"check", file}, true, "now", "check: "},
		{[]string{"check", "--provider", "all", file}, true, "now", " targets"},
		{[]string{"fix", "--stdout", file}, true, "now", "fix: "},
		{[]string{"fix", "--dry-run", file}, true, "now", "fix: "},
		{[]string{"replay", "--provider", "mistral", file}, true, "now", "replay: "},
		{[]string{"check", file}, false, "now", ""},
		{[]string{"fix", "--dry-run", file}, false, "now", ""},
		{[]string{"replay", "--provider", "mistral", file}, false, "now", ""},
		{[]string{"check", "--format", "json", file}, true, "now", ""},
		{[]string{"check", "--provider", "all", "--format", "json", file}, true, "now", ""},
		{[]string{"fix", "--dry-run", "--format", "json", file}, true, "now", ""},
		{[]string{"replay", "--format", "json", "--provider", "mistral", file}, true, "now", ""},
		{[]string{"check", "--quiet", file}, true, "now", ""},
		{[]string{"fix", "-q", "--dry-run", file}, true, "now", ""},
		{[]string{"check", file}, true, "off", ""},
		{[]string{"check", file}, true, "", ""}, // done within a second
	} {
		name := fmt.Sprintf("%s terminal=%v %s", strings.Join(c.args[:len(c.args)-1], " "), c.terminal, c.env)
		start := time.Now()
		stderr := runWithStderr(t, bin, c.args, c.terminal, "OPENCLAW_DOCTOR_PROGRESS="+c.env)
		if c.terminal && c.env == "" && time.Since(start) >= 900*time.Millisecond {
			// The run itself took about a second (a very busy machine): the
			// line may rightly have appeared, so this run proves nothing.
			t.Logf("%s: took %v; not judged", name, time.Since(start))
			continue
		}
		last := strings.LastIndex(stderr, "\r\x1b[K")
		switch {
		case c.want == "" && (last >= 0 || strings.Contains(stderr, " files,")):
			t.Errorf("%s: a progress line: %q", name, stderr)
		case c.want != "" && !strings.Contains(stderr, c.want):
			t.Errorf("%s: no progress line with %q: %q", name, c.want, stderr)
		case c.want != "" && strings.Contains(stderr[last:], " files,"):
			t.Errorf("%s: the line is not erased at the end: %q", name, stderr)
		}
	}
}

// runWithStderr runs bin with args, its standard error on a new
// pseudo-terminal (terminal) or a pipe, and returns what it wrote there.
func runWithStderr(t *testing.T, bin string, args []string, terminal bool, env ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), append([]string{"HOME=" + t.TempDir(), "OPENCLAW_STATE_DIR=", "TERM=xterm"}, env...)...)
	cmd.Stdout = io.Discard
	if !terminal {
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		_ = cmd.Run()
		return errOut.String()
	}
	master, slave := openPTY(t)
	defer master.Close()
	cmd.Stderr = slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child holds it now: reading master ends when the child exits
	out, err := io.ReadAll(master)
	var pe *os.PathError
	if err != nil && !(errors.As(err, &pe) && errors.Is(pe.Err, syscall.EIO)) { // EIO: the terminal's last writer closed it
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return string(out)
}

// openPTY opens a pseudo-terminal pair (Linux's /dev/ptmx).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatal(errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatal(errno)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}
