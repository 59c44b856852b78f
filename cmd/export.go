package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// exportOptions are the export command's flags.
type exportOptions struct {
	session, agent, out string
	force               bool
}

func newExportCmd(a *app) *cobra.Command {
	opts := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export --session KEY|ID [--agent A] [-o FILE] [STATE_DIR|DB]",
		Short: "Write a session of OpenClaw's SQLite store as a JSONL transcript",
		Long: `Write one session of an OpenClaw 2026.9 SQLite store as a JSONL transcript,
byte for byte as OpenClaw exports it, so that check, fix and replay (and any
JSONL tool) can work on it. The store is only read, never changed (see
docs/store.md).

--session is a session key (agent:main:main, its current session) or a
session id (any session window). --agent picks the agent when the same id
exists in several. The store is STATE_DIR (every agents/*/agent/
openclaw-agent.sqlite in it) or one openclaw-agent.sqlite file; by default the
state folder ($OPENCLAW_STATE_DIR, else ~/.openclaw).

The transcript goes to standard output, or to -o FILE: a new file outside the
state folder (--force replaces an existing one).
` + exitStatusHelp,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.session == "" {
				return usageErrorf("export: --session is required (a session key or id)")
			}
			return runExport(cmd.Context(), a, opts, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.session, "session", "", "session key or session id to export")
	fs.StringVar(&opts.agent, "agent", "", "agent id, when the session exists in several agents")
	fs.StringVarP(&opts.out, "output", "o", "", "write to FILE instead of standard output")
	fs.BoolVar(&opts.force, "force", false, "replace an existing -o FILE")
	return cmd
}

// runExport finds the session and writes its export.
func runExport(ctx context.Context, a *app, opts *exportOptions, args []string) error {
	root, dbs, err := storeDatabases(a, "export", args)
	if err != nil {
		return err
	}
	db, w, err := findStoreSession(ctx, "export", dbs, opts.agent, opts.session)
	if err != nil {
		return err
	}
	defer db.Close()
	if opts.out == "" {
		out := bufio.NewWriterSize(a.Out, 64<<10)
		_, _, err := db.Export(ctx, w.SessionID, out)
		// The lines read before a failure go out whatever the session's
		// size: before a row OpenClaw cannot read either, they are the
		// session's readable part, which check's hint for such a row
		// points to.
		flushErr := out.Flush()
		if err != nil {
			return exportError(err)
		}
		return flushErr
	}
	if err := checkExportTarget(opts.out, root, opts.force); err != nil {
		return err
	}
	return writeExportFile(opts.out, func(f io.Writer) error {
		_, _, err := db.Export(ctx, w.SessionID, f)
		return err
	})
}

// storeDatabases resolves the argument of a store command (or the state
// folder) to agent databases, and the folder they are in (which export's
// -o must stay out of). name prefixes its errors.
func storeDatabases(a *app, name string, args []string) (root string, dbs []store.AgentDatabase, err error) {
	if len(args) == 0 {
		root, _ = stateDir(a)
	} else {
		root = args[0]
	}
	st, err := os.Stat(root)
	if err != nil {
		return "", nil, &unreadableError{err: fmt.Errorf("%s: %w", name, err)}
	}
	if !st.IsDir() {
		// agents/<agent>/agent/openclaw-agent.sqlite names its agent.
		return filepath.Dir(root), []store.AgentDatabase{databaseAt(root)}, nil
	}
	dbs, err = store.AgentDatabases(root)
	if err != nil {
		return "", nil, &unreadableError{err: fmt.Errorf("%s: %w", name, err)}
	}
	if len(dbs) == 0 {
		return "", nil, &unreadableError{err: fmt.Errorf("%s: no agent database (agents/*/agent/%s) in %s", name, store.DatabaseName, root)}
	}
	return root, dbs, nil
}

// databaseAt is the agent database at path: agents/<agent>/agent/
// openclaw-agent.sqlite names its agent.
func databaseAt(path string) store.AgentDatabase {
	return store.AgentDatabase{AgentID: filepath.Base(filepath.Dir(filepath.Dir(path))), Path: path}
}

