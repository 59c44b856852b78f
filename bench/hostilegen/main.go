// Command hostilegen writes the generated sessions of the bench scripts:
//
//	hostilegen turn N FILE      one assistant turn with N tool calls, each answered
//	hostilegen turn-bare N FILE the same turn without results
//	hostilegen dropped N FILE   a header, N malformed lines and a user message
//	hostilegen huge N FILE      a user message whose text is N bytes long
//	hostilegen huge-bad N FILE  the same line cut short: N bytes of malformed JSON
//
// It is a thin wrapper over internal/sessiontest's writers.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: hostilegen turn|turn-bare|dropped|huge|huge-bad N FILE")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "hostilegen: N must be a count, not %q\n", os.Args[2])
		os.Exit(2)
	}
	f, err := os.Create(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostilegen:", err)
		os.Exit(1)
	}
	switch os.Args[1] {
	case "turn":
		err = sessiontest.WriteToolTurn(f, n, true)
	case "turn-bare":
		err = sessiontest.WriteToolTurn(f, n, false)
	case "dropped":
		err = sessiontest.WriteDropped(f, n)
	case "huge":
		err = sessiontest.WriteHugeLine(f, n, false)
	case "huge-bad":
		err = sessiontest.WriteHugeLine(f, n, true)
	default:
		err = fmt.Errorf("unknown shape %q", os.Args[1])
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostilegen:", err)
		os.Exit(1)
	}
}
