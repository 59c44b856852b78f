package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// This file wires check on OpenClaw's SQLite store: a session's export
// goes through the same line pass as a file (check.Run), its findings are
// placed in the session (key, seq), and the store's own faults (rows that
// cannot be read, index tables that disagree, the schema) become store/
// findings.

// storeInput is a session window of an agent database to check, or, with
// Database, the database's own checks.
type storeInput struct {
	DB       store.AgentDatabase
	Window   store.Window
	Database bool
	OpenErr  error // Database: opening the database failed during discovery
	// opened is DB already open (check --session found the session in
	// it): checkStore takes it, reads through it (in the snapshot the
	// session was found in) and closes it, instead of opening DB again.
	// Atomic: a run interrupted may close it while a check takes it.
	opened atomic.Pointer[store.DB]
}

// checkStore checks a store input.
func (r *checkRun) checkStore(ctx context.Context, s *storeInput) check.Result {
	if s.Database {
		return r.checkDatabase(ctx, s)
	}
	path := s.DB.Path
	loc := check.StoreLocation{SessionKey: s.Window.Key, SessionID: s.Window.SessionID, Current: s.Window.Current, Seq: -1}
	db, err := s.opened.Swap(nil), error(nil)
	if db == nil {
		db, err = store.Open(ctx, path)
	}
	if err != nil {
		res := check.Unopened(path, err, r.sel)
		placeFindings(res.Findings, loc, nil)
		return res
	}
	defer db.Close()
	// The index checks read their tables beside the events: they run only
	// when selected.
	var kinds []store.IndexKind
	if r.opts.StoreEnabled(check.StoreIdentityMismatch) {
		kinds = append(kinds, store.IdentityMismatch)
	}
	if r.opts.StoreEnabled(check.StoreActiveEventMissing) {
		kinds = append(kinds, store.ActiveEventMissing)
	}
	// The line pass reads the rows as they are stored and judges their
	// export's lines only where those could be judged otherwise (see
	// store.StoredLines).
	er, stored, err := db.CheckedLines(ctx, s.Window.SessionID, kinds...)
	if err != nil {
		res := check.Unopened(path, err, r.sel)
		placeFindings(res.Findings, loc, nil)
		return res
	}
	rd := &rowFaultReader{r: er}
	size := int64(-1)
	if s.Window.Events > 0 {
		size = s.Window.Bytes + 1
	}
	opts := r.opts
	opts.Rows = stored
	res := check.Run(ctx, rd, path, size, r.sel, opts)
	er.Close()
	if f := stored.Fault(); f != nil { // before any row the reading stopped at
		rd.fault = f
	}
	var lines []int
	for _, f := range res.Findings {
		if f.Line > 0 {
			lines = append(lines, f.Line)
		}
	}
	seqs, err := db.Seqs(ctx, s.Window.SessionID, lines)
	if err != nil {
		seqs = nil // the findings keep their lines, without seqs
	}
	placeFindings(res.Findings, loc, seqs)
	res.Findings = append(res.Findings, r.rowFindings(path, loc, rd.fault)...)
	faults, total, err := er.IndexFaults(ctx)
	if err != nil {
		res.Findings = append(res.Findings, check.Unopened(path, err, r.sel).Findings...)
	}
	res.Findings = append(res.Findings, r.indexFindings(path, loc, faults, total)...)
	check.SortFindings(res.Findings)
	return res
}

// placeFindings gives each finding of a session its location; seqs maps
// lines to seqs. fix never writes a store, so what it would repair in a
// file gets the hint to export the session first.
func placeFindings(fs []check.Finding, loc check.StoreLocation, seqs map[int]int64) {
	for i := range fs {
		l := loc
		if seq, ok := seqs[fs[i].Line]; ok && fs[i].Line > 0 {
			l.Seq = seq
		}
		fs[i].Store = &l
		if fs[i].Fixable || fs[i].Hint == check.FixHint {
			fs[i].Fixable = false
			fs[i].Hint = storeFixHint(&l)
		}
	}
}

