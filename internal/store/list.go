package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Transcript counts one session window's rows as OpenClaw's listing does.
type Transcript struct {
	Events int64 // rows in transcript_events
	MaxSeq int64 // -1 when there are none
	// Bytes is OpenClaw's transcript size: the stored UTF-8 sizes of the
	// events plus one "\n" between two events. An export of OpenClaw's own
	// rows is Bytes+1 bytes long (0 without events).
	Bytes int64
}

// Session is a session_nodes row: a session key and the session window it
// currently points to.
type Session struct {
	Key         string  // e.g. "agent:main:main"
	SessionID   string  // the key's current session id
	Label       *string // nil when NULL
	DisplayName *string // nil when NULL
	UpdatedAt   int64   // milliseconds since the Unix epoch
	Transcript          // of the current session
}

// Window is a session_windows row: one session id of a key, current or
// replaced (by a reset, a rollover, a fork...).
type Window struct {
	SessionID string
	Key       string
	Current   bool  // the key's session_nodes row names this session id
	UpdatedAt int64 // transcript_updated_at (ms), 0 when NULL
	// Cold: the transcript was moved to a cold archive
	// (session_transcript_cold_archives), which this package does not
	// read; ColdEvents and ColdBytes are the archive's event_count and
	// raw_bytes.
	Cold                  bool
	ColdEvents, ColdBytes int64
	Transcript
}

// statsSQL counts a session's rows; OpenClaw's size is the stored UTF-8
// size of each event (event_utf8_bytes, else the text's length in bytes).
// octet_length reads a text's size from its row header, without reading
// the text.
const statsSQL = `SELECT count(*), coalesce(max(seq), -1),
  coalesce(sum(coalesce(event_utf8_bytes, octet_length(event_json))), 0)
  FROM transcript_events WHERE session_id = ?`

// Estimate is [DB.Find]'s counts for sizing work, not for showing: Events
// and MaxSeq are exact on a sound database, but when the b-trees are read
// directly Bytes is exact for the first 1,024 rows only and estimated
// after them from the last row of each index leaf (about every 80th row),
// which reads a small part of the table; the index's leaves are counted,
// not read entry by entry.
func (s *DB) Estimate(ctx context.Context, sessionID string) (Transcript, error) {
	return s.count(ctx, sessionID, estimateEvery)
}

// estimateEvery is the share of rows past the first estimateExact whose
// size [DB.Estimate] reads where it visits them one by one.
const estimateEvery = 64

// estimateExact is how many rows [DB.Estimate] sizes exactly (a variable
// so that the tests can make the committed stores' sessions long enough).
var estimateExact int64 = 1024

// transcript counts the rows of one session exactly.
func (s *DB) transcript(ctx context.Context, sessionID string) (Transcript, error) {
	return s.count(ctx, sessionID, 1)
}

// count counts the rows of one session, reading the size of every
// sizeEvery-th: from the b-trees when the fast path may read them (see
// [DB.fastTranscript]), else exactly with statsSQL.
func (s *DB) count(ctx context.Context, sessionID string, sizeEvery int64) (Transcript, error) {
	t, err := s.fastTranscript(ctx, sessionID, sizeEvery)
	if s.fast == nil || s.fast.events == nil || errors.Is(err, errBTree) {
		t = Transcript{}
		if err = s.tx.QueryRowContext(ctx, statsSQL, sessionID).Scan(&t.Events, &t.MaxSeq, &t.Bytes); err != nil {
			return t, s.errorf("counting the events of session %s: %w", sessionID, err)
		}
	} else if err != nil {
		return t, err
	}
	if t.Events > 1 {
		t.Bytes += t.Events - 1
	}
	return t, nil
}

// fastTranscript answers statsSQL from the b-trees: the count and the
// highest seq from the index on (session_id, seq), each size from its
// row's record header (a text's size is in its serial type), reading a
// value past the row's cell only for an event_utf8_bytes stored there.
// It reads no overflow page of a plain row, where SQLite reads them all
// to reach the columns after event_json. With sizeEvery > 1 it reads the
// size of the first estimateExact rows and, after them, of every
// sizeEvery-th row the walk visits, which stand for the rest; there it
// counts each index leaf that holds only the session's entries from its
// cell count, sampling its last row, without visiting the others.
// errBTree: use the query.
func (s *DB) fastTranscript(ctx context.Context, sessionID string, sizeEvery int64) (Transcript, error) {
	t := Transcript{MaxSeq: -1}
	if s.fast == nil || s.fast.events == nil {
		return t, errBTree
	}
	w := s.fast.walk(s.fast.events, sessionID)
	var sampled, sampledBytes int64 // of the rows past estimateExact
	for step := 0; ; step++ {
		if step%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return t, err
			}
		}
		if sizeEvery > 1 && t.Events >= estimateExact {
			// Past the exact rows, whole index leaves of the session are
			// counted at once, and the last row of each sampled.
			n, err := w.skipLeaf()
			if err != nil {
				return t, err
			}
			if n > 0 {
				size, err := w.eventSize()
				if err != nil {
					return t, err
				}
				sampled++
				sampledBytes += size
				t.Events += int64(n)
				t.MaxSeq = max(t.MaxSeq, w.order)
				continue
			}
		}
		_, ok, err := w.nextEntry()
		if err != nil {
			return t, err
		}
		if !ok {
			break
		}
		switch {
		case sizeEvery == 1 || t.Events < estimateExact:
			n, err := w.eventSize()
			if err != nil {
				return t, err
			}
			t.Bytes += n
		case t.Events%sizeEvery == 0:
			n, err := w.eventSize()
			if err != nil {
				return t, err
			}
			sampled++
			sampledBytes += n
		}
		t.Events++
		if t.Events == 1 || w.order > t.MaxSeq {
			t.MaxSeq = w.order
		}
	}
	if sampled > 0 {
		t.Bytes += sampledBytes * (t.Events - estimateExact) / sampled
	}
	return t, nil
}

