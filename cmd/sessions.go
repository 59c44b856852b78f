package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// sessionsOptions are the sessions command's flags.
type sessionsOptions struct {
	json, check bool
}

const sessionsLong = `sessions lists every session of every agent: the JSONL transcripts
(agents/<agent>/sessions/*.jsonl) and the sessions of OpenClaw 2026.9's SQLite
store (agents/<agent>/agent/openclaw-agent.sqlite), which is only read, never
changed (docs/store.md).

  sessions            the local install: $OPENCLAW_STATE_DIR when it is set,
                      otherwise ~/.openclaw (and the legacy session folders)
  sessions STATE_DIR  a state folder
  sessions DB         one agent database

Each session shows its agent, session key, session id, storage (sqlite or
jsonl), event count, size in bytes (the file's, or the session's export's for
the store), last update and path. A JSONL file's session key comes from the
sessions.json beside it when an entry names the file (its sessionFile, else
<sessionId>.jsonl); its session id is its header's id, else its file name.
A JSONL file is "legacy" when its agent's store holds a session with the same
session id: OpenClaw 2026.9 imported it and reads only the store. Store
sessions a key no longer points to (replaced by a reset, a fork…) are listed
with current false; sessions moved to cold storage are listed, not read.

--check also checks each session as "openclaw-doctor check" does and adds its
finding counts at or above --severity-min.

--format json (or --json) prints {"sessions":[{"agentId","sessionKey",
"sessionId","storage","path","events","bytes","updatedAt" (ms), "current"
(store), "legacy" (JSONL), "read":false and "cold" or "error" when not read,
"findings":{"error","warning","info"} (--check)}]}.
` + exitStatusHelp + `
  sessions exits 1 with --check when a finding is at or above --severity-min,
  and 2 when nothing could be listed.`

func newSessionsCmd(a *app) *cobra.Command {
	opts := &sessionsOptions{}
	cmd := &cobra.Command{
		Use:   "sessions [STATE_DIR|DB]",
		Short: "List every session, JSONL and SQLite store alike",
		Long:  sessionsLong,
		Args:  maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessions(cmd.Context(), a, opts, args)
		},
	}
	fs := cmd.Flags()
	fs.String("format", "text", "output format: text or json")
	fs.BoolVar(&opts.json, "json", false, "same as --format json")
	fs.BoolVar(&opts.check, "check", false, "also check each session and show its finding counts")
	fs.String("severity-min", "warning", "with --check: lowest severity counted: info, warning or error")
	return cmd
}

