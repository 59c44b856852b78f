package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// The bounded view's limits, as OpenClaw 2026.9.6's runner sets them before
// a model call.
const (
	// DefaultContextTokens is the context window the view assumes when the
	// caller names none (a model's usual window).
	DefaultContextTokens = 200_000
	// MaxViewEvents bounds the events of a view (the header not counted).
	MaxViewEvents = 10_000
	minViewBytes  = 1024
	maxViewBytes  = 64 << 20
)

// ViewLimits bound a session's view: at most MaxBytes serialized bytes
// (each event's stored UTF-8 size plus one, the header included) and at
// most MaxEvents events besides the header.
type ViewLimits struct {
	MaxBytes  int64
	MaxEvents int64
}

// ContextLimits is the view OpenClaw loads for a model whose context window
// is tokens: 8 bytes per token, at least 1 KiB and at most 64 MiB, and
// MaxViewEvents events.
func ContextLimits(tokens int64) ViewLimits {
	b := int64(maxViewBytes)
	if tokens < maxViewBytes/8 {
		b = max(minViewBytes, tokens*8)
	}
	return ViewLimits{MaxBytes: b, MaxEvents: MaxViewEvents}
}

// ErrLegacyTranscript is returned for a session whose events have no session
// header of version 3 or later: OpenClaw's runtime refuses to load it.
//
//lint:ignore ST1005 OpenClaw's own message, which replay prints as OpenClaw does
var ErrLegacyTranscript = errors.New("Persisted legacy session transcripts require doctor/import migration before runtime use")

// ErrHeaderTooLarge is returned when the session header alone exceeds the
// view's byte limit, as OpenClaw refuses it.
var ErrHeaderTooLarge = errors.New("Session transcript header exceeds the active-context byte limit")

// View is the part of a session OpenClaw's runtime loads before a model
// call (see [DB.View]).
type View struct {
	SessionID string
	Limits    ViewLimits
	// Truncated: events of the active branch (or its latest compaction or
	// reset) were left out to stay within the limits.
	Truncated bool
	// Bytes is the serialized size the limits were measured against.
	Bytes int64
	// BranchEvents is the number of context events of the active branch.
	BranchEvents int64

	header int64 // the header's seq, -1 when there is none
	seqs   []int64
	edits  map[int64]viewEdit
}

// viewEdit re-links one event of the view to the view's own events, as
// OpenClaw's loader links them in memory: parentId to the previous event
// the view holds, firstKeptEntryId to the first kept event the view holds.
type viewEdit struct {
	parent, firstKept *string
}

// Events is the number of events in the view, the header included.
func (v *View) Events() int {
	if v.header >= 0 {
		return len(v.seqs) + 1
	}
	return len(v.seqs)
}

// navSQL is an event's navigation projection: the stored text of a plain
// row, the projection OpenClaw stores beside a compressed one.
const navSQL = `CASE WHEN e.navigation_json IS NULL THEN e.event_json ELSE json_extract(e.navigation_json, '$.navigation') END`

// resetSQL is the projection OpenClaw reads compaction and reset facts from.
const resetSQL = `CASE WHEN e.navigation_json IS NULL THEN e.event_json ELSE json_extract(e.navigation_json, '$.reset') END`

// sizeSQL is an event's serialized size as OpenClaw counts it.
const sizeSQL = `coalesce(e.event_utf8_bytes, octet_length(e.event_json)) + 1`

