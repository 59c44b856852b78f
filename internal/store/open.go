package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// SchemaVersion is the agent database schema this package was written for
// (OpenClaw 2026.9.6). A newer database is still read; [Meta.Newer] says so.
const SchemaVersion = 23

// Mode is the way [Open] opened a database.
type Mode int

const (
	// ModeReadOnly is SQLite's mode=ro with readonly_shm=1 and query_only:
	// shared read locks, and the -shm (the WAL index) opened read-only, so
	// SQLite never writes it. With no other connection live, SQLite reads
	// the -wal into private memory instead of rebuilding the index.
	ModeReadOnly Mode = iota + 1
	// ModeImmutable is SQLite's immutable=1: no locks and no side files.
	// Used only when no -wal file holds frames and no -shm file exists.
	ModeImmutable
)

func (m Mode) String() string {
	switch m {
	case ModeReadOnly:
		return "read-only"
	case ModeImmutable:
		return "immutable"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ErrWALWithoutIndex is returned by [Open] for a database whose -wal file
// holds frames but whose -shm file is missing: SQLite would create the
// -shm to read the frames, and skipping them would lose committed events.
var ErrWALWithoutIndex = errors.New("the -wal file holds frames but its -shm file is missing; reading it would create the -shm file (open the database once with OpenClaw, or copy it with its -wal to a writable place)")

// SchemaError is a database this package cannot read: it has no transcript
// tables (schema version 1, written by OpenClaw 2026.6 and 2026.7), or no
// schema_meta at all.
type SchemaError struct {
	Path    string
	Version int64 // 0 when schema_meta is missing
	Missing string
}

func (e *SchemaError) Error() string {
	if e.Version == 0 {
		return fmt.Sprintf("%s: not an OpenClaw agent database: no %s table", e.Path, e.Missing)
	}
	return fmt.Sprintf("%s: schema version %d has no %s table (OpenClaw 2026.9 refuses it too): run `openclaw doctor --fix` to migrate it", e.Path, e.Version, e.Missing)
}

// Meta is the database's schema_meta "primary" row.
type Meta struct {
	Role          string // "agent"
	SchemaVersion int64
	AgentID       string // "" when NULL
	AppVersion    string // the OpenClaw version that wrote it; "" when NULL
}

// Newer reports whether the schema is newer than [SchemaVersion].
func (m Meta) Newer() bool { return m.SchemaVersion > SchemaVersion }

// DB is one agent database opened read-only, inside one read transaction.
// It is not safe for concurrent use.
type DB struct {
	path string
	mode Mode
	sql  *sql.DB
	tx   *sql.Tx
	meta Meta
	zstd *zstd.Decoder // created on the first compressed row
	// tables are the database's table names (the index and archive
	// tables are optional: an older or newer schema may lack them).
	tables map[string]bool
	// file is our own handle on the database file, for the fast path;
	// opened once and closed only after the driver (see openFastPath).
	file *os.File
	fast *fastPath // nil: every read goes through the driver
}

// Open opens the agent database at path read-only and starts the read
// transaction all later reads share (see the package documentation for the
// guarantees). Close it to release the read lock.
func Open(ctx context.Context, path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("store: %s: not a regular file", path)
	}
	mode, err := chooseMode(abs)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(abs, mode))
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	// One connection: the read transaction is the only user.
	db.SetMaxOpenConns(1)
	s := &DB{path: path, mode: mode, sql: db}
	if err := s.begin(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if f, err := os.Open(abs); err == nil {
		s.file = f
		s.fast = s.openFastPath(ctx, abs)
	}
	return s, nil
}

// chooseMode picks the open mode from the side files present (see Mode).
func chooseMode(abs string) (Mode, error) {
	wal, walErr := os.Stat(abs + "-wal")
	_, shmErr := os.Stat(abs + "-shm")
	switch {
	case walErr != nil && !errors.Is(walErr, os.ErrNotExist):
		return 0, walErr
	case shmErr != nil && !errors.Is(shmErr, os.ErrNotExist):
		return 0, shmErr
	case walErr != nil:
		// No -wal: no connection has the database open in WAL mode, and a
		// mode=ro reader would create the -wal and -shm files.
		return ModeImmutable, nil
	case shmErr == nil:
		return ModeReadOnly, nil
	case wal.Size() == 0:
		// An empty -wal without its index: nothing to read from it, and no
		// live connection (a live one keeps the -shm).
		return ModeImmutable, nil
	}
	return 0, ErrWALWithoutIndex
}

// dsn is the modernc.org/sqlite data source name for the mode: an SQLite
// URI (so mode= and immutable= apply) plus the driver's _pragma settings.
func dsn(abs string, mode Mode) string {
	q := url.Values{}
	q.Set("mode", "ro")
	if mode == ModeImmutable {
		q.Set("immutable", "1")
	} else {
		q.Set("readonly_shm", "1")
	}
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "busy_timeout(5000)")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

// begin starts the read transaction and reads schema_meta inside it, which
// takes the snapshot every later read sees.
func (s *DB) begin(ctx context.Context) error {
	tx, err := s.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.errorf("starting the read transaction: %w", err)
	}
	s.tx = tx
	s.tables = map[string]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		return s.errorf("reading the schema: %w", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return s.errorf("reading the schema: %w", err)
		}
		s.tables[name] = true
	}
	if err := closeRows(rows); err != nil {
		return s.errorf("reading the schema: %w", err)
	}
	names := [4]string{"schema_meta", "session_nodes", "session_windows", "transcript_events"}
	if !s.tables[names[0]] {
		return &SchemaError{Path: s.path, Missing: names[0]}
	}
	var agentID, appVersion sql.NullString
	err = tx.QueryRowContext(ctx, `SELECT role, schema_version, agent_id, app_version FROM schema_meta WHERE meta_key = 'primary'`).
		Scan(&s.meta.Role, &s.meta.SchemaVersion, &agentID, &appVersion)
	if errors.Is(err, sql.ErrNoRows) {
		return &SchemaError{Path: s.path, Missing: "schema_meta 'primary' row"}
	}
	if err != nil {
		return s.errorf("reading schema_meta: %w", err)
	}
	s.meta.AgentID, s.meta.AppVersion = agentID.String, appVersion.String
	for _, name := range names[1:] {
		if !s.tables[name] {
			return &SchemaError{Path: s.path, Version: s.meta.SchemaVersion, Missing: name}
		}
	}
	return nil
}

func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *DB) errorf(format string, args ...any) error {
	return fmt.Errorf("store: %s: "+format, append([]any{s.path}, args...)...)
}

// Path is the database path as given to [Open].
func (s *DB) Path() string { return s.path }

// Mode is the way the database was opened.
func (s *DB) Mode() Mode { return s.mode }

// Meta is the database's schema_meta row, read in the snapshot.
func (s *DB) Meta() Meta { return s.meta }

// Close ends the read transaction (releasing the read lock) and closes the
// database. It never writes: a read-only connection cannot checkpoint.
func (s *DB) Close() error {
	var err error
	if s.tx != nil {
		err = s.tx.Rollback()
		s.tx = nil
	}
	if s.zstd != nil {
		s.zstd.Close()
		s.zstd = nil
	}
	if cerr := s.sql.Close(); err == nil {
		err = cerr
	}
	// Only now: closing a handle on the file drops the process's locks.
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	if err != nil {
		return s.errorf("closing: %w", err)
	}
	return nil
}
