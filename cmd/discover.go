package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// input is one session transcript to read.
type input struct {
	Path  string // as given or found; "-" for standard input
	Stdin bool
	// Store is a session of an OpenClaw SQLite store (Path is then its
	// database), or the database's own checks; nil for a file.
	Store *storeInput
}

// discovery is what discoverSessions found.
type discovery struct {
	Inputs []input
	// Roots are the session folders scanned when no argument was given
	// (only those that exist), for the "scanned" note.
	Roots []string
	// Skipped counts the sibling files (index, locks, backups, archives,
	// trajectories…) left out of folders.
	Skipped int
	// Databases are the agent databases found; Sessions counts their
	// session inputs and Cold the sessions left out because they are in
	// cold storage.
	Databases      []string
	Sessions, Cold int
	// Stores are the agent databases found, with what their listing gave.
	Stores []foundStore
}

// foundStore is an agent database as discovery read it.
type foundStore struct {
	DB      store.AgentDatabase
	Meta    store.Meta
	Windows []store.Window  // every session window, cold ones included
	Nodes   []store.Session // the session keys, with their updated_at
	Err     error           // the database could not be opened or listed
}

// discoverSessions resolves the command line of check and fix into the
// transcripts to read, in order:
//
//   - "-" is standard input (once);
//   - a state folder (one whose agents/ folder holds an agent's sessions/
//     folder or agent database) is what OpenClaw itself reads there: the
//     primary transcripts directly in agents/*/sessions and the agent
//     databases, nothing else (not import archives, backups, trajectories,
//     or the lost-and-found folder fix writes);
//   - any other folder is searched recursively for primary transcripts
//     (*.jsonl), skipping the files OpenClaw keeps beside transcripts
//     (sessions.json, locks, trajectories, checkpoints, backups, reset and
//     deleted archives) and archive/ sub-folders;
//   - any other argument is a file, taken as given even when it does not
//     exist or is not a transcript name (reading it reports the problem);
//   - an agent database of OpenClaw's SQLite store (a file that starts
//     with SQLite's header) is its sessions (one input each, plus one for
//     the database's own checks), and a folder's agents/*/agent/
//     openclaw-agent.sqlite databases are added to its transcripts;
//   - no argument means the local install: $OPENCLAW_STATE_DIR (or the
//     configured state folder) alone when set, otherwise ~/.openclaw
//     (agents/*/sessions and the older sessions/) and the legacy
//     ~/.clawdbot and ~/.moltbot agents folders, where they exist, and the
//     agent databases of the state folder.
//
// It fails (exit 2) when a folder cannot be listed, or when no argument was
// given and neither a session folder nor an agent database exists.
func discoverSessions(ctx context.Context, args []string, a *app) (discovery, error) {
	if len(args) == 0 {
		return discoverInstall(ctx, a)
	}
	var d discovery
	stdin := false
	for _, arg := range args {
		if arg == "-" {
			if !stdin {
				d.Inputs = append(d.Inputs, input{Path: "-", Stdin: true})
			}
			stdin = true
			continue
		}
		fi, err := os.Stat(arg)
		if err != nil || !fi.IsDir() {
			if err == nil && fi.Mode().IsRegular() && isSQLite(arg) {
				d.addDatabase(ctx, databaseAt(arg))
				continue
			}
			d.Inputs = append(d.Inputs, input{Path: arg})
			continue
		}
		if isStateDir(arg) {
			if err := d.addState(ctx, arg); err != nil {
				return d, &unreadableError{err: err}
			}
			continue
		}
		if err := d.walk(arg); err != nil {
			return d, &unreadableError{err: err}
		}
	}
	d.Roots = nil // the "scanned" note is for the local install only
	return d, nil
}

