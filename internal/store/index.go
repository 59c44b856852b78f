package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// IndexKind is the kind of an [IndexFault].
type IndexKind int

const (
	// IdentityMismatch: an event's id or parentId is not what its
	// transcript_event_identities row says, an event with an id has no
	// such row, or a row names a seq that holds no event.
	IdentityMismatch IndexKind = iota + 1
	// ActiveEventMissing: a session_transcript_active_events row (the
	// indexed active branch OpenClaw's runtime loads) names a seq that
	// holds no event.
	ActiveEventMissing
	// NodeSessionMissing: a session_nodes row names a current session id
	// that has no session_windows row.
	NodeSessionMissing
)

func (k IndexKind) String() string {
	switch k {
	case IdentityMismatch:
		return "event identity mismatch"
	case ActiveEventMissing:
		return "active event missing"
	case NodeSessionMissing:
		return "session missing"
	}
	return fmt.Sprintf("IndexKind(%d)", int(k))
}

// IndexFault is a row of an index table that disagrees with the events or
// the sessions. OpenClaw's runtime reads these tables, not the events, to
// find a session's entries, so such a row changes what it loads.
type IndexFault struct {
	Kind       IndexKind
	SessionKey string // NodeSessionMissing: the key; "" otherwise
	SessionID  string
	Seq        int64 // the seq the row names (-1 for NodeSessionMissing)
	Line       int   // the event's line in the export; 0 when no event has the seq
	Detail     string
}

// maxIdentityFaults bounds the identity faults one export collects; the
// count past it is still kept ([ExportReader.IdentityFaults]).
const maxIdentityFaults = 1000

// CheckedReader is [DB.Reader] that also compares each event's id and
// parentId with its transcript_event_identities row as it goes; the
// differences are in [ExportReader.IdentityFaults] once the export ends.
// The text produced is the same as Reader's.
func (s *DB) CheckedReader(ctx context.Context, sessionID string) (*ExportReader, error) {
	rows, err := s.events(ctx, sessionID, true)
	if err != nil {
		return nil, err
	}
	return &ExportReader{ctx: ctx, rows: rows}, nil
}

// IdentityFaults are the identity differences a [DB.CheckedReader] found
// so far (at most 1,000) and how many there were in all.
func (r *ExportReader) IdentityFaults() ([]IndexFault, int) {
	faults, n := r.identityFaults, r.identityCount
	for _, seq := range r.rows.identity.dupSeqs {
		if len(faults) < maxIdentityFaults {
			faults = append(faults, IndexFault{Kind: IdentityMismatch, SessionID: r.rows.sessionID, Seq: seq,
				Detail: fmt.Sprintf("several transcript_event_identities rows name seq %d", seq)})
		}
	}
	return faults, n + r.rows.identity.dups
}

// checkIdentity compares the parsed event v of the current row with the
// row's identity.
func (r *ExportReader) checkIdentity(v *jsonl.Value) {
	ev, id := r.rows.ev, r.rows.identity
	eventID, hasID := v.Get("id").Str()
	parent, hasParent := v.Get("parentId").Str()
	var detail string
	switch {
	case !id.found && !hasID:
		return // an entry without an id has no identity row
	case !id.found:
		detail = fmt.Sprintf("event id %q has no transcript_event_identities row", eventID)
	case !hasID || id.eventID.String != eventID:
		detail = fmt.Sprintf("event id is %s, transcript_event_identities says %q", quoteOr(eventID, hasID), id.eventID.String)
	case hasParent != id.parent.Valid || parent != id.parent.String:
		detail = fmt.Sprintf("event %q has parentId %s, transcript_event_identities says %s", eventID,
			quoteOr(parent, hasParent), quoteOr(id.parent.String, id.parent.Valid))
	default:
		return
	}
	r.addIdentityFault(ev.Seq, ev.Line, detail)
}

func (r *ExportReader) addIdentityFault(seq int64, line int, detail string) {
	r.identityCount++
	if len(r.identityFaults) < maxIdentityFaults {
		r.identityFaults = append(r.identityFaults, IndexFault{Kind: IdentityMismatch, SessionID: r.rows.sessionID,
			Seq: seq, Line: line, Detail: detail})
	}
}

