package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
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

// maxIdentityFaults bounds the faults of each kind one export collects;
// the count past it is still kept ([ExportReader.IndexFaults]).
const maxIdentityFaults = 1000

// CheckedReader is [DB.Reader] that also checks the index rows of the
// kinds asked for while it exports, walking them beside the events in seq
// order: with [IdentityMismatch], each event's id and parentId against its
// transcript_event_identities row, and identity rows naming a seq that
// holds no event; with [ActiveEventMissing], session_transcript_active_events
// rows naming such a seq. [ExportReader.IndexFaults] gives the faults once
// the export ends. The text produced is the same as Reader's.
func (s *DB) CheckedReader(ctx context.Context, sessionID string, kinds ...IndexKind) (*ExportReader, error) {
	rows, err := s.events(ctx, sessionID, kinds)
	if err != nil {
		return nil, err
	}
	return newExportReader(ctx, rows), nil
}

// IndexFaults are the index faults of the kinds asked of a
// [DB.CheckedReader] (at most 1,000 of each kind) and how many there were
// in all, in seq order, identity mismatches of events first. Call it once
// the export has ended: when it stopped at a row that cannot be read, the
// index rows naming a missing seq are found by one more pass over them.
func (r *ExportReader) IndexFaults(ctx context.Context) ([]IndexFault, int, error) {
	r.stop()
	j := r.rows.index
	if j == nil {
		return nil, 0, nil
	}
	faults, n := j.identityFaults(), j.count+j.eventCount
	if !j.complete {
		more, err := r.rows.db.IndexFaults(ctx, r.rows.sessionID, j.kinds...)
		if err != nil {
			return faults, n, err
		}
		return append(faults, more...), n + len(more), nil
	}
	// The missing-seq rows by seq, the active-events table first (the
	// order of [DB.IndexFaults]).
	a, i := j.orphans[0], j.orphans[1]
	for len(a) > 0 || len(i) > 0 {
		if len(i) == 0 || (len(a) > 0 && a[0].Seq <= i[0].Seq) {
			faults, a = append(faults, a[0]), a[1:]
		} else {
			faults, i = append(faults, i[0]), i[1:]
		}
	}
	return faults, n, nil
}

// indexJoin walks a session's index rows beside its events, both in seq
// order: a merge join, so memory stays bounded and each table is read in
// one ordered pass.
type indexJoin struct {
	db        *DB
	sessionID string
	kinds     []IndexKind
	ident     *seqCursor // transcript_event_identities by seq; nil when not checked
	active    *seqCursor // session_transcript_active_events by event seq; nil when not checked
	// cur is the current event's identity row.
	cur identity
	// The rows are read on one goroutine and the events checked against
	// their identity rows on another (see [ExportReader]), each with its
	// own faults. Read side: mismatches are the seqs several identity rows
	// name, orphans the rows naming a seq without an event ([0]: active
	// events, [1]: identities), count counts them all. Check side:
	// eventFaults are the events that differ from their identity row,
	// eventCount counts them.
	mismatches  []IndexFault
	orphans     [2][]IndexFault
	count       int
	eventFaults []IndexFault
	eventCount  int
	complete    bool // the events were read to the end
}

// identity is an event's transcript_event_identities row, as the join
// found it.
type identity struct {
	found           bool
	eventID, parent nullBytes
}

// nullBytes is a TEXT value or NULL (valid false) that reuses its buffer.
type nullBytes struct {
	b     []byte
	valid bool
}

func (n *nullBytes) set(b []byte, valid bool) { n.b, n.valid = append(n.b[:0], b...), valid }

// seqCursor is an ordered index query with one row of lookahead. Its
// values a and b are valid until the next row is read.
type seqCursor struct {
	rows *sql.Rows
	ok   bool // a row is ahead
	seq  int64
	a, b nullBytes
	// sa and sb are the query's values, before a and b copy them.
	sa, sb sql.NullString
	// fast reads the identity rows from the b-trees; after the first row
	// it cannot read, the driver reads the rest (rest, from the rows at
	// the highest seq read, maxSeq, skipping the atMax already read). nil:
	// rows is the query.
	fast   *treeWalk
	rest   func(seq int64, read bool) (*sql.Rows, error)
	maxSeq int64
	atMax  int
	read   bool // the fast path read a row
}