// View computes the bounded view of sessionID that OpenClaw 2026.9.6's
// runner loads before a model call: the session header, then the newest
// context events of the active branch (session_transcript_active_events
// rows with context_eligible = 1, newest first) while the header and the
// events fit in lim (an event that does not fit ends the view, which can
// therefore start inside a tool call's frame), plus the branch's latest
// compaction or reset when it was cut off and still fits. The events keep
// seq order. A session with events but no header of version 3 or later is
// refused with [ErrLegacyTranscript].
//
// Not modelled: sessions whose rows have no transcript_event_identities
// row (a legacy prefix OpenClaw's import left unindexed), and the messages
// a reset keeps that are excluded from context; OpenClaw resolves both with
// extra lookups this view does not make.
func (s *DB) View(ctx context.Context, sessionID string, lim ViewLimits) (*View, error) {
	if lim.MaxBytes < 1 || lim.MaxBytes > maxViewBytes || lim.MaxEvents < 1 || lim.MaxEvents > MaxViewEvents {
		return nil, fmt.Errorf("store: view limits %+v out of range", lim)
	}
	v := &View{SessionID: sessionID, Limits: lim, header: -1, edits: map[int64]viewEdit{}}
	var headerBytes int64
	err := s.tx.QueryRowContext(ctx, `SELECT e.seq, `+sizeSQL+` FROM transcript_events e
  WHERE e.session_id = ? AND json_extract(`+navSQL+`, '$.type') = 'session' ORDER BY e.seq LIMIT 1`, sessionID).
		Scan(&v.header, &headerBytes)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, s.errorf("reading the header of session %s: %w", sessionID, err)
	}
	if headerBytes > lim.MaxBytes {
		return nil, s.errorf("session %s: %w", sessionID, ErrHeaderTooLarge)
	}
	v.Bytes = headerBytes
	type meta struct{ seq, size int64 }
	selected, err := queryRows(ctx, s, "the active branch", `SELECT a.event_seq, `+sizeSQL+`
  FROM session_transcript_active_events a JOIN transcript_events e ON e.session_id = a.session_id AND e.seq = a.event_seq
  WHERE a.session_id = ? AND a.context_eligible = 1 ORDER BY a.active_position DESC LIMIT ?`,
		func(rows *sql.Rows, m *meta) error { return rows.Scan(&m.seq, &m.size) }, sessionID, lim.MaxEvents+1)
	if err != nil {
		return nil, err
	}
	in := map[int64]bool{}
	for _, m := range selected {
		if int64(len(v.seqs)) >= lim.MaxEvents || v.Bytes+m.size > lim.MaxBytes {
			v.Truncated = true
			break
		}
		v.seqs = append(v.seqs, m.seq)
		in[m.seq] = true
		v.Bytes += m.size
	}
	if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM session_transcript_active_events WHERE session_id = ? AND context_eligible = 1`,
		sessionID).Scan(&v.BranchEvents); err != nil {
		return nil, s.errorf("counting the active branch of session %s: %w", sessionID, err)
	}
	sort.Slice(v.seqs, func(i, j int) bool { return v.seqs[i] < v.seqs[j] })
	var boundary, boundarySize int64
	err = s.tx.QueryRowContext(ctx, `SELECT i.seq, `+sizeSQL+`
  FROM transcript_event_identities i
  JOIN session_transcript_active_events a ON a.session_id = i.session_id AND a.event_seq = i.seq
  JOIN transcript_events e ON e.session_id = i.session_id AND e.seq = i.seq
  WHERE i.session_id = ? AND i.event_type IN ('compaction', 'reset') ORDER BY a.active_position DESC LIMIT 1`, sessionID).
		Scan(&boundary, &boundarySize)
	injected := int64(-1)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, s.errorf("reading the latest compaction of session %s: %w", sessionID, err)
	case in[boundary]:
	case v.Bytes+boundarySize <= lim.MaxBytes:
		injected = boundary
		v.seqs = append([]int64{boundary}, v.seqs...)
		v.Bytes += boundarySize
	default:
		v.Truncated = true
	}
	if v.Events() > 0 {
		seqs := v.seqs
		if v.header >= 0 {
			seqs = append([]int64{v.header}, seqs...)
		}
		if err := s.checkHeader(ctx, sessionID, seqs); err != nil {
			return nil, err
		}
	}
	if err := s.relink(ctx, v, injected); err != nil {
		return nil, err
	}
	return v, nil
}

// CheckHeader refuses, with [ErrLegacyTranscript], a session that has
// events but no current header (see [DB.View]), as OpenClaw's runtime
// refuses to open it whole.
func (s *DB) CheckHeader(ctx context.Context, sessionID string) error {
	var n int
	if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM transcript_events WHERE session_id = ?`, sessionID).Scan(&n); err != nil {
		return s.errorf("counting the events of session %s: %w", sessionID, err)
	}
	if n == 0 {
		return nil
	}
	return s.checkHeader(ctx, sessionID, nil)
}

