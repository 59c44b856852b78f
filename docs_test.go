package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the output shown in the docs' console blocks from real runs")

// consoleFence opens a block of example commands and their output:
//
//	```console
//	$ openclaw-doctor check testdata/examples/damaged.jsonl
//	testdata/examples/damaged.jsonl:4: error …
//	```
//
// Each "$ " line is a command, run in a fresh copy of testdata/examples
// and testdata/stores; the lines after it are what it prints (standard
// output and standard error as a terminal shows them, without colour).
const consoleFence = "```console"

// docExampleDirs are the testdata folders the examples may name, copied
// into each block's working folder (commands such as fix may write there).
var docExampleDirs = []string{"testdata/examples", "testdata/stores"}

// TestDocExamples runs every console block of README.md and docs/ against
// the CLI and compares the output with what the document shows, so the
// docs cannot drift from the program. Regenerate the shown output with
//
//	go test . -run TestDocExamples -update
func TestDocExamples(t *testing.T) {
	docs, err := docFiles()
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, doc := range docs {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		out, n, stale, err := runConsoleBlocks(t, string(src))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		blocks += n
		if out == string(src) {
			continue
		}
		if *update {
			if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, b := range stale {
			t.Errorf("%s:%d: the console block shows another output than the program prints (run go test . -run TestDocExamples -update)", doc, b)
		}
	}
	if blocks == 0 {
		t.Fatal("no console blocks found in README.md and docs/")
	}
}

// docFiles are README.md and the Markdown files under docs/.
func docFiles() ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	return files, err
}

// runConsoleBlocks returns src with the output of every console block's
// commands replaced by what they print now, the number of blocks, and the
// lines where the blocks whose output changed start.
func runConsoleBlocks(t *testing.T, src string) (out string, blocks int, stale []int, err error) {
	lines := strings.SplitAfter(src, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		b.WriteString(lines[i])
		if strings.TrimRight(lines[i], "\n") != consoleFence {
			continue
		}
		blocks++
		start := i + 1
		end := start
		for end < len(lines) && strings.TrimRight(lines[end], "\n") != "```" {
			end++
		}
		if end == len(lines) {
			return "", 0, nil, fmt.Errorf("line %d: console block not closed", i+1)
		}
		body, err := runConsoleBlock(t, lines[start:end])
		if err != nil {
			return "", 0, nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if body != strings.Join(lines[start:end], "") {
			stale = append(stale, i+1)
		}
		b.WriteString(body)
		i = end - 1
	}
	return b.String(), blocks, stale, nil
}

// runConsoleBlock runs the "$ " commands of one block, in order, in one
// working folder, and returns the block's new body.
func runConsoleBlock(t *testing.T, lines []string) (string, error) {
	work := t.TempDir()
	for _, dir := range docExampleDirs {
		if err := os.CopyFS(filepath.Join(work, dir), os.DirFS(dir)); err != nil {
			return "", err
		}
	}
	var body strings.Builder
	commands := 0
	for _, line := range lines {
		cmdline, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "$ ")
		if !ok {
			continue // output, replaced by the command's
		}
		commands++
		output, err := runDocCommand(work, cmdline)
		if err != nil {
			return "", fmt.Errorf("%s: %w", cmdline, err)
		}
		body.WriteString("$ " + cmdline + "\n" + output)
	}
	if commands == 0 {
		return "", errors.New("no \"$ openclaw-doctor …\" command in the block")
	}
	return body.String(), nil
}

// runDocCommand runs one documented command line ("openclaw-doctor ARGS",
// arguments separated by spaces, no quoting) in work, with an environment
// that sees no install, config or terminal of the person running the
// tests, and returns what it printed: standard output and standard error
// interleaved as written, through one file.
func runDocCommand(work, cmdline string) (string, error) {
	args := strings.Fields(cmdline)
	if len(args) == 0 || args[0] != "openclaw-doctor" {
		return "", errors.New(`a console block runs only "openclaw-doctor …" commands`)
	}
	if strings.ContainsAny(cmdline, `'"\$|<>;&`+"`") {
		return "", errors.New("a console block's command has no quoting, variables or redirection")
	}
	bin, err := exec.LookPath("openclaw-doctor") // the test binary, as TestMain installs it
	if err != nil {
		return "", err
	}
	outFile, err := os.CreateTemp(work, ".output-")
	if err != nil {
		return "", err
	}
	defer outFile.Close()
	defer os.Remove(outFile.Name())
	c := exec.Command(bin, args[1:]...)
	c.Dir = work
	c.Stdout, c.Stderr = outFile, outFile
	c.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(work, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(work, "xdg-config"),
		"XDG_STATE_HOME=" + filepath.Join(work, "xdg-state"),
		"NO_COLOR=1",
		"TZ=UTC",
		"LANG=C",
	}
	if err := c.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return "", err
		}
	}
	data, err := os.ReadFile(outFile.Name())
	if err != nil {
		return "", err
	}
	if bytes.Contains(data, []byte(work)) {
		return "", fmt.Errorf("the output names the test's temporary folder %s: choose an example whose output does not", work)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	return string(data), nil
}