func (c *seqCursor) next() error {
	if c.fast != nil {
		err := c.fastNext()
		if err == nil || !errors.Is(err, errBTree) {
			return err
		}
		c.fast = nil
		if c.rows, err = c.rest(c.maxSeq, c.read); err != nil {
			return err
		}
		for skip := c.atMax; skip > 0; skip-- {
			if err := c.scan(); err != nil || !c.ok {
				return err
			}
		}
	}
	return c.scan()
}

func (c *seqCursor) scan() error {
	c.ok = c.rows.Next()
	if !c.ok {
		return c.rows.Err()
	}
	if err := c.rows.Scan(&c.seq, &c.sa, &c.sb); err != nil {
		return err
	}
	c.a = nullBytes{b: []byte(c.sa.String), valid: c.sa.Valid}
	c.b = nullBytes{b: []byte(c.sb.String), valid: c.sb.Valid}
	return nil
}

// fastNext reads the next row from the b-trees: an identity row, or an
// active-events index entry (an index walked alone: its seq, and a and b
// NULL, as activeSeqSQL reads it).
func (c *seqCursor) fastNext() error {
	w := c.fast
	// a and b point into the page read, valid until the next row: the
	// join copies what it keeps before reading on.
	c.a, c.b = nullBytes{}, nullBytes{}
	rowid, ok, err := w.nextEntry()
	if ok && err == nil && w.tab != nil {
		var data []byte
		if data, err = w.tab.find(rowid); err == nil {
			err = textPair(data, w.tree.at[colEventID], w.tree.at[colParentID], w.tree.need, &c.a, &c.b)
		}
	}
	if err != nil {
		return err
	}
	c.ok = ok
	if !ok {
		return nil
	}
	switch {
	case !c.read || w.order > c.maxSeq:
		c.maxSeq, c.atMax = w.order, 1
	case w.order == c.maxSeq:
		c.atMax++
	}
	c.seq, c.read = w.order, true
	return nil
}

const (
	identitySeqSQL = `SELECT seq, event_id, parent_id FROM transcript_event_identities
  WHERE session_id = ? ORDER BY seq`
	// identityFromSQL reads the rest of them when the fast path stops.
	identityFromSQL = `SELECT seq, event_id, parent_id FROM transcript_event_identities
  WHERE session_id = ? AND seq >= ? ORDER BY seq`
	// activeSeqSQL reads only its index (session_id, event_seq); the
	// position of a row naming a missing seq is looked up (activePosSQL).
	activeSeqSQL = `SELECT event_seq, NULL, NULL FROM session_transcript_active_events
  WHERE session_id = ? ORDER BY event_seq`
	activeFromSQL = `SELECT event_seq, NULL, NULL FROM session_transcript_active_events
  WHERE session_id = ? AND event_seq >= ? ORDER BY event_seq`
	activePosSQL = `SELECT group_concat(active_position, ', ') FROM session_transcript_active_events
  WHERE session_id = ? AND event_seq = ?`
)

