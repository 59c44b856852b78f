package store

import (
	"bufio"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The live writer runs in a process of its own, as OpenClaw's gateway
// would: SQLite shares a database's WAL index between the connections of
// one process, so an in-process writer would not show what a reader does
// to another process.

// writerEvent is the n-th event the writer process appends.
func writerEvent(n int) string { return fmt.Sprintf(`{"type":"custom","id":"append-%d","n":%d}`, n, n) }

// TestWriterProcess is the writer process's body, run by startWriter; on
// its own it does nothing. It appends to session STORE_WRITER_SESSION of
// database STORE_WRITER_DB, STORE_WRITER_PER_COMMIT events per transaction
// from seq STORE_WRITER_SEQ+1 on, prints "ready" after the first commit,
// then one line per commit; with STORE_WRITER_ONCE it stops after one
// commit and waits, connection open, until its standard input closes.
func TestWriterProcess(t *testing.T) {
	path := os.Getenv("STORE_WRITER_DB")
	if path == "" {
		return
	}
	id := os.Getenv("STORE_WRITER_SESSION")
	seq, _ := strconv.ParseInt(os.Getenv("STORE_WRITER_SEQ"), 10, 64)
	per, _ := strconv.Atoi(os.Getenv("STORE_WRITER_PER_COMMIT"))
	once := os.Getenv("STORE_WRITER_ONCE") != ""
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	w.SetMaxOpenConns(1)
	stop := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
	for n := 0; ; {
		tx, err := w.Begin()
		for j := 0; err == nil && j < per; j++ {
			seq++
			text := writerEvent(n)
			n++
			_, err = tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, event_utf8_bytes, created_at) VALUES (?, ?, ?, ?, 0)`, id, seq, text, len(text))
		}
		if err == nil {
			err = tx.Commit()
		}
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("ready", n)
		if once {
			<-stop
			w.Close()
			os.Exit(0)
		}
		select {
		case <-stop:
			w.Close()
			os.Exit(0)
		default:
		}
	}
}

// liveWriter is a running writer process.
type liveWriter struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startWriter starts the writer process and waits for its first commit.
func startWriter(t *testing.T, path, sessionID string, fromSeq int64, perCommit int, once bool) *liveWriter {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$")
	cmd.Env = append(os.Environ(), "STORE_WRITER_DB="+path, "STORE_WRITER_SESSION="+sessionID,
		fmt.Sprintf("STORE_WRITER_SEQ=%d", fromSeq), fmt.Sprintf("STORE_WRITER_PER_COMMIT=%d", perCommit))
	if once {
		cmd.Env = append(cmd.Env, "STORE_WRITER_ONCE=1")
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lw := &liveWriter{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
	t.Cleanup(func() { lw.stop(t) })
	if !lw.out.Scan() || !strings.HasPrefix(lw.out.Text(), "ready") {
		t.Fatalf("writer process: %q %v", lw.out.Text(), lw.out.Err())
	}
	return lw
}

// stop closes the writer's input, lets it finish its transaction and
// returns the number of commits it reported.
func (lw *liveWriter) stop(t *testing.T) (commits int) {
	if lw.cmd.Process == nil || lw.cmd.ProcessState != nil {
		return 0
	}
	lw.stdin.Close()
	commits = 1
	for lw.out.Scan() {
		if strings.HasPrefix(lw.out.Text(), "error") {
			t.Errorf("writer process: %s", lw.out.Text())
		}
		commits++
	}
	if err := lw.cmd.Wait(); err != nil {
		t.Errorf("writer process: %v", err)
	}
	return commits
}