func runSessions(ctx context.Context, a *app, opts *sessionsOptions, args []string) error {
	format := a.settings.Format
	if opts.json {
		format = "json"
	}
	if format == "" {
		format = "text"
	}
	if format != "text" && format != "json" {
		return usageErrorf("sessions: --format must be text or json, not %q", format)
	}
	var r *checkRun
	if opts.check {
		var err error
		if r, err = newCheckRun(a, &checkOptions{}); err != nil {
			return err
		}
	}
	d, err := sessionsDiscovery(ctx, a, args)
	if err != nil {
		return err
	}
	for _, s := range d.Stores {
		if s.Err == nil && s.Meta.Newer() {
			fmt.Fprintf(a.Err, "openclaw-doctor: %s: schema version %d is newer than %d, the version openclaw-doctor knows; listed what could be read\n",
				s.DB.Path, s.Meta.SchemaVersion, store.SchemaVersion)
		}
	}
	rows, targets := sessionRows(d)
	failed := false
	if r != nil {
		failed = r.countFindings(ctx, rows, targets)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if format == "json" {
		err = report.SessionsJSON(a.Out, rows)
	} else {
		err = report.SessionsText(a.Out, rows, r != nil)
	}
	if err != nil {
		return err
	}
	if failed {
		return errFindings
	}
	return nil
}

// sessionsDiscovery finds the files and databases to list.
func sessionsDiscovery(ctx context.Context, a *app, args []string) (discovery, error) {
	if len(args) == 0 {
		return discoverInstall(ctx, a)
	}
	fi, err := os.Stat(args[0])
	switch {
	case err != nil:
		return discovery{}, &unreadableError{err: fmt.Errorf("sessions: %w", err)}
	case fi.IsDir():
		d, err := discoverState(ctx, args[0])
		if err == nil && len(d.Inputs) == 0 {
			err = &unreadableError{err: fmt.Errorf("sessions: no session transcript or agent database in %s", args[0])}
		}
		return d, err
	case isSQLite(args[0]):
		var d discovery
		d.addDatabase(ctx, databaseAt(args[0]))
		return d, nil
	}
	return discovery{}, usageErrorf("sessions: %s is neither a state folder nor an agent database (%s)", args[0], store.DatabaseName)
}

// sessionRows builds the listing, by agent (the store's sessions first),
// and the input each row is checked through (nil: not read).
func sessionRows(d discovery) ([]report.SessionRow, []*input) {
	type row struct {
		report.SessionRow
		in *input
	}
	var rows []row
	imported := map[string]map[string]bool{} // agent -> session ids in its store
	for _, s := range d.Stores {
		agent := s.DB.AgentID
		if s.Err != nil {
			rows = append(rows, row{SessionRow: report.SessionRow{AgentID: &agent, Storage: "sqlite", Path: s.DB.Path,
				Read: ptr(false), Error: s.Err.Error()}})
			continue
		}
		updated := map[string]int64{}
		for _, n := range s.Nodes {
			updated[n.SessionID] = n.UpdatedAt
		}
		if imported[agent] == nil {
			imported[agent] = map[string]bool{}
		}
		for _, w := range s.Windows {
			imported[agent][w.SessionID] = true
			sr := report.SessionRow{AgentID: &agent, SessionKey: ptr(w.Key), SessionID: ptr(w.SessionID), Storage: "sqlite",
				Path: s.DB.Path, Events: w.Events, UpdatedAt: w.UpdatedAt, Current: ptr(w.Current)}
			if w.Events > 0 {
				sr.Bytes = w.Bytes + 1
			}
			if t, ok := updated[w.SessionID]; ok && w.Current {
				sr.UpdatedAt = t
			}
			var in *input
			if w.Cold {
				sr.Cold, sr.Read, sr.Events, sr.Bytes = true, ptr(false), w.ColdEvents, w.ColdBytes
			} else {
				in = &input{Path: s.DB.Path, Store: &storeInput{DB: s.DB, Window: w}}
			}
			rows = append(rows, row{sr, in})
		}
	}
	indexes := map[string]sessionIndex{}
	for _, in := range d.Inputs {
		if in.Store != nil {
			continue
		}
		dir := filepath.Dir(in.Path)
		idx, ok := indexes[dir]
		if !ok {
			idx = readSessionIndex(filepath.Join(dir, "sessions.json"))
			indexes[dir] = idx
		}
		sr := jsonlRow(in.Path, idx)
		if sr.AgentID != nil {
			sr.Legacy = ptr(imported[*sr.AgentID][*sr.SessionID])
		} else {
			sr.Legacy = ptr(false)
		}
		rows = append(rows, row{sr, &input{Path: in.Path}})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		return deref(rows[i].AgentID) < deref(rows[j].AgentID)
	})
	out := make([]report.SessionRow, len(rows))
	ins := make([]*input, len(rows))
	for i, r := range rows {
		out[i], ins[i] = r.SessionRow, r.in
	}
	return out, ins
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// sessionIndex is a sessions folder's sessions.json: OpenClaw's map from
// session key to the session's id, file and last update.
type sessionIndex map[string]struct {
	SessionID   string  `json:"sessionId"`
	SessionFile string  `json:"sessionFile"`
	UpdatedAt   float64 `json:"updatedAt"`
}

// readSessionIndex reads a sessions.json; a missing or unreadable one is
// an empty index (the listing then has no keys for the folder).
func readSessionIndex(path string) sessionIndex {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil {
		return nil
	}
	idx := sessionIndex{}
	for k, v := range raw {
		var e struct {
			SessionID   string  `json:"sessionId"`
			SessionFile string  `json:"sessionFile"`
			UpdatedAt   float64 `json:"updatedAt"`
		}
		if json.Unmarshal(v, &e) == nil {
			idx[k] = e
		}
	}
	return idx
}

// jsonlRow describes a JSONL transcript.
func jsonlRow(path string, idx sessionIndex) report.SessionRow {
	sr := report.SessionRow{Storage: "jsonl", Path: path}
	// agents/<agent>/sessions/<file>
	if dir := filepath.Dir(path); filepath.Base(dir) == "sessions" && filepath.Base(filepath.Dir(filepath.Dir(dir))) == "agents" {
		sr.AgentID = ptr(filepath.Base(filepath.Dir(dir)))
	}
	base := filepath.Base(path)
	id := strings.TrimSuffix(base, ".jsonl")
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			sr.Bytes, sr.UpdatedAt = fi.Size(), fi.ModTime().UnixMilli()
		}
		var first string
		sr.Events, first, err = countEvents(f)
		if h, ok := headerID(first); ok {
			id = h
		}
	}
	if err != nil {
		sr.Read, sr.Error = ptr(false), err.Error()
	}
	sr.SessionID = &id
	keys := make([]string, 0, len(idx))
	for k := range idx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := idx[k]
		names := e.SessionFile != "" && filepath.Base(e.SessionFile) == base ||
			e.SessionFile == "" && e.SessionID != "" && e.SessionID+".jsonl" == base
		if names {
			sr.SessionKey = ptr(k)
			if e.UpdatedAt > 0 {
				sr.UpdatedAt = int64(e.UpdatedAt)
			}
			break
		}
	}
	return sr
}

