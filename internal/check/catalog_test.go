package check

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/checks.md from the catalogue")

const catalogueDoc = "../../docs/checks.md"

// TestCatalogueDoc keeps docs/checks.md generated from the catalogue.
func TestCatalogueDoc(t *testing.T) {
	want := catalogueMarkdown()
	if *update {
		if err := os.WriteFile(catalogueDoc, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(catalogueDoc)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/check -run TestCatalogueDoc -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("docs/checks.md is out of date (run with -update): %s", firstDifference(string(want), string(got)))
	}
}

// TestCatalogueIsConsistent: ids are unique and well-formed, fixed checks
// are errors whose hint names the fix command, the others never do.
func TestCatalogueIsConsistent(t *testing.T) {
	seen := map[ID]bool{}
	for _, c := range Catalogue {
		if seen[c.ID] {
			t.Errorf("%s listed twice", c.ID)
		}
		seen[c.ID] = true
		prefix := "transcript/"
		if c.Note {
			prefix = NotePrefix
		}
		if !strings.HasPrefix(string(c.ID), prefix) || IsNote(c.ID) != c.Note || c.Summary == "" || c.Hint == "" || c.Note && (c.Severity != Info || c.Fixed || c.ByHand) {
			t.Errorf("%s: malformed entry %+v", c.ID, c)
		}
		names := strings.Contains(c.Hint, FixCommand)
		if c.Fixed != names {
			t.Errorf("%s: fixed=%v but the hint names %q: %v", c.ID, c.Fixed, FixCommand, names)
		}
		if c.Fixed && c.Severity != Error {
			t.Errorf("%s: fix drops or rewrites what it finds, so it is an error", c.ID)
		}
	}
}

// TestStoreCatalogueIsConsistent: unique store/ ids with a summary and a
// hint, none of them repaired by fix.
func TestStoreCatalogueIsConsistent(t *testing.T) {
	seen := map[ID]bool{}
	for _, c := range StoreCatalogue {
		if seen[c.ID] || !strings.HasPrefix(string(c.ID), StoreIDPrefix) || c.Summary == "" || c.Hint == "" || c.Fixed ||
			strings.Contains(c.Hint, FixCommand) {
			t.Errorf("%s: malformed or duplicate entry %+v", c.ID, c)
		}
		seen[c.ID] = true
		if got, ok := Lookup(c.ID); !ok || got.ID != c.ID {
			t.Errorf("Lookup(%s) = %v, %v", c.ID, got, ok)
		}
	}
	o := Options{Only: []ID{StoreZstdSize}, Skip: []ID{StoreZstdChecksum}}
	if run, skipped := o.StoreCounts(); run != 1 || skipped != len(StoreCatalogue)-1 || !o.StoreEnabled(StoreZstdSize) {
		t.Errorf("StoreCounts = %d, %d", run, skipped)
	}
}

func TestParseSeverity(t *testing.T) {
	for in, want := range map[string]Severity{"info": Info, "warning": Warning, "WARN": Warning, " error ": Error} {
		if got, err := ParseSeverity(in); err != nil || got != want {
			t.Errorf("ParseSeverity(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal) accepted")
	}
}

func TestSelection(t *testing.T) {
	s := mustSelection(t, Options{Only: []ID{MalformedLine, LongLine}, Skip: []ID{LongLine}})
	if s.Run != 1 || s.Skipped != len(Catalogue)-1 || !s.Enabled(MalformedLine) || s.Enabled(LongLine) {
		t.Errorf("selection = %+v", s)
	}
	if _, err := (&Options{Skip: []ID{"transcript/nope"}}).Selection(); err == nil {
		t.Error("unknown id accepted")
	}
}

// firstDifference describes the first line where want and got differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, wl, gl)
		}
	}
	return "no difference"
}