// checkHeader refuses events (seqs, or all of the session's when nil)
// whose header, the first session entry with a string id, is missing or
// older than version 3.
func (s *DB) checkHeader(ctx context.Context, sessionID string, seqs []int64) error {
	in := `1`
	args := []any{sessionID}
	if seqs != nil {
		in = `e.seq IN (SELECT value FROM json_each(?))`
		args = append(args, seqList(seqs))
	}
	var version sql.NullString
	err := s.tx.QueryRowContext(ctx, `SELECT json_extract(`+navSQL+`, '$.version') FROM transcript_events e
  WHERE e.session_id = ? AND `+in+` AND json_extract(`+navSQL+`, '$.type') = 'session' AND json_type(`+navSQL+`, '$.id') = 'text'
  ORDER BY e.seq LIMIT 1`, args...).Scan(&version)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return s.errorf("reading the header of session %s: %w", sessionID, err)
	}
	if err == nil && !legacyVersion(version) {
		return nil
	}
	return s.errorf("session %s: %w", sessionID, ErrLegacyTranscript)
}

// legacyVersion is JavaScript's (version ?? 1) < 3 for a header's version
// as SQLite's json_extract gives it (numbers as text, strings unquoted).
func legacyVersion(v sql.NullString) bool {
	if !v.Valid {
		return true
	}
	t := strings.TrimSpace(v.String)
	if t == "" {
		return true
	}
	f, err := strconv.ParseFloat(t, 64)
	return err == nil && f < 3
}

// relink computes the edits that make the view's events one chain, as
// OpenClaw's loader links a bounded view: an event whose parentId names an
// event outside the view hangs from the previous event of the view, and a
// compaction or reset whose first kept event lies outside it keeps from
// the first event of the view at or after that one.
func (s *DB) relink(ctx context.Context, v *View, injected int64) error {
	type ident struct {
		seq                 int64
		id, parent, kept    sql.NullString
		hasParent, isBorder bool
	}
	rows, err := queryRows(ctx, s, "the view's events", `SELECT seq, json_extract(nav, '$.id'), json_extract(nav, '$.parentId'),
  json_type(nav, '$.parentId') IS NOT NULL,
  coalesce(json_extract(nav, '$.type') IN ('compaction', 'reset') AND json_type(reset, '$.firstKeptEntryId') = 'text', 0),
  json_extract(reset, '$.firstKeptEntryId')
  FROM (SELECT e.seq AS seq, `+navSQL+` AS nav, `+resetSQL+` AS reset FROM transcript_events e
    WHERE e.session_id = ? AND e.seq IN (SELECT value FROM json_each(?)))
  ORDER BY seq`,
		func(rows *sql.Rows, x *ident) error {
			return rows.Scan(&x.seq, &x.id, &x.parent, &x.hasParent, &x.isBorder, &x.kept)
		}, v.SessionID, seqList(v.seqs))
	if err != nil {
		return err
	}
	if len(rows) != len(v.seqs) {
		return s.errorf("session %s changed while its view was read", v.SessionID)
	}
	ids := map[string]int64{} // the view's event ids, first seq wins
	var prev *string
	for _, r := range rows {
		if r.seq != injected && r.id.Valid && r.hasParent && prev != nil &&
			(!r.parent.Valid || r.parent.String != *prev) {
			v.edits[r.seq] = viewEdit{parent: prev}
		}
		if r.id.Valid && (r.seq == injected || r.hasParent) {
			id := r.id.String
			prev = &id
		}
		if r.id.Valid {
			if _, ok := ids[r.id.String]; !ok {
				ids[r.id.String] = r.seq
			}
		}
	}
	for end, r := range rows {
		if !r.isBorder {
			continue
		}
		firstSeq, ok := ids[r.kept.String]
		if !ok {
			var seq int64
			err := s.tx.QueryRowContext(ctx, `SELECT i.seq FROM transcript_event_identities i
  JOIN session_transcript_active_events a ON a.session_id = i.session_id AND a.event_seq = i.seq
  WHERE i.session_id = ? AND i.event_id = ? AND i.seq <= ?`, v.SessionID, r.kept.String, maxSeq(v.seqs)).Scan(&seq)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return s.errorf("finding the first kept event of session %s: %w", v.SessionID, err)
			}
			firstSeq = seq
		}
		start := min(1, end)
		if end > 0 && rows[0].seq >= firstSeq {
			start = 0
		}
		hi := end
		if start == 0 {
			hi = 0
		}
		start += sort.Search(hi-start, func(k int) bool { return rows[start+k].seq >= firstSeq })
		kept := r.id.String // keep nothing before the boundary
		for k := start; k < end; k++ {
			if rows[k].id.Valid {
				kept = rows[k].id.String
				break
			}
		}
		if kept != r.kept.String {
			e := v.edits[r.seq]
			e.firstKept = &kept
			v.edits[r.seq] = e
		}
	}
	return nil
}

