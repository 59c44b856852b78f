package cmd

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

var update = flag.Bool("update", false, "rewrite docs/man, docs/completions and docs/behaviour from the commands and checks")

// docsDir is the repository's docs folder, seen from this package.
const docsDir = "../docs"

// manDate is the date the man pages carry. Fixed, so that the pages are a
// function of the commands alone; move it forward with a release.
var manDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

// TestGeneratedDocs keeps the man pages (docs/man), the shell completion
// scripts (docs/completions) and the rule pages (docs/behaviour) generated
// from the command tree and the check catalogue: it fails when a command,
// flag, help text or check changed and they were not regenerated with
//
//	go test ./cmd -run TestGeneratedDocs -update
func TestGeneratedDocs(t *testing.T) {
	want := generatedDocs(t)
	for _, sub := range []string{"man", "completions", "behaviour"} {
		dir := filepath.Join(docsDir, sub)
		if *update {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		entries, err := os.ReadDir(dir)
		if err != nil && !*update {
			t.Fatalf("%v (run go test ./cmd -run TestGeneratedDocs -update)", err)
		}
		for _, e := range entries {
			if _, ok := want[sub+"/"+e.Name()]; !ok {
				t.Errorf("docs/%s/%s is not generated from the commands (run go test ./cmd -run TestGeneratedDocs -update)", sub, e.Name())
			}
		}
	}
	for name, data := range want {
		path := filepath.Join(docsDir, name)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run go test ./cmd -run TestGeneratedDocs -update)", err)
		} else if !bytes.Equal(got, data) {
			t.Errorf("docs/%s differs from what the commands generate (run go test ./cmd -run TestGeneratedDocs -update)", name)
		}
	}
}

// generatedDocs renders every man page, completion script and rule page,
// by path under docs/.
func generatedDocs(t *testing.T) map[string][]byte {
	t.Helper()
	out := behaviourPages(t)
	root := newRootCmd(&app{streams: streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, getenv: func(string) string { return "" }})
	for name, gen := range map[string]func(w io.Writer) error{
		"openclaw-doctor.bash": func(w io.Writer) error { return root.GenBashCompletionV2(w, true) },
		"_openclaw-doctor":     root.GenZshCompletion,
		"openclaw-doctor.fish": func(w io.Writer) error { return root.GenFishCompletion(w, true) },
	} {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			t.Fatal(err)
		}
		out["completions/"+name] = b.Bytes()
	}
	root.DisableAutoGenTag = true
	var pages func(c *cobra.Command)
	pages = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c != root {
			return
		}
		c.Long = manLong(c.Long)
		var b bytes.Buffer
		header := &doc.GenManHeader{Title: strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-")), Section: "1",
			Date: &manDate, Source: "openclaw-doctor", Manual: "openclaw-doctor manual"}
		if err := doc.GenMan(c, header, &b); err != nil {
			t.Fatal(err)
		}
		out["man/"+strings.ReplaceAll(c.CommandPath(), " ", "-")+".1"] = b.Bytes()
		for _, sub := range c.Commands() {
			pages(sub)
		}
	}
	pages(root)
	return out
}

// manLong turns a command's Long help, plain text laid out for a terminal,
// into the Markdown the man page generator reads: the description and the
// exit status as preformatted blocks, the exit status under its own
// heading.
func manLong(long string) string {
	body, exit := splitExitStatus(long)
	exit = strings.TrimPrefix(strings.TrimSpace(exit), strings.TrimSpace(exitStatusHeading))
	return "```\n" + strings.Trim(body, "\n") + "\n```\n\n# EXIT STATUS\n```\n" + strings.Trim(exit, "\n") + "\n```"
}