// countEvents counts the lines of r that are not blank, and returns the
// first one (up to 64 KiB of it).
func countEvents(r io.Reader) (events int64, first string, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	blank := true
	for {
		chunk, err := br.ReadSlice('\n')
		if events == 0 && blank && first == "" {
			first = string(chunk)
		}
		if blank && strings.TrimSpace(string(chunk)) != "" {
			blank = false
		}
		ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if ended || (err == io.EOF && len(chunk) > 0) {
			if !blank {
				events++
			}
			blank = true
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return events, first, nil
		case err != nil:
			return events, first, err
		}
	}
}

// headerID is the id of a session header line.
func headerID(line string) (string, bool) {
	v, err := jsonl.Parse([]byte(strings.TrimSpace(line)))
	if err != nil || !v.IsObject() {
		return "", false
	}
	if t, _ := v.GetStr("type"); t != "session" {
		return "", false
	}
	id, ok := v.GetStr("id")
	return id, ok && id != ""
}

// countFindings checks each row's session (several at a time) and sets its
// finding counts; it reports whether any finding is at or above the
// threshold.
func (r *checkRun) countFindings(ctx context.Context, rows []report.SessionRow, ins []*input) bool {
	failed := false
	i := 0
	for res := range check.InOrder(len(rows), func(i int) check.Result {
		if ins[i] == nil || ctx.Err() != nil {
			return check.Result{}
		}
		return r.checkOne(ctx, *ins[i])
	}) {
		if ins[i] != nil {
			c := &report.FindingsCounts{}
			for _, f := range report.Shown(res.Findings, r.threshold) {
				switch f.Severity {
				case check.Error:
					c.Error++
				case check.Warning:
					c.Warning++
				default:
					c.Info++
				}
				failed = true
			}
			rows[i].Findings = c
		}
		i++
	}
	return failed
}