// joinIndex opens the ordered index queries of the kinds asked for (the
// tables the schema has).
func (s *DB) joinIndex(ctx context.Context, sessionID string, kinds []IndexKind) (*indexJoin, error) {
	j := &indexJoin{db: s, sessionID: sessionID, kinds: kinds}
	for _, q := range []struct {
		kind                IndexKind
		table, query, after string
		fast                *fastTree
		cur                 **seqCursor
	}{
		{IdentityMismatch, "transcript_event_identities", identitySeqSQL, identityFromSQL, s.fastTree(func(fp *fastPath) *fastTree { return fp.identities }), &j.ident},
		{ActiveEventMissing, "session_transcript_active_events", activeSeqSQL, activeFromSQL, s.fastTree(func(fp *fastPath) *fastTree { return fp.active }), &j.active},
	} {
		if !s.tables[q.table] || !slices.Contains(kinds, q.kind) {
			continue
		}
		var err error
		if q.fast != nil {
			*q.cur = &seqCursor{fast: s.fast.walk(q.fast, sessionID), rest: func(seq int64, read bool) (*sql.Rows, error) {
				if !read {
					return s.tx.QueryContext(ctx, q.query, sessionID)
				}
				return s.tx.QueryContext(ctx, q.after, sessionID, seq)
			}}
		} else {
			var rows *sql.Rows
			if rows, err = s.tx.QueryContext(ctx, q.query, sessionID); err == nil {
				*q.cur = &seqCursor{rows: rows}
			}
		}
		if err == nil {
			err = (*q.cur).next()
		}
		if err != nil {
			j.close()
			return nil, s.errorf("reading %s of session %s: %w", q.table, sessionID, err)
		}
	}
	return j, nil
}

// fastTree is the walk pick chooses, nil without the fast path.
func (s *DB) fastTree(pick func(*fastPath) *fastTree) *fastTree {
	if s.fast == nil {
		return nil
	}
	return pick(s.fast)
}

// advance moves the index rows up to the event at seq: rows before it name
// a seq without an event; the identity rows at seq are the event's.
func (j *indexJoin) advance(seq int64) error {
	if j.behind(seq) {
		if err := j.skipTo(seq); err != nil {
			return err
		}
	}
	if c := j.active; c != nil && c.ok && c.seq == seq {
		if err := c.next(); err != nil {
			return j.db.errorf("reading session_transcript_active_events of session %s: %w", j.sessionID, err)
		}
	}
	j.cur.found = false
	c := j.ident
	if c == nil || !c.ok || c.seq != seq {
		return nil
	}
	j.cur.found = true
	j.cur.eventID.set(c.a.b, c.a.valid)
	j.cur.parent.set(c.b.b, c.b.valid)
	for dup := false; ; dup = true {
		if err := c.next(); err != nil {
			return j.db.errorf("reading transcript_event_identities of session %s: %w", j.sessionID, err)
		}
		if !c.ok || c.seq != seq {
			return nil
		}
		if !dup {
			j.addMismatch(IndexFault{Kind: IdentityMismatch, SessionID: j.sessionID, Seq: seq,
				Detail: fmt.Sprintf("several transcript_event_identities rows name seq %d", seq)})
			j.count-- // counted per extra row below
		}
		j.count++
	}
}

// behind reports an index row before seq: the common event has none, and
// skips skipTo's loop over both cursors.
func (j *indexJoin) behind(seq int64) bool {
	return j.active != nil && j.active.ok && j.active.seq < seq || j.ident != nil && j.ident.ok && j.ident.seq < seq
}

// skipTo notes the index rows before seq: each names a seq that holds no
// event.
func (j *indexJoin) skipTo(seq int64) error {
	for i, c := range [2]*seqCursor{j.active, j.ident} {
		for c != nil && c.ok && c.seq < seq {
			j.addOrphan(i, c)
			if err := c.next(); err != nil {
				return j.db.errorf("reading the index rows of session %s: %w", j.sessionID, err)
			}
		}
	}
	return nil
}

func (j *indexJoin) addOrphan(i int, c *seqCursor) {
	j.count++
	if len(j.orphans[i]) >= maxIdentityFaults {
		return
	}
	var pos sql.NullString
	if i == 0 {
		// Only a faulty row's position is read from the table.
		if err := j.db.tx.QueryRow(activePosSQL, j.sessionID, c.seq).Scan(&pos); err != nil {
			pos.String = "?"
		}
	}
	f := IndexFault{Kind: ActiveEventMissing, SessionID: j.sessionID, Seq: c.seq,
		Detail: fmt.Sprintf("session_transcript_active_events position %s names seq %d, which holds no event", pos.String, c.seq)}
	if i == 1 {
		f.Kind = IdentityMismatch
		f.Detail = fmt.Sprintf("transcript_event_identities row %q names seq %d, which holds no event", c.a.b, c.seq)
	}
	j.orphans[i] = append(j.orphans[i], f)
}

