package check

import (
	"fmt"
	"slices"
)

// Finding is one problem found in one file.
type Finding struct {
	ID       ID
	Severity Severity
	Path     string // as given by the caller ("-" for standard input)
	Line     int    // physical line (1-based, blank lines counted); 0 for the whole file
	EntryID  string // the entry's id when it has one
	Message  string
	Hint     string
	// Fixable reports that `openclaw-doctor fix` would repair this finding
	// now. It is false for the findings of a file fix skips (no valid
	// header), even when their check is one fix repairs.
	Fixable bool
	// Store places the finding in a session of OpenClaw's SQLite store
	// (Path is then the database); nil for a file.
	Store *StoreLocation
}

// Options select the checks and set their limits.
type Options struct {
	// Only, when not empty, restricts the run to these checks; Skip removes
	// checks. Unknown ids are an error of [Options.Selection].
	Only, Skip []ID
	// ImageMaxDimensionPx is the longest image side allowed before
	// [OversizedImage] reports it (OpenClaw's imageMaxDimensionPx, default
	// 1200).
	ImageMaxDimensionPx int
	// Workers bounds the goroutines that parse one large file (0: the CPU
	// count). Files smaller than parallelThreshold are parsed inline.
	Workers int
	// SpillAbove, when positive, bounds the findings a file's check holds
	// in memory: past that many, they move to a temp file in sorted runs,
	// and the result's findings must then be read with [Result.All] (its
	// Findings holds only what callers append). 0 holds every finding.
	SpillAbove int
	// Limit, when positive, keeps at most this many findings of each check
	// id found line by line (the first ones, in line order) and counts the
	// rest in [Result.Omitted], so that memory does not grow with a file
	// full of one fault. 0 keeps every finding.
	Limit int
	// Rows, when set, says the input is a store session's rows as they
	// are stored, one a line, and how to judge them as their export (see
	// [Rows]): the findings are those of the session's export.
	Rows Rows
	// The line pass above does not depend on a provider; provider-specific
	// findings come from a replay for a target (see provider.go).
}

// Selection is the set of checks a run executes.
type Selection struct {
	enabled map[ID]bool
	Run     int // number of checks run
	Skipped int // number of catalogue checks not run
}

// Selection resolves Only and Skip against the catalogue.
func (o *Options) Selection() (Selection, error) {
	s := Selection{enabled: map[ID]bool{}}
	for _, id := range append(slices.Clone(o.Only), o.Skip...) {
		if _, ok := Lookup(id); !ok {
			return s, fmt.Errorf("unknown check id %q (see docs/checks.md)", id)
		}
	}
	for _, c := range Catalogue {
		on := len(o.Only) == 0 || slices.Contains(o.Only, c.ID)
		if slices.Contains(o.Skip, c.ID) {
			on = false
		}
		s.enabled[c.ID] = on
		if on {
			s.Run++
		} else {
			s.Skipped++
		}
	}
	return s, nil
}

// Enabled reports whether check id runs.
func (s Selection) Enabled(id ID) bool { return s.enabled == nil || s.enabled[id] }

// SortFindings orders findings by line (file-level ones first), then by
// catalogue order (store checks after transcript checks), keeping the
// discovery order otherwise: the order of [Run]'s findings, for callers
// that add their own.
func SortFindings(fs []Finding) { sortFindings(fs) }

func sortFindings(fs []Finding) { slices.SortStableFunc(fs, compareFindings) }

// findingRank is each check's place in the catalogues (store checks after
// transcript checks), the second key of the findings' order.
var findingRank = func() map[ID]int {
	rank := map[ID]int{}
	for i, c := range Catalogue {
		rank[c.ID] = i
	}
	for i, c := range StoreCatalogue {
		rank[c.ID] = len(Catalogue) + i
	}
	return rank
}()