// storeFixHint is the hint of a finding fix would repair in a file.
func storeFixHint(l *check.StoreLocation) string {
	return fmt.Sprintf("the store is read-only to openclaw-doctor: use openclaw doctor, or export the session (openclaw-doctor export --session %s -o FILE) and run %q on the file", l.Name(), check.FixCommand+" FILE")
}

// rowFaultReader reads an export and ends it, as if the session ended
// there, at a row that cannot be read, keeping the row's error: the lines
// before it are checked as a file cut there would be.
type rowFaultReader struct {
	r     io.Reader
	fault *store.RowError
}

func (rd *rowFaultReader) Read(p []byte) (int, error) {
	n, err := rd.r.Read(p)
	if errors.As(err, &rd.fault) {
		return n, io.EOF
	}
	return n, err
}

// LineRest is the export's (see jsonl.LineSizer): a long line is then
// read into one buffer of its size.
func (rd *rowFaultReader) LineRest() (int, bool) {
	if s, ok := rd.r.(jsonl.LineSizer); ok {
		return s.LineRest()
	}
	return 0, false
}

// rowCheck is the store check of each row fault.
var rowCheck = map[store.Fault]check.ID{
	store.FaultZstd:     check.StoreZstdFrame,
	store.FaultChecksum: check.StoreZstdChecksum,
	store.FaultSize:     check.StoreZstdSize,
	store.FaultUTF8:     check.StoreInvalidUTF8,
	store.FaultJSON:     check.StoreInvalidJSON,
	store.FaultEmpty:    check.StoreEmptyRow,
}

// rowFindings is the finding of the row that stopped the reading, if any.
func (r *checkRun) rowFindings(path string, loc check.StoreLocation, re *store.RowError) []check.Finding {
	if re == nil || !r.opts.StoreEnabled(rowCheck[re.Fault]) {
		return nil
	}
	msg := re.Fault.String()
	if re.Err != nil {
		msg += ": " + re.Err.Error()
	}
	msg += fmt.Sprintf(" (seq %d); the session cannot be read past this row, by OpenClaw either", re.Seq)
	if re.Line > 1 {
		msg += fmt.Sprintf(": lines 1-%d were checked", re.Line-1)
	}
	loc.Seq = re.Seq
	return []check.Finding{check.StoreFinding(rowCheck[re.Fault], path, re.Line, &loc, msg)}
}

// indexCheck is the store check of each index fault.
var indexCheck = map[store.IndexKind]check.ID{
	store.IdentityMismatch:   check.StoreIdentityMismatch,
	store.ActiveEventMissing: check.StoreActiveEventMissing,
	store.NodeSessionMissing: check.StoreSessionMissing,
}

// indexFindings are the findings of index faults; total counts them all,
// faults may hold only the first ones.
func (r *checkRun) indexFindings(path string, loc check.StoreLocation, faults []store.IndexFault, total int) []check.Finding {
	var out []check.Finding
	for i, f := range faults {
		id := indexCheck[f.Kind]
		if !r.opts.StoreEnabled(id) {
			continue
		}
		l := loc
		if f.SessionKey != "" {
			l = check.StoreLocation{SessionKey: f.SessionKey, SessionID: f.SessionID, Current: true}
		}
		l.Seq = f.Seq
		msg := f.Detail
		if i == len(faults)-1 && total > len(faults) {
			msg += fmt.Sprintf(" (and %d more such rows)", total-len(faults))
		}
		out = append(out, check.StoreFinding(id, path, f.Line, &l, msg))
	}
	return out
}