func (j *indexJoin) addMismatch(f IndexFault) {
	j.count++
	if len(j.mismatches) < maxIdentityFaults {
		j.mismatches = append(j.mismatches, f)
	}
}

// finish notes the index rows past the last event.
func (j *indexJoin) finish() error {
	if err := j.skipTo(math.MaxInt64); err != nil {
		return err
	}
	j.complete = true
	return nil
}

func (j *indexJoin) close() {
	for _, c := range []*seqCursor{j.ident, j.active} {
		if c != nil && c.rows != nil {
			c.rows.Close()
		}
	}
}

// identityFaults are the identity faults of events in seq order (at most
// maxIdentityFaults): the two sides' faults merged, the read side's first
// at a seq (it finds a seq's duplicate rows before its event is checked).
func (j *indexJoin) identityFaults() []IndexFault {
	a, b := j.mismatches, j.eventFaults
	out := make([]IndexFault, 0, min(len(a)+len(b), maxIdentityFaults))
	for (len(a) > 0 || len(b) > 0) && len(out) < maxIdentityFaults {
		if len(b) == 0 || len(a) > 0 && a[0].Seq <= b[0].Seq {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}

// checkIdentity compares an event (its id and parentId members) with its
// identity row, j.cur when the event was read. It runs on the check side.
func (j *indexJoin) checkIdentity(ev Event, row identity, id, parentField topField) {
	if j.ident == nil {
		return
	}
	eventID, hasID := id.bytes()
	parent, hasParent := parentField.bytes()
	var detail string
	switch {
	case !row.found && !hasID:
		return // an entry without an id has no identity row
	case !row.found:
		detail = fmt.Sprintf("event id %q has no transcript_event_identities row", eventID)
	case !hasID || !bytes.Equal(row.eventID.b, eventID):
		detail = fmt.Sprintf("event id is %s, transcript_event_identities says %q", quoteOr(eventID, hasID), row.eventID.b)
	case hasParent != row.parent.valid || !bytes.Equal(row.parent.b, parent):
		detail = fmt.Sprintf("event %q has parentId %s, transcript_event_identities says %s", eventID,
			quoteOr(parent, hasParent), quoteOr(row.parent.b, row.parent.valid))
	default:
		return
	}
	j.eventCount++
	if len(j.eventFaults) < maxIdentityFaults {
		j.eventFaults = append(j.eventFaults, IndexFault{Kind: IdentityMismatch, SessionID: j.sessionID, Seq: ev.Seq, Line: ev.Line, Detail: detail})
	}
}

// valueField is the member key of a parsed event as a [topField].
func valueField(v *jsonl.Value, key string) topField {
	f := v.Get(key)
	s, ok := f.Str()
	return topField{present: f != nil, isString: ok, text: []byte(s)}
}

func quoteOr(s []byte, ok bool) string {
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
	if out, err := s.fastSeqs(ctx, sessionID, want); !errors.Is(err, errBTree) {
		return out, err
	}
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

// fastSeqs is [DB.Seqs] from the events' index alone (want sorted);
// errBTree: use the query.
func (s *DB) fastSeqs(ctx context.Context, sessionID string, want []int) (map[int]int64, error) {
	if s.fast == nil || s.fast.events == nil {
		return nil, errBTree
	}
	out := map[int]int64{}
	w := s.fast.walk(s.fast.events, sessionID)
	for line, i := 0, 0; i < len(want); {
		if line%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		_, ok, err := w.nextEntry()
		if err != nil || !ok {
			return out, err
		}
		line++
		for ; i < len(want) && want[i] <= line; i++ {
			if want[i] == line {
				out[line] = w.order
			}
		}
	}
	return out, nil
}