// eventSize is the current row's size as statsSQL sums it (0 for NULL).
func (w *treeWalk) eventSize() (int64, error) {
	if err := w.head(); err != nil {
		return 0, err
	}
	r := &w.row
	text, size := w.tree.at[colEventJSON], w.tree.at[colEventBytes]
	if !r.null(size) && !r.has(size) {
		if err := w.full(); err != nil {
			return 0, err
		}
	}
	switch n, null, ok := r.intOrNull(size); {
	case !ok:
		return 0, btreeErrorf("seq %d: event_utf8_bytes type", w.order)
	case !null:
		return n, nil
	}
	switch ty := r.types[text]; {
	case ty >= 13 && ty%2 == 1: // TEXT: its size in bytes
		n, _ := serialSize(ty)
		return int64(n), nil
	case ty != 0: // octet_length of another type: leave it to SQLite
		return 0, btreeErrorf("seq %d: event_json type", w.order)
	}
	return 0, nil
}

// queryRows runs query with args in the snapshot and scans each row.
func queryRows[T any](ctx context.Context, s *DB, what, query string, scan func(*sql.Rows, *T) error, args ...any) ([]T, error) {
	rows, err := s.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.errorf("reading %s: %w", what, err)
	}
	var out []T
	for rows.Next() {
		var x T
		if err := scan(rows, &x); err != nil {
			rows.Close()
			return nil, s.errorf("reading %s: %w", what, err)
		}
		out = append(out, x)
	}
	if err := closeRows(rows); err != nil {
		return nil, s.errorf("reading %s: %w", what, err)
	}
	return out, nil
}

// Sessions lists the session_nodes rows ordered by key, each with the
// counts of its current session.
func (s *DB) Sessions(ctx context.Context) ([]Session, error) {
	out, err := queryRows(ctx, s, "the session_nodes rows", `SELECT session_key, current_session_id, label, display_name, updated_at
  FROM session_nodes ORDER BY session_key`, func(rows *sql.Rows, x *Session) error {
		var label, name sql.NullString
		err := rows.Scan(&x.Key, &x.SessionID, &label, &name, &x.UpdatedAt)
		x.Label, x.DisplayName = nullable(label), nullable(name)
		return err
	})
	for i := 0; err == nil && i < len(out); i++ {
		out[i].Transcript, err = s.transcript(ctx, out[i].SessionID)
	}
	return out, err
}

func nullable(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	return &v.String
}

// Windows lists every session window, ordered by key then session id, each
// with its counts.
func (s *DB) Windows(ctx context.Context) ([]Window, error) {
	out, err := s.windows(ctx)
	for i := 0; err == nil && i < len(out); i++ {
		out[i].Transcript, err = s.transcript(ctx, out[i].SessionID)
	}
	return out, err
}

// windows lists every session window, without counts.
func (s *DB) windows(ctx context.Context) ([]Window, error) {
	cold := `0, 0, 0`
	if s.tables["session_transcript_cold_archives"] {
		cold = `c.session_id IS NOT NULL, coalesce(c.event_count, 0), coalesce(c.raw_bytes, 0)`
	}
	query := `SELECT w.session_id, w.session_key,
  coalesce(n.current_session_id = w.session_id, 0), coalesce(w.transcript_updated_at, 0), ` + cold + `
  FROM session_windows w LEFT JOIN session_nodes n ON n.session_key = w.session_key`
	if s.tables["session_transcript_cold_archives"] {
		query += ` LEFT JOIN session_transcript_cold_archives c ON c.session_id = w.session_id`
	}
	query += ` ORDER BY w.session_key, w.session_id`
	return queryRows(ctx, s, "the session_windows rows", query, func(rows *sql.Rows, x *Window) error {
		return rows.Scan(&x.SessionID, &x.Key, &x.Current, &x.UpdatedAt, &x.Cold, &x.ColdEvents, &x.ColdBytes)
	})
}

// ErrNoSession is wrapped by [DB.Find] when nothing matches.
var ErrNoSession = errors.New("no such session")

// Find resolves ref, a session key or a session id (current or not), to
// its window, with its counts. A key names its current session.
func (s *DB) Find(ctx context.Context, ref string) (Window, error) {
	w, err := s.Locate(ctx, ref)
	if err != nil {
		return w, err
	}
	w.Transcript, err = s.transcript(ctx, w.SessionID)
	return w, err
}

// Locate is [DB.Find] without the counts (w.Transcript is zero): it reads
// no events.
func (s *DB) Locate(ctx context.Context, ref string) (Window, error) {
	windows, err := s.windows(ctx)
	if err != nil {
		return Window{}, err
	}
	var byID *Window
	for i := range windows {
		w := &windows[i]
		if w.Key == ref && w.Current {
			return *w, nil
		}
		if w.SessionID == ref {
			byID = w
		}
	}
	if byID != nil {
		return *byID, nil
	}
	// A key whose current session has no window row yet.
	var id string
	err = s.tx.QueryRowContext(ctx, `SELECT current_session_id FROM session_nodes WHERE session_key = ?`, ref).Scan(&id)
	if err == nil {
		return Window{SessionID: id, Key: ref, Current: true}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Window{}, s.errorf("looking up session %q: %w", ref, err)
	}
	return Window{}, fmt.Errorf("store: %s: %w: %q is neither a session key nor a session id (keys: %s)", s.path, ErrNoSession, ref, keyList(windows))
}

func keyList(ws []Window) string {
	var keys []string
	for _, w := range ws {
		if w.Current {
			keys = append(keys, w.Key)
		}
	}
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}
