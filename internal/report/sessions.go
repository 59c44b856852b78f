package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// SessionRow is one session of `openclaw-doctor sessions`: a JSONL file or
// a session window of OpenClaw's SQLite store.
type SessionRow struct {
	AgentID    *string `json:"agentId"`    // nil when the folder names no agent
	SessionKey *string `json:"sessionKey"` // nil when no session key names it
	SessionID  *string `json:"sessionId"`  // nil for a database that could not be read
	Storage    string  `json:"storage"`    // "sqlite" or "jsonl"
	Path       string  `json:"path"`       // the file, or the agent database
	Events     int64   `json:"events"`
	Bytes      int64   `json:"bytes"`
	UpdatedAt  int64   `json:"updatedAt"` // ms since the Unix epoch, 0 when unknown
	// Current (store sessions): the session key's current session.
	Current *bool `json:"current,omitempty"`
	// Legacy (JSONL files): the agent's store holds a session with this
	// session id, so OpenClaw 2026.9 has imported the file and no longer
	// reads it.
	Legacy *bool `json:"legacy,omitempty"`
	// Read is false for a session that was not read: in cold storage, or
	// a database that could not be opened (Error says why).
	Read     *bool           `json:"read,omitempty"`
	Cold     bool            `json:"cold,omitempty"`
	Error    string          `json:"error,omitempty"`
	Findings *FindingsCounts `json:"findings,omitempty"` // with --check
}

// FindingsCounts are a session's findings at or above the threshold.
type FindingsCounts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
}

// SessionsJSON writes {"sessions":[…]}.
func SessionsJSON(w io.Writer, rows []SessionRow) error {
	if rows == nil {
		rows = []SessionRow{}
	}
	return encode(w, struct {
		Sessions []SessionRow `json:"sessions"`
	}{rows})
}

// SessionsText writes the sessions as a table, one per line, and a count.
func SessionsText(w io.Writer, rows []SessionRow, withCounts bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "AGENT\tSESSION KEY\tSESSION ID\tSTORAGE\tEVENTS\tBYTES\tUPDATED (UTC)\t"
	if withCounts {
		head += "ERRORS\tWARNINGS\tINFO\t"
	}
	fmt.Fprintln(tw, head+"NOTE\tPATH")
	stores, files := 0, 0
	for _, r := range rows {
		if r.Storage == "sqlite" {
			stores++
		} else {
			files++
		}
		cells := []string{dashIfNil(r.AgentID), dashIfNil(r.SessionKey), dashIfNil(r.SessionID), r.Storage,
			strconv.FormatInt(r.Events, 10), strconv.FormatInt(r.Bytes, 10), updated(r.UpdatedAt)}
		if withCounts {
			if c := r.Findings; c != nil {
				cells = append(cells, strconv.Itoa(c.Error), strconv.Itoa(c.Warning), strconv.Itoa(c.Info))
			} else {
				cells = append(cells, "-", "-", "-")
			}
		}
		cells = append(cells, sessionNote(r), r.Path)
		for i, c := range cells {
			cells[i] = oneLine(c)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s: %d in SQLite stores, %d JSONL\n", count(len(rows), "session", "sessions"), stores, files)
	return err
}

func dashIfNil(s *string) string {
	if s == nil {
		return "-"
	}
	return orDash(*s)
}

func updated(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04")
}

// sessionNote says what is special about a session.
func sessionNote(r SessionRow) string {
	var notes []string
	switch {
	case r.Error != "":
		notes = append(notes, "not read: "+r.Error)
	case r.Cold:
		notes = append(notes, "cold storage, not read")
	}
	if r.Current != nil && !*r.Current {
		notes = append(notes, "not current")
	}
	if r.Legacy != nil && *r.Legacy {
		notes = append(notes, "legacy: imported into the store")
	}
	if len(notes) == 0 {
		return "-"
	}
	return strings.Join(notes, "; ")
}

// FixStoreSessions is fix's note on standard error about the sessions of
// OpenClaw's SQLite store it found: read-only, not repaired.
func FixStoreSessions(errOut io.Writer, names []string, cold int) {
	fmt.Fprintf(errOut, "openclaw-doctor: %s of OpenClaw's SQLite store left as they are: fix never writes the store (use openclaw doctor, or export the session and fix the file)\n",
		count(len(names), "session", "sessions"))
	for _, n := range names {
		fmt.Fprintf(errOut, "  read-only: %s\n", n)
	}
	if cold > 0 {
		fmt.Fprintf(errOut, "  and %s in cold storage\n", count(cold, "session", "sessions"))
	}
}