func quoteOr(s string, ok bool) string {
	if !ok {
		return "null"
	}
	return fmt.Sprintf("%q", s)
}

// IndexFaults lists the index rows of sessionID that name a seq holding no
// event, of the kinds asked for: session_transcript_active_events rows
// ([ActiveEventMissing]) and transcript_event_identities rows
// ([IdentityMismatch]), in seq order. Tables the schema lacks are skipped.
// Each kind costs about one pass over the session's index rows.
func (s *DB) IndexFaults(ctx context.Context, sessionID string, kinds ...IndexKind) ([]IndexFault, error) {
	var out []IndexFault
	for _, q := range []struct {
		kind         IndexKind
		table, query string
		detail       string
	}{
		{ActiveEventMissing, "session_transcript_active_events", `SELECT a.event_seq, a.active_position
  FROM session_transcript_active_events a WHERE a.session_id = ?1
  AND NOT EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = ?1 AND e.seq = a.event_seq)
  ORDER BY a.event_seq`, "session_transcript_active_events position %s names seq %d, which holds no event"},
		{IdentityMismatch, "transcript_event_identities", `SELECT i.seq, i.event_id
  FROM transcript_event_identities i WHERE i.session_id = ?1
  AND NOT EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = ?1 AND e.seq = i.seq)
  ORDER BY i.seq`, "transcript_event_identities row %q names seq %d, which holds no event"},
	} {
		if !s.tables[q.table] || !slices.Contains(kinds, q.kind) {
			continue
		}
		rows, err := s.tx.QueryContext(ctx, q.query, sessionID)
		if err != nil {
			return nil, s.errorf("reading %s of session %s: %w", q.table, sessionID, err)
		}
		for rows.Next() {
			var seq int64
			var what string
			if err := rows.Scan(&seq, &what); err != nil {
				rows.Close()
				return nil, s.errorf("reading %s of session %s: %w", q.table, sessionID, err)
			}
			out = append(out, IndexFault{Kind: q.kind, SessionID: sessionID, Seq: seq, Detail: fmt.Sprintf(q.detail, what, seq)})
		}
		if err := closeRows(rows); err != nil {
			return nil, s.errorf("reading %s of session %s: %w", q.table, sessionID, err)
		}
	}
	slices.SortStableFunc(out, func(a, b IndexFault) int { return int(a.Seq - b.Seq) })
	return out, nil
}

// NodeFaults lists the session_nodes rows whose current session id has no
// session_windows row ([NodeSessionMissing]), by key.
func (s *DB) NodeFaults(ctx context.Context) ([]IndexFault, error) {
	return queryRows(ctx, s, "the session_nodes rows", `SELECT n.session_key, n.current_session_id FROM session_nodes n
  WHERE NOT EXISTS (SELECT 1 FROM session_windows w WHERE w.session_id = n.current_session_id)
  ORDER BY n.session_key`, func(rows *sql.Rows, f *IndexFault) error {
		err := rows.Scan(&f.SessionKey, &f.SessionID)
		f.Kind, f.Seq = NodeSessionMissing, -1
		f.Detail = fmt.Sprintf("session_nodes row %q names session %s, which has no session_windows row", f.SessionKey, f.SessionID)
		return err
	})
}

// Seqs maps export lines of sessionID (1-based, in any order) to their
// seq; lines past the end are left out.
func (s *DB) Seqs(ctx context.Context, sessionID string, lines []int) (map[int]int64, error) {
	out := map[int]int64{}
	if len(lines) == 0 {
		return out, nil
	}
	want := slices.Clone(lines)
	slices.Sort(want)
	rows, err := s.tx.QueryContext(ctx, `SELECT seq FROM transcript_events WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, s.errorf("reading the seqs of session %s: %w", sessionID, err)
	}
	line := 0
	for i := 0; i < len(want) && rows.Next(); {
		line++
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			rows.Close()
			return nil, s.errorf("reading the seqs of session %s: %w", sessionID, err)
		}
		for ; i < len(want) && want[i] <= line; i++ {
			if want[i] == line {
				out[line] = seq
			}
		}
	}
	if err := closeRows(rows); err != nil {
		return nil, s.errorf("reading the seqs of session %s: %w", sessionID, err)
	}
	return out, nil
}
