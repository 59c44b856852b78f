//go:build unix

package main

// Hostile inputs and conditions, with the real command as a child process
// (see fault_test.go): a pipe nobody writes to and a signal, standard
// input spooled when the command is SIGKILLed, a line longer than any
// reader takes.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// signalDeadline is how long a command may take to end after SIGINT or
// SIGTERM before the test calls it hung (generous: the machine may be
// loaded; the real latency is logged and bench/signal-latency.sh measures
// it).
const signalDeadline = 30 * time.Second

// TestSignalEndsABlockedOpen: every command that reads a named pipe no
// process writes to waits for a writer, and SIGTERM or SIGINT ends that
// wait: exit 130 and "interrupted".
func TestSignalEndsABlockedOpen(t *testing.T) {
	bin := doctorCommand(t)
	fifo := filepath.Join(t.TempDir(), "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	commands := [][]string{
		{"check", fifo},
		{"check", "--provider", "all", fifo},
		{"fix", "--stdout", fifo},
		{"fix", "--dry-run", fifo},
		{"replay", "--provider", "anthropic", fifo},
	}
	for i, args := range commands {
		sig := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}[i%2]
		t.Run(strings.Join(args[:len(args)-1], " ")+" "+sig.String(), func(t *testing.T) {
			r, latency := signalWhileBlocked(t, bin, sig, args...)
			if r.code != 130 || !strings.Contains(r.stderr, "openclaw-doctor: interrupted\n") {
				t.Errorf("exit %d, want 130 and \"interrupted\"\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			t.Logf("ended %v after %s", latency, sig)
		})
	}
}

// TestSignalDuringAPipeReadSaysOnlyInterrupted: SIGINT or SIGTERM while a
// command reads a named pipe that keeps delivering lines ends it with exit
// 130 and "interrupted" alone: the read the signal cut short (an "i/o
// timeout" underneath) is not reported as a finding or an error.
func TestSignalDuringAPipeReadSaysOnlyInterrupted(t *testing.T) {
	bin := doctorCommand(t)
	commands := [][]string{
		{"check"},
		{"check", "--format", "json"},
		{"check", "--provider", "all"},
		{"fix", "--stdout"},
		{"replay", "--provider", "anthropic"},
	}
	for i, args := range commands {
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}[i%2]
		t.Run(strings.Join(args, " ")+" "+sig.String(), func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "pipe.jsonl")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("cannot make a FIFO: %v", err)
			}
			go feedPipe(fifo) // ends when the command closes its end
			r, _ := signalWhileBlocked(t, bin, sig, append(args, fifo)...)
			if r.code != 130 || r.stderr != "openclaw-doctor: interrupted\n" || strings.Contains(r.stdout, "timeout") {
				t.Errorf("exit %d, want 130 and \"interrupted\" alone\nstdout: %.500s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// feedPipe writes malformed lines to the FIFO at path until its reader
// goes away.
func feedPipe(path string) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	chunk := []byte(strings.Repeat("{\"type\":\"message\",\"id\":\n", 4096))
	for {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}

// signalWhileBlocked starts the command, lets it block, signals it and
// returns how it ended and how long after the signal. A signal that came
// before the command could catch it (it then dies of it) is retried with a
// longer wait.
func signalWhileBlocked(t *testing.T, bin string, sig syscall.Signal, args ...string) (doctorRun, time.Duration) {
	t.Helper()
	for wait := 200 * time.Millisecond; ; wait *= 2 {
		cmd, o, e := startDoctor(t, bin, args...)
		time.Sleep(wait)
		start := time.Now()
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(signalDeadline, func() { _ = cmd.Process.Kill() })
		r := waitDoctor(t, cmd, o, e)
		timer.Stop()
		latency := time.Since(start)
		if latency >= signalDeadline {
			t.Fatalf("still running %v after %s; killed\nstdout: %s\nstderr: %s", signalDeadline, sig, r.stdout, r.stderr)
		}
		if !r.killed || wait > 5*time.Second {
			return r, latency
		}
	}
}

// TestSIGKILLLeavesNoSpool: standard input is spooled to a file that is
// unlinked as soon as it exists, so `fix -`, `replay -` and `check
// --provider all -` killed with SIGKILL while spooling leave nothing in
// $TMPDIR.
func TestSIGKILLLeavesNoSpool(t *testing.T) {
	bin := doctorCommand(t)
	session := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n"
	for _, args := range [][]string{{"fix", "-"}, {"replay", "--provider", "anthropic", "-"}, {"check", "--provider", "all", "-"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp, "OPENCLAW_STATE_DIR=")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			if _, err := stdin.Write([]byte(strings.Repeat(session, 1000))); err != nil {
				t.Fatal(err)
			}
			// Standard input stays open: the command is spooling it. Kill it
			// once the spool is open.
			deadline := time.Now().Add(signalDeadline)
			for !holdsFileUnder(cmd.Process.Pid, tmp) {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("no spool under %s after %v", tmp, signalDeadline)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("left in $TMPDIR after SIGKILL: %v", entries)
			}
		})
	}
}

// holdsFileUnder reports whether process pid has a file under dir open
// (Linux's /proc; elsewhere it reports true at once, and the test then
// kills the command whenever it is).
func holdsFileUnder(pid int, dir string) bool {
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return true
	}
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, dir+"/") {
			return true
		}
	}
	return false
}

// TestLineLongerThanAnyReader: a line longer than 512 MiB (a sparse file
// of zeros, so no disk is used) is a finding naming the line for check
// and a read failure for fix, which leaves the file as it was.
func TestLineLongerThanAnyReader(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 512 MiB twice")
	}
	bin := doctorCommand(t)
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(513 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.Stat(path)
	const msg = "line 1 (at byte 0) is longer than 512 MiB"
	if r := runDoctor(t, bin, "check", path); r.code != 2 || !strings.Contains(r.stdout, path+": error transcript/unreadable cannot read the file: "+msg) {
		t.Errorf("check: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r := runDoctor(t, bin, "fix", path); r.code != 2 || !strings.Contains(r.stdout, path+": not repaired: failed to read session file: "+msg) {
		t.Errorf("fix: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	after, _ := os.Stat(path)
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Error("fix touched the file")
	}
}
