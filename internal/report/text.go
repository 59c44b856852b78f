package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
)

// TextOptions configure the text renderer.
type TextOptions struct {
	// Color enables ANSI colour. The caller sets it only for a terminal,
	// never when NO_COLOR is set (or --color never).
	Color bool
}

// Text writes findings for people:
//
//	path:line: severity check-id message
//	  fix: hint
//
// (path#session:line for a store session: the database, the session key or
// id, the line of the session's export) and, at the end, a one-line summary.
type Text struct {
	w      io.Writer
	styles textStyles
	err    error
}

type textStyles struct {
	path, hint, id lipgloss.Style
	sev            [3]lipgloss.Style
}

// NewText returns a text renderer writing to w.
func NewText(w io.Writer, opts TextOptions) *Text {
	r := lipgloss.NewRenderer(w)
	if opts.Color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	st := textStyles{
		path: r.NewStyle().Bold(true),
		hint: r.NewStyle().Faint(true),
		id:   r.NewStyle().Foreground(lipgloss.Color("6")),
	}
	st.sev[check.Info] = r.NewStyle().Foreground(lipgloss.Color("4"))
	st.sev[check.Warning] = r.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)
	st.sev[check.Error] = r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	return &Text{w: w, styles: st}
}

// FileFindings writes the findings of one file, at most limit of each
// check id (limit 0: all of them), and after them one line per check id
// with more, e.g. "s.jsonl: … and 2,000,000 more transcript/malformed-line
// (--all lists them)". omitted are the findings the check itself left out
// ([check.Result.Omitted]); callers filter both by threshold first.
func (t *Text) FileFindings(path string, fs []check.Finding, omitted map[check.ID]int, limit int) {
	printed := map[check.ID]int{}
	var order []check.ID
	more := map[check.ID]int{}
	for _, f := range fs {
		if _, seen := printed[f.ID]; !seen {
			order = append(order, f.ID)
		}
		if limit > 0 && printed[f.ID] >= limit {
			more[f.ID]++
			continue
		}
		printed[f.ID]++
		t.finding(f)
	}
	for id := range omitted {
		if _, seen := printed[id]; !seen {
			order = append(order, id) // not reached unless every kept one was filtered out
			printed[id] = 0
		}
	}
	for _, id := range order {
		more[id] += omitted[id]
	}
	for _, id := range order {
		if n := more[id]; n > 0 {
			t.printf("%s: … and %s more %s (--all lists them)\n", t.styles.path.Render(path), thousands(n), t.styles.id.Render(string(id)))
		}
	}
}

// thousands formats n with comma thousands separators: 2,000,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (t *Text) finding(f check.Finding) {
	loc := f.Path
	if f.Store != nil {
		loc += "#" + f.Store.Name()
	}
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	t.printf("%s: %s %s %s\n", t.styles.path.Render(loc), t.styles.sev[f.Severity].Render(f.Severity.String()),
		t.styles.id.Render(string(f.ID)), oneLine(f.Message))
	t.printf("  %s\n", t.styles.hint.Render("fix: "+oneLine(f.Hint)))
}

// Summary writes the run's summary line, e.g.
// "checked 2 files with 17 checks: 3 findings (1 error, 2 warnings)".
func (t *Text) Summary(s Summary) {
	var b strings.Builder
	switch {
	case s.StoreSessions == 0:
		fmt.Fprintf(&b, "checked %s", count(s.Files, "file", "files"))
	case s.Files == 0:
		fmt.Fprintf(&b, "checked %s", count(s.StoreSessions, "store session", "store sessions"))
	default:
		fmt.Fprintf(&b, "checked %s and %s", count(s.Files, "file", "files"), count(s.StoreSessions, "store session", "store sessions"))
	}
	if s.SkippedFiles > 0 {
		fmt.Fprintf(&b, " (%s skipped)", count(s.SkippedFiles, "sibling file", "sibling files"))
	}
	fmt.Fprintf(&b, " with %s", count(s.ChecksRun, "check", "checks"))
	if s.ChecksSkipped > 0 {
		fmt.Fprintf(&b, " (%d skipped)", s.ChecksSkipped)
	}
	if s.Total() == 0 {
		fmt.Fprintf(&b, ": no findings at or above %s", s.Threshold)
	} else {
		var parts []string
		for sev := check.Error; ; sev-- {
			if n := s.Shown[sev]; n > 0 {
				parts = append(parts, t.styles.sev[sev].Render(severityCount(n, sev)))
			}
			if sev == check.Info {
				break
			}
		}
		fmt.Fprintf(&b, ": %s (%s)", count(s.Total(), "finding", "findings"), strings.Join(parts, ", "))
	}
	if s.Notes > 0 {
		fmt.Fprintf(&b, "; %s", count(s.Notes, "note", "notes"))
	}
	t.printf("%s\n", b.String())
}

// Err returns the first write error.
func (t *Text) Err() error { return t.err }

func (t *Text) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// oneLine keeps a finding on its line: messages quote ids from files,
// which may hold newlines or escape sequences.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// severityCount is "1 error", "2 warnings", "3 info" ("info" has no plural).
func severityCount(n int, sev check.Severity) string {
	if sev == check.Info {
		return fmt.Sprintf("%d info", n)
	}
	return count(n, sev.String(), sev.String()+"s")
}

// ScannedStores is the note on standard error of the commands that read
// the local install's SQLite store: the agent databases read and their
// sessions.
func ScannedStores(errOut io.Writer, databases []string, sessions, cold int) {
	note := ""
	if cold > 0 {
		note = fmt.Sprintf("; %d in cold storage not read", cold)
	}
	fmt.Fprintf(errOut, "openclaw-doctor: read %s (%d store session(s)%s), read-only\n", strings.Join(databases, ", "), sessions, note)
}

// Scanned is the note on standard error of check and fix when they read
// the local install: the session folders scanned and the transcripts found.
func Scanned(errOut io.Writer, roots []string, files int) {
	fmt.Fprintf(errOut, "openclaw-doctor: scanned %s (%d session file(s))\n", strings.Join(roots, ", "), files)
}