func maxSeq(seqs []int64) int64 {
	m := int64(math.MinInt64)
	for _, s := range seqs {
		m = max(m, s)
	}
	return m
}

// seqList is seqs as a JSON array for json_each.
func seqList(seqs []int64) string {
	b, _ := json.Marshal(seqs)
	if len(seqs) == 0 {
		return "[]"
	}
	return string(b)
}

// Seq is the seq of the event on line (1-based) of the view's stream
// ([DB.ViewReader]); false when the view has no such line (or is nil).
func (v *View) Seq(line int) (int64, bool) {
	if v == nil {
		return 0, false
	}
	if v.header >= 0 {
		if line == 1 {
			return v.header, true
		}
		line--
	}
	if line < 1 || line > len(v.seqs) {
		return 0, false
	}
	return v.seqs[line-1], true
}

// ViewReader starts the view's stream: its events in seq order (the header
// first; a compaction or reset added after the cut is older than the rest),
// each as its export line, with the edits that link them (see [DB.View]).
// Read it like [DB.Reader]'s stream.
func (s *DB) ViewReader(ctx context.Context, v *View) (*ExportReader, error) {
	seqs := v.seqs
	if v.header >= 0 {
		seqs = append([]int64{v.header}, seqs...)
	}
	rows, err := s.tx.QueryContext(ctx, `SELECT seq, event_json IS NULL, event_json, event_zstd, event_utf8_bytes
  FROM transcript_events WHERE session_id = ? AND seq IN (SELECT value FROM json_each(?)) ORDER BY seq`, v.SessionID, seqList(seqs))
	if err != nil {
		return nil, s.errorf("reading the view of session %s: %w", v.SessionID, err)
	}
	r := &Rows{db: s, sessionID: v.SessionID, rows: rows, lineOf: s.exportLine(ctx, v.SessionID)}
	return &ExportReader{ctx: ctx, rows: r, edit: v.edit}, nil
}

// edit applies the view's edit for seq to the event.
func (v *View) edit(seq int64, ev *jsonl.Value) {
	e, ok := v.edits[seq]
	if !ok {
		return
	}
	if e.parent != nil {
		ev.Set("parentId", jsonl.StringValue(*e.parent))
	}
	if e.firstKept != nil {
		ev.Set("firstKeptEntryId", jsonl.StringValue(*e.firstKept))
	}
}

// exportLine gives a row's line in the session's export (its 1-based index
// in seq order), for the errors of a view.
func (s *DB) exportLine(ctx context.Context, sessionID string) func(seq int64) int {
	return func(seq int64) int {
		var n int
		if err := s.tx.QueryRowContext(ctx, `SELECT count(*) FROM transcript_events WHERE session_id = ? AND seq <= ?`, sessionID, seq).Scan(&n); err != nil {
			return 0
		}
		return n
	}
}
