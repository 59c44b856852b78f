// Package sessiontest is test support shared by several packages' tests:
// long, regular sessions with one kind of damage put where a segmented
// replay meets it (Long), and the repository's test files (ConformanceCases,
// Glob), which fail the test when none is found instead of letting it pass
// over nothing. Only tests import it.
package sessiontest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The damages Long can put in a session.
const (
	// LateResult adds a last tool result answering the first call again:
	// it reaches back over every cut of a segmented replay.
	LateResult = "late result"
	// CallWithoutInput gives exchange 1024 (the one right after the first
	// cut of a segmented replay) a tool call without arguments, which the
	// replay removes with its turn, leaving the call's result ahead of the
	// segment's first tool call.
	CallWithoutInput = "call without input"
)

// Long returns a session of 3000 exchanges (a question; signed thinking and
// a tool call; its result; an answer), about 12,000 messages on one branch,
// with damage ("" for none, LateResult or CallWithoutInput).
func Long(damage string) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"long","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	n := 0
	entry := func(msg string) {
		parent := "null"
		if n > 0 {
			parent = fmt.Sprintf("%q", fmt.Sprintf("e%07d", n))
		}
		n++
		fmt.Fprintf(&b, `{"type":"message","id":"e%07d","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":%s}`+"\n", n, parent, msg)
	}
	const tail = `"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"timestamp":1767225600000,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5"`
	for k := range 3000 {
		entry(fmt.Sprintf(`{"role":"user","content":"question %d","timestamp":1767225600000}`, k))
		if damage == CallWithoutInput && k == 1024 {
			entry(fmt.Sprintf(`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_%010d","name":"exec"}],"stopReason":"toolUse",%s}`, k, tail))
		} else {
			entry(fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"c2ln"},{"type":"toolCall","id":"toolu_%010d","name":"exec","arguments":{"command":"echo %d"}}],"stopReason":"toolUse",%s}`, k, k, tail))
		}
		entry(fmt.Sprintf(`{"role":"toolResult","toolCallId":"toolu_%010d","toolName":"exec","content":[{"type":"text","text":"%d"}],"isError":false,"timestamp":1767225600000}`, k, k))
		if damage == LateResult && k == 2999 {
			entry(`{"role":"toolResult","toolCallId":"toolu_0000000000","toolName":"exec","content":[{"type":"text","text":"late"}],"isError":false,"timestamp":1767225600000}`)
		}
		entry(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"answer %d"}],"stopReason":"stop",%s}`, k, tail))
	}
	return []byte(b.String())
}

// ConformanceCases returns the conformance cases
// (testdata/conformance/cases/*.jsonl) and fails tb when there are none, so
// that a test over them cannot pass by finding nothing.
func ConformanceCases(tb testing.TB) []string {
	tb.Helper()
	return Glob(tb, "testdata/conformance/cases/*.jsonl")
}

// ShortSample is cases under `go test -short`: every every-th case, and
// each case keep selects; without -short, all of them. A quick run then
// still meets each kind of case a test depends on.
func ShortSample(cases []string, every int, keep func(path string) bool) []string {
	if !testing.Short() {
		return cases
	}
	var out []string
	for i, c := range cases {
		if i%every == 0 || (keep != nil && keep(c)) {
			out = append(out, c)
		}
	}
	return out
}

// Glob returns the files matching pattern, a path relative to the
// repository's root, and fails tb when none matches. The paths are relative
// to the test's working directory (its package), as a filepath.Glob of
// "../../testdata/…" from there would give them.
func Glob(tb testing.TB, pattern string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(repositoryRoot(), pattern))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no files match %s (err %v)", pattern, err)
	}
	return files
}

// repositoryRoot is the repository's root, relative to the working
// directory when possible. It is found from this file's place in it.
func repositoryRoot() string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, root); err == nil {
			return rel
		}
	}
	return root
}