// catalogueMarkdown renders the catalogue as docs/checks.md.
func catalogueMarkdown() []byte {
	var b strings.Builder
	b.WriteString("# Check catalogue\n\n")
	b.WriteString("<!-- Generated from internal/check/catalog.go by `go test ./internal/check -run TestCatalogueDoc -update`. Do not edit. -->\n\n")
	b.WriteString("Every check `openclaw-doctor check` runs, with its stable id, its severity, whether\n")
	b.WriteString("`openclaw-doctor fix` repairs what it finds, and the fix hint its findings carry.\n")
	b.WriteString("Select checks with `--only`/`--skip` (full ids); `--severity-min` (default `warning`)\n")
	b.WriteString("sets what is printed and what makes the exit status 1.\n\n")
	b.WriteString("Severities: `error` for what a provider rejects, what fix drops or rewrites, and files\n")
	b.WriteString("OpenClaw loads as an empty session; `warning` for what only a person can repair while\n")
	b.WriteString("providers still accept the session; `info` for what needs nobody: what OpenClaw's replay\n")
	b.WriteString("repairs in memory for every provider, what no provider cares about, and the notes.\n\n")
	b.WriteString("## Exit status\n\n")
	b.WriteString("With the default threshold (`--severity-min warning`), `check` exits 0 exactly when no\n")
	b.WriteString("provider would reject a session and no finding needs a person (the checks marked\n")
	b.WriteString("\"by hand\" below). After a successful `fix`, `check` on the same files therefore exits 0\n")
	b.WriteString("unless something still needs the operator: a rejection (a tool-call id used twice in\n")
	b.WriteString("a turn, an image over a provider's limit) or a person-only finding (an invalid or\n")
	b.WriteString("misplaced header, an empty file, a missing parent that cuts the branch). A test runs\n")
	b.WriteString("`fix`, then `check`, on every conformance case and compares the outcome with\n")
	b.WriteString("`check --provider all`'s verdicts. Exit status 1 means a finding at or above the\n")
	b.WriteString("threshold, 2 that no input could be read. With `--provider`, rewrites of what the\n")
	b.WriteString("provider receives are warnings too; `--severity-min error` keeps only rejections.\n\n")
	b.WriteString("Notes (`file/…`) say what a file is or what lies beside it (a write lock, a leftover\n")
	b.WriteString("backup); they are printed at every threshold and never change the exit status.\n\n")
	b.WriteString("| check id | severity | fixed by | finds | fix hint |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, c := range Catalogue {
		fixed := "replay (needs nobody)"
		switch {
		case c.Fixed:
			fixed = "`fix`"
		case c.ByHand:
			fixed = "by hand"
		case c.Note:
			fixed = "(note)"
		case c.ID == LongLine:
			fixed = "(nothing to fix)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", c.ID, c.Severity, fixed, mdCell(c.Summary), mdCell(c.Hint))
	}
	b.WriteString("\nA file whose header is invalid, or in which no line survives, is skipped by `fix`:\n")
	b.WriteString("the findings of checks fix repairs then say the file must be repaired by hand first.\n")
	writeStoreCatalogue(&b)
	writeReplayCatalogue(&b)
	return []byte(b.String())
}

// mdCell escapes a table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// writeStoreCatalogue renders the store checks' section of docs/checks.md.
func writeStoreCatalogue(b *strings.Builder) {
	b.WriteString("\n## Store checks (OpenClaw 2026.9's SQLite store)\n\n")
	b.WriteString("On a store session (`check` with no argument on a 2026.9 install, a state folder, an\n")
	b.WriteString("`openclaw-agent.sqlite` file, or `--session KEY|ID`), check reads the session's export\n")
	b.WriteString("(the JSONL `openclaw-doctor export` writes) through every transcript check above:\n")
	b.WriteString("`path` is the database, `line` the line of the export, and the JSON findings add\n")
	b.WriteString("`sessionKey`, `sessionId` and `seq`; text prints `DATABASE#KEY:LINE` (the session id\n")
	b.WriteString("for a session that is no longer its key's current one). The store's own faults have\n")
	b.WriteString("their own ids. A row that cannot be read stops the session's reading there, as it\n")
	b.WriteString("stops OpenClaw's. The database is only read, never changed (docs/store.md).\n\n")
	b.WriteString("| check id | severity | finds | fix hint |\n|---|---|---|---|\n")
	for _, c := range StoreCatalogue {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", c.ID, c.Severity, mdCell(c.Summary), mdCell(c.Hint))
	}
}

// writeReplayCatalogue renders the replay checks' section of
// docs/checks.md.
func writeReplayCatalogue(b *strings.Builder) {
	b.WriteString("\n## Replay checks (`check --provider`)\n\n")
	b.WriteString("With `--provider P` (and optionally `--model-api`, `--model-id`, `--reasoning`,\n")
	b.WriteString("completed from the session as `openclaw-doctor replay` does), check also replays\n")
	b.WriteString("each session's active branch for that target and reports every change OpenClaw's\n")
	b.WriteString("replay would make, one check id per replay rule (`replay/<rule>`, the rule names of\n")
	b.WriteString("docs/replay.md), at the physical line of the stored entry (none for inserted\n")
	b.WriteString("messages and session-wide state). Findings are folded: one finding per rule and\n")
	b.WriteString(fmt.Sprintf("line (identical changes counted), at most %d per rule, the last one counting the\n", maxLinesPerRule))
	b.WriteString("changes and places that follow; `replay --diff` lists every change. Hints name\n")
	b.WriteString("the exact replay command for the finding's target.\n")
	b.WriteString("A store session is replayed through OpenClaw's bounded view, as `replay --session`\n")
	b.WriteString("replays it; its lines are lines of that view (docs/store.md).\n\n")
	b.WriteString("`--provider all` replays for every provider family below and prints, per file, a\n")
	b.WriteString("compatibility matrix: `ok`, `rewrites (N changes: rules)` or `rejects (reason)`\n")
	b.WriteString("per target (info changes count as ok). In JSON the matrix is one finding per target\n")
	b.WriteString("and rule, the target named at the start of the message. `--only`/`--skip` accept\n")
	b.WriteString("these ids too; the exit status follows `--severity-min` as for every check.\n\n")
	b.WriteString("| target | provider | model api | model id |\n|---|---|---|---|\n")
	for _, nt := range MatrixTargets() {
		fmt.Fprintf(b, "| %s | `%s` | `%s` | `%s` |\n", nt.Name, nt.Target.Provider, nt.Target.ModelAPI, nt.Target.ModelID)
	}
	b.WriteString("\n| check id | severity | finds | fix hint |\n|---|---|---|---|\n")
	for _, c := range ReplayCatalogue {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", c.ID, c.Severity, mdCell(c.Summary), mdCell(c.Hint))
	}
}