// isStateDir reports an OpenClaw state folder: its agents/ folder holds
// at least one agent with a sessions/ folder or an agent database.
func isStateDir(dir string) bool {
	for _, pattern := range []string{
		filepath.Join(dir, "agents", "*", "sessions"),
		filepath.Join(dir, "agents", "*", "agent", store.DatabaseName),
	} {
		matches, _ := filepath.Glob(pattern)
		if len(matches) > 0 {
			return true
		}
	}
	return false
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// isSQLite reports a file that starts with SQLite's header (no transcript
// does). The caller asks only of regular files: opening a FIFO or a device
// could block or never end.
func isSQLite(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	return err == nil && bytes.Equal(head, sqliteHeader)
}

// addStores adds the agent databases of the state folder root.
func (d *discovery) addStores(ctx context.Context, root string) error {
	dbs, err := store.AgentDatabases(root)
	if err != nil {
		return err
	}
	for _, db := range dbs {
		d.addDatabase(ctx, db)
	}
	return nil
}

// addDatabase adds the checks of an agent database and one input per
// session window it lists (sessions in cold storage are counted, not
// read). A database that cannot be opened is one input that reports why.
func (d *discovery) addDatabase(ctx context.Context, db store.AgentDatabase) {
	d.Databases = append(d.Databases, db.Path)
	found := foundStore{DB: db}
	s, err := store.Open(ctx, db.Path)
	if err == nil {
		found.Meta = s.Meta()
		found.Windows, err = s.Windows(ctx)
		if err == nil {
			found.Nodes, err = s.Sessions(ctx)
		}
		s.Close()
	}
	found.Err = err
	d.Stores = append(d.Stores, found)
	d.Inputs = append(d.Inputs, input{Path: db.Path, Store: &storeInput{DB: db, Database: true, OpenErr: err}})
	for _, w := range found.Windows {
		if w.Cold {
			d.Cold++
			continue
		}
		d.Sessions++
		d.Inputs = append(d.Inputs, input{Path: db.Path, Store: &storeInput{DB: db, Window: w}})
	}
}

// addState adds the sessions OpenClaw reads in the state folder dir: the
// primary transcripts directly in its agents/*/sessions folders and its
// agent databases.
func (d *discovery) addState(ctx context.Context, dir string) error {
	if err := d.addRoots(filepath.Join(dir, "agents", "*", "sessions")); err != nil {
		return err
	}
	return d.addStores(ctx, dir)
}

// discoverState lists the sessions of the state folder dir (see addState),
// or, when it is none, the transcripts directly in dir.
func discoverState(ctx context.Context, dir string) (discovery, error) {
	var d discovery
	if err := d.addState(ctx, dir); err != nil {
		return d, &unreadableError{err: err}
	}
	if len(d.Roots) == 0 && len(d.Databases) == 0 {
		if err := d.list(dir); err != nil {
			return d, &unreadableError{err: err}
		}
	}
	return d, nil
}

// walk adds the transcripts under dir, in lexical order.
func (d *discovery) walk(dir string) error {
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != dir && e.Name() == "archive" {
				return filepath.SkipDir
			}
			return nil
		}
		d.consider(path, e)
		return nil
	})
}

// consider adds a folder entry if it is a primary transcript.
func (d *discovery) consider(path string, e fs.DirEntry) {
	if !isTranscriptName(e.Name()) {
		if !strings.HasPrefix(e.Name(), store.DatabaseName) { // an agent database and its side files are not siblings
			d.Skipped++
		}
		return
	}
	if e.Type()&fs.ModeSymlink != 0 {
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			d.Skipped++
			return
		}
	} else if !e.Type().IsRegular() {
		d.Skipped++
		return
	}
	d.Inputs = append(d.Inputs, input{Path: path})
}

// corruptCopy matches OpenClaw's corrupt-header copies,
// <file>.corrupt-<ISO time with : and . replaced by ->-<8 hex>.jsonl.
var corruptCopy = regexp.MustCompile(`\.corrupt-\d{4}-\d{2}-\d{2}T[0-9-]+Z-[0-9a-f]{8}\.jsonl$`)

// isTranscriptName reports a primary transcript file name: *.jsonl, but no
// trajectory, checkpoint or corrupt-header copy. Every other sibling
// (sessions.json, locks, backups, archives, temp files) does not end in
// ".jsonl".
func isTranscriptName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") &&
		!strings.HasSuffix(name, ".trajectory.jsonl") &&
		!strings.Contains(name, ".checkpoint.") &&
		!corruptCopy.MatchString(name)
}