// checkDatabase runs the checks of an agent database itself: its schema
// and the session keys that name no session.
func (r *checkRun) checkDatabase(ctx context.Context, s *storeInput) check.Result {
	path := s.DB.Path
	err := s.OpenErr
	var db *store.DB
	if err == nil {
		db, err = store.Open(ctx, path)
	}
	var schema *store.SchemaError
	switch {
	case errors.As(err, &schema):
		res := check.Result{Path: path, Unreadable: true}
		if r.opts.StoreEnabled(check.StoreSchemaUnsupported) {
			msg := strings.TrimPrefix(schema.Error(), schema.Path+": ")
			res.Findings = []check.Finding{check.StoreFinding(check.StoreSchemaUnsupported, path, 0, nil, msg)}
		}
		return res
	case err != nil:
		return check.Unopened(path, err, r.sel)
	}
	defer db.Close()
	res := check.Result{Path: path}
	if m := db.Meta(); m.Newer() && r.opts.StoreEnabled(check.StoreSchemaNewer) {
		res.Findings = append(res.Findings, check.StoreFinding(check.StoreSchemaNewer, path, 0, nil,
			fmt.Sprintf("schema version %d (written by OpenClaw %s) is newer than %d, the version openclaw-doctor knows; read what could be read",
				m.SchemaVersion, orUnknown(m.AppVersion), store.SchemaVersion)))
	}
	faults, err := db.NodeFaults(ctx)
	if err != nil {
		return check.Unopened(path, err, r.sel)
	}
	res.Findings = append(res.Findings, r.indexFindings(path, check.StoreLocation{}, faults, len(faults))...)
	return res
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// closeStores closes the databases inputs hold open that no check used
// (the run stopped before them).
func (d *discovery) closeStores() {
	for _, in := range d.Inputs {
		if s := in.Store; s != nil {
			if db := s.opened.Swap(nil); db != nil {
				db.Close()
			}
		}
	}
}

// files counts the inputs that are files (not store sessions).
func (d *discovery) files() int {
	n := 0
	for _, in := range d.Inputs {
		if in.Store == nil {
			n++
		}
	}
	return n
}

// inputs are check's inputs: the discovered ones, or the one store session
// --session names.
func (r *checkRun) inputs(ctx context.Context, o *checkOptions) (discovery, error) {
	if o.session == "" {
		if o.agent != "" {
			return discovery{}, usageErrorf("check: --agent needs --session")
		}
		return discoverSessions(ctx, o.Paths, r.app)
	}
	if len(o.Paths) > 1 {
		return discovery{}, usageErrorf("check: --session takes at most one STATE_DIR or database, not %d", len(o.Paths))
	}
	_, dbs, err := storeDatabases(r.app, "check", o.Paths)
	if err != nil {
		return discovery{}, err
	}
	db, w, err := findStoreSession(ctx, "check", dbs, o.agent, o.session)
	if err != nil {
		return discovery{}, err
	}
	// The counts size the check's pass, as a file's size does: an
	// estimate is enough.
	w.Transcript, err = db.Estimate(ctx, w.SessionID)
	path := db.Path()
	if err != nil {
		db.Close()
		return discovery{}, &unreadableError{err: fmt.Errorf("check: %w", err)}
	}
	agent := databaseAt(path)
	for _, d := range dbs {
		if d.Path == path {
			agent = d
		}
	}
	in := &storeInput{DB: agent, Window: w}
	in.opened.Store(db)
	return discovery{Inputs: []input{{Path: path, Store: in}}, Databases: []string{path}, Sessions: 1}, nil
}

// listStoreSessions is fix's answer to store sessions: fix never opens a
// store for writing, so it names them, read-only, on standard error and
// leaves them out of the run (they do not change the exit status).
func listStoreSessions(a *app, opts *fixOptions, d discovery) error {
	var names []string
	for _, in := range d.Inputs {
		if s := in.Store; s != nil && !s.Database {
			loc := check.StoreLocation{SessionKey: s.Window.Key, SessionID: s.Window.SessionID, Current: s.Window.Current}
			names = append(names, in.Path+"#"+loc.Name())
		}
	}
	if len(d.Databases) == 0 {
		return nil
	}
	if opts.Stdout {
		return usageErrorf("fix: --stdout takes a session file; %s is an OpenClaw SQLite store, which fix never writes (export the session first)", d.Databases[0])
	}
	report.FixStoreSessions(a.Err, names, d.Cold)
	return nil
}