// findStoreSession opens the databases of the agent (all without one) and
// returns the one database, still open, that has the session, and its
// window, without its counts (store.DB.Locate). name prefixes its errors.
func findStoreSession(ctx context.Context, name string, dbs []store.AgentDatabase, agent, ref string) (*store.DB, store.Window, error) {
	var (
		found  *store.DB
		window store.Window
		where  []string
	)
	for _, d := range dbs {
		if agent != "" && d.AgentID != agent {
			continue
		}
		db, err := store.Open(ctx, d.Path)
		if err != nil {
			if found != nil {
				found.Close()
			}
			return nil, window, &unreadableError{err: fmt.Errorf("%s: %w", name, err)}
		}
		w, err := db.Locate(ctx, ref)
		switch {
		case errors.Is(err, store.ErrNoSession):
			db.Close()
			continue
		case err != nil:
			db.Close()
			if found != nil {
				found.Close()
			}
			return nil, window, &unreadableError{err: fmt.Errorf("%s: %w", name, err)}
		}
		where = append(where, d.AgentID)
		if found != nil {
			db.Close()
			continue
		}
		found, window = db, w
	}
	switch {
	case len(where) > 1:
		found.Close()
		return nil, window, usageErrorf("%s: session %q exists in agents %s: give --agent", name, ref, strings.Join(where, ", "))
	case found == nil && agent != "":
		return nil, window, &unreadableError{err: fmt.Errorf("%s: no session %q in agent %q", name, ref, agent)}
	case found == nil:
		return nil, window, &unreadableError{err: fmt.Errorf("%s: no session %q in any agent database", name, ref)}
	}
	return found, window, nil
}

// checkExportTarget refuses an -o path inside the state folder (the store
// is never written) and an existing file without --force.
func checkExportTarget(out, root string, force bool) error {
	absOut, err1 := filepath.Abs(out)
	absRoot, err2 := filepath.Abs(root)
	if err := errors.Join(err1, err2); err != nil {
		return &unreadableError{err: fmt.Errorf("export: %w", err)}
	}
	if rel, err := filepath.Rel(absRoot, absOut); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return usageErrorf("export: -o %s is inside the state folder %s, which export never writes", out, root)
	}
	if _, err := os.Lstat(out); err == nil && !force {
		return usageErrorf("export: %s exists (use --force to replace it)", out)
	}
	return nil
}

// writeExportFile writes through a temporary file beside out, renamed over
// it once written, so an interrupted or failed export leaves no partial
// file. The one exception is a row the store cannot give (a
// *store.RowError): the session's readable part ends there, in OpenClaw
// too, so out gets the lines before that row and the refusal says so.
func writeExportFile(out string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return &unreadableError{err: fmt.Errorf("export: %w", err)}
	}
	defer os.Remove(tmp.Name())
	buf := bufio.NewWriterSize(tmp, 64<<10)
	rowErr := write(buf)
	var row *store.RowError
	if rowErr != nil && !errors.As(rowErr, &row) {
		tmp.Close()
		return exportError(rowErr)
	}
	err = buf.Flush()
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		return &unreadableError{err: fmt.Errorf("export: %w", err)}
	}
	if row != nil {
		return &refusedError{err: fmt.Errorf("export: %w; %s holds the %s", rowErr, out, linesBefore(row.Line))}
	}
	return nil
}

// linesBefore says what an export stopped at line holds.
func linesBefore(line int) string {
	switch line {
	case 1:
		return "session's readable part: nothing, as that is its first row"
	case 2:
		return "one line before it"
	}
	return fmt.Sprintf("%d lines before it", line-1)
}

// exportError classes a failed export: a row OpenClaw could not read
// either is a refusal (exit 1), anything else an unreadable input.
func exportError(err error) error {
	var row *store.RowError
	if errors.As(err, &row) {
		return &refusedError{err: fmt.Errorf("export: %w", err)}
	}
	return &unreadableError{err: err}
}