// discoverInstall lists the sessions of the local install.
func discoverInstall(ctx context.Context, a *app) (discovery, error) {
	var d discovery
	if err := stateDirExists(a); err != nil {
		return d, &unreadableError{err: err}
	}
	for _, pattern := range installPatterns(a, globLiteral) {
		if err := d.addRoots(pattern); err != nil {
			return d, &unreadableError{err: err}
		}
	}
	if a.settings != nil && a.settings.StateDir != "" {
		if err := d.addStores(ctx, a.settings.StateDir); err != nil {
			return d, &unreadableError{err: err}
		}
	}
	if len(d.Roots) == 0 && len(d.Databases) == 0 {
		return d, &unreadableError{err: errNoInstall(installPatterns(a, func(p string) string { return p }))}
	}
	return d, nil
}

// addRoots adds the transcripts of the session folders pattern matches.
func (d *discovery) addRoots(pattern string) error {
	dirs, _ := filepath.Glob(pattern)
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		d.Roots = append(d.Roots, dir)
		if err := d.list(dir); err != nil {
			return err
		}
	}
	return nil
}

// list adds the transcripts directly in a sessions folder.
func (d *discovery) list(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			d.consider(filepath.Join(dir, e.Name()), e)
		}
	}
	return nil
}

// installPatterns are the session folders of the local install, as globs
// whose configured folders (state, home) literal writes: globLiteral for
// filepath.Glob, unchanged for a person to read.
func installPatterns(a *app, literal func(string) string) []string {
	if dir, explicit := stateDir(a); explicit {
		return []string{filepath.Join(literal(dir), "agents", "*", "sessions")}
	}
	home := literal(homeDir(a.getenv, homeOptions{openclaw: true})) // OPENCLAW_HOME, as config resolves the state folder
	return []string{
		filepath.Join(home, ".openclaw", "agents", "*", "sessions"),
		filepath.Join(home, ".openclaw", "sessions"),
		filepath.Join(home, ".clawdbot", "agents", "*", "sessions"),
		filepath.Join(home, ".moltbot", "agents", "*", "sessions"),
	}
}

// stateDirExists refuses a state folder set explicitly (by
// $OPENCLAW_STATE_DIR, a flag or a config file) that is not a folder:
// scanning nothing there would look like a clean install.
func stateDirExists(a *app) error {
	dir, explicit := stateDir(a)
	if !explicit {
		return nil
	}
	fi, err := os.Stat(dir)
	if err == nil && fi.IsDir() {
		return nil
	}
	from := "the configured state folder"
	for _, o := range a.settings.origins {
		if o.Key == "stateDir" && o.Origin != "" {
			from = "the state folder set by " + o.Origin
		}
	}
	if err == nil {
		return fmt.Errorf("%s, %s, is not a folder", from, dir)
	}
	return fmt.Errorf("%s, %s, does not exist (%v)\nhint: fix the path, or unset it to use ~/.openclaw", from, dir, errors.Unwrap(err))
}

// stateDir is the configured state folder and whether it was set
// explicitly ($OPENCLAW_STATE_DIR, a flag or a config file) rather than
// defaulted.
func stateDir(a *app) (string, bool) {
	if a.settings == nil {
		return "", false
	}
	for _, o := range a.settings.origins {
		if o.Key == "stateDir" {
			return a.settings.StateDir, o.Source != sourceDefault
		}
	}
	return a.settings.StateDir, false
}

// globLiteral is a pattern of filepath.Glob matching exactly the path p,
// whatever characters its names hold: a folder named "a[1]" or "*" is that
// folder, never a pattern matching others.
func globLiteral(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ { // byte by byte: a name need not be UTF-8
		switch c := p[i]; {
		case c == '*' || c == '?' || c == '[':
			b.WriteString("[" + string(c) + "]") // a class of one: literal on every system
		case c == '\\' && filepath.Separator != '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

type noInstallError struct{ looked []string }

func errNoInstall(looked []string) error { return &noInstallError{looked: looked} }

func (e *noInstallError) Error() string {
	return "no OpenClaw sessions found; looked in " + strings.Join(e.looked, ", ") +
		"\nhint: pass session files or folders, or set OPENCLAW_STATE_DIR"
}
