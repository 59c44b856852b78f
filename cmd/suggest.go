package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
)

// nearest returns the candidate closest to word by edit distance, or ""
// when none is close enough to be a likely typo (more than a third of the
// word, and at least 3 edits, away).
func nearest(word string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(word), strings.ToLower(c)); bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len(word)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// warnUnknownProvider warns on errOut when --provider names a provider the
// replay knows nothing of: it still replays (with OpenClaw's fallback for
// the api, or the default policy), but it is most often a typo.
func warnUnknownProvider(errOut io.Writer, command, provider string) {
	if strings.TrimSpace(provider) == "" || hygiene.IsKnownProvider(provider) {
		return
	}
	known := hygiene.KnownProviders()
	guess := ""
	if n := nearest(hygiene.NormalizeProvider(provider), known); n != "" {
		guess = fmt.Sprintf(" (did you mean %q?)", n)
	}
	fmt.Fprintf(errOut, "openclaw-doctor: %s: warning: unknown provider %q%s; replaying with OpenClaw's policy for an unknown provider\n  known providers: %s\n",
		command, provider, guess, strings.Join(known, ", "))
}

// checkIDError is the usage error of an unknown check id in --only or
// --skip, naming the nearest id.
func checkIDError(flag string, id check.ID) error {
	var ids []string
	for _, c := range check.All() {
		ids = append(ids, string(c.ID))
	}
	msg := fmt.Sprintf("check: %s: unknown check id %q", flag, id)
	if n := nearest(string(id), ids); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	return usageErrorf("%s; 'openclaw-doctor checks' lists the check ids", msg)
}
