package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// maxEventBytes bounds event_utf8_bytes: OpenClaw compresses events of at
// most 4 MiB, and its schema refuses larger sizes.
const maxEventBytes = 4 << 20

// Fault is the kind of a row that cannot be read.
type Fault int

const (
	// FaultZstd: event_zstd is not a zstd frame that decodes.
	FaultZstd Fault = iota + 1
	// FaultChecksum: the frame decodes but fails its content checksum.
	FaultChecksum
	// FaultSize: the decoded size is not event_utf8_bytes.
	FaultSize
	// FaultUTF8: the decoded text is not strict UTF-8.
	FaultUTF8
	// FaultJSON: the text is not JSON that JSON.parse accepts.
	FaultJSON
	// FaultEmpty: the row has neither event_json nor event_zstd.
	FaultEmpty
)

func (f Fault) String() string {
	switch f {
	case FaultZstd:
		return "zstd frame does not decode"
	case FaultChecksum:
		return "zstd checksum mismatch"
	case FaultSize:
		return "decoded size differs from event_utf8_bytes"
	case FaultUTF8:
		return "decoded text is not valid UTF-8"
	case FaultJSON:
		return "event is not valid JSON"
	case FaultEmpty:
		return "row holds no event"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// RowError is a transcript_events row that cannot be read.
type RowError struct {
	Path      string // the database
	SessionID string
	Seq       int64
	Line      int // the row's line in the export: its 1-based index in seq order
	Fault     Fault
	Err       error // the cause, may be nil
}

func (e *RowError) Error() string {
	msg := fmt.Sprintf("%s: session %s, seq %d (line %d): %s", e.Path, e.SessionID, e.Seq, e.Line, e.Fault)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *RowError) Unwrap() error { return e.Err }

// Event is one decoded row.
type Event struct {
	Seq        int64
	Line       int    // 1-based index in seq order
	Text       []byte // the stored JSON text, decoded; valid until the next [Rows.Next]
	Compressed bool   // stored as event_zstd
}

// Rows iterates over a session's events in seq order, one row in memory at
// a time. Use it like [sql.Rows]: Next, Event, then Err and Close.
type Rows struct {
	ctx context.Context
	db  *DB
	// fast reads the rows from the b-trees (see btree.go); after the first
	// row it cannot read, the driver reads the rest (rows past lastSeq,
	// the highest seq read); nil: rows is the driver's query.
	fast      *treeWalk
	lastSeq   int64
	read      bool // a row was read
	sessionID string
	rows      *sql.Rows
	ev        Event
	text, z   sql.RawBytes // the row's columns, reused from row to row
	buf       []byte       // decoded text of a compressed row
	err       error
	lineOf    func(seq int64) int // a row's export line when the rows skip some; nil: ev.Line
	// index walks the index rows beside the events (see [DB.CheckedReader]);
	// nil when no index check runs.
	index *indexJoin
	// dest are the scan destinations, reused from row to row.
	dest     []any
	textNull bool
	size     sql.NullInt64
	// lane: the rows are one lane of an export (see [DB.laneRows]), read
	// on a goroutine of its own: errBTree ends them instead of handing the
	// rest to the driver, and compressed rows have their own decoder, dec.
	lane bool
	dec  *zstd.Decoder
}

// Events starts reading the events of sessionID (a session id, not a key)
// in the snapshot.
func (s *DB) Events(ctx context.Context, sessionID string) (*Rows, error) {
	return s.events(ctx, sessionID, nil)
}

// eventsSQL reads a session's rows in seq order.
const eventsSQL = `SELECT seq, event_json IS NULL, event_json, event_zstd, event_utf8_bytes
  FROM transcript_events WHERE session_id = ? ORDER BY seq`

// eventsAfterSQL reads the rest of a session's rows when the fast path
// stops.
const eventsAfterSQL = `SELECT seq, event_json IS NULL, event_json, event_zstd, event_utf8_bytes
  FROM transcript_events WHERE session_id = ? AND seq > ? ORDER BY seq`

func (s *DB) events(ctx context.Context, sessionID string, kinds []IndexKind) (*Rows, error) {
	r := &Rows{ctx: ctx, db: s, sessionID: sessionID}
	if s.fast != nil && s.fast.events != nil {
		r.fast = s.fast.walk(s.fast.events, sessionID)
	} else {
		rows, err := s.tx.QueryContext(ctx, eventsSQL, sessionID)
		if err != nil {
			return nil, s.errorf("reading the events of session %s: %w", sessionID, err)
		}
		r.rows = rows
	}
	if len(kinds) > 0 {
		var err error
		if r.index, err = s.joinIndex(ctx, sessionID, kinds); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// nextRow reads the next row's columns, from the b-trees or the driver.
func (r *Rows) nextRow() (bool, error) {
	if r.fast != nil {
		ok, err := r.fastRow()
		if err == nil {
			if ok && (!r.read || r.ev.Seq > r.lastSeq) {
				r.lastSeq, r.read = r.ev.Seq, true
			}
			return ok, nil
		}
		if !errors.Is(err, errBTree) || r.lane {
			return false, err
		}
		if err := r.toDriver(); err != nil {
			return false, err
		}
	}
	if !r.rows.Next() {
		return false, nil
	}
	if r.dest == nil {
		r.dest = []any{&r.ev.Seq, &r.textNull, &r.text, &r.z, &r.size}
	}
	if err := r.rows.Scan(r.dest...); err != nil {
		return false, r.db.errorf("reading session %s after seq %d: %w", r.sessionID, r.ev.Seq, err)
	}
	r.lastSeq, r.read = r.ev.Seq, true
	return true, nil
}

// toDriver hands the rest of the rows to the driver, which decides what
// they hold: the rows after the highest seq read (r.lastSeq), or all of
// them when none was read.
func (r *Rows) toDriver() error {
	r.fast = nil
	var err error
	if r.read {
		r.rows, err = r.db.tx.QueryContext(r.ctx, eventsAfterSQL, r.sessionID, r.lastSeq)
	} else {
		r.rows, err = r.db.tx.QueryContext(r.ctx, eventsSQL, r.sessionID)
	}
	if err != nil {
		return r.db.errorf("reading the events of session %s: %w", r.sessionID, err)
	}
	return nil
}

// runsEnded is how many of a lane's runs of index leaves have ended since
// it was last asked: they end before the current row (0 for other rows).
func (r *Rows) runsEnded() int {
	if r.fast == nil {
		return 0
	}
	return r.fast.idx.runsEnded()
}

// fastRow reads the next row from the b-trees, as the driver would scan
// it; errBTree for anything else.
func (r *Rows) fastRow() (bool, error) {
	w := r.fast
	if r.ev.Line%1024 == 0 {
		if err := r.ctx.Err(); err != nil {
			return false, err
		}
	}
	ok, err := w.next()
	if !ok || err != nil {
		return false, err
	}
	text, null, ok1 := w.text(colEventJSON)
	z, zNull, ok2 := w.row.blob(w.tree.at[colEventZstd])
	size, sizeNull, ok3 := w.row.intOrNull(w.tree.at[colEventBytes])
	// An empty blob is left to the driver, which may read it as NULL.
	if !ok1 || !ok2 || !ok3 || !zNull && len(z) == 0 {
		return false, btreeErrorf("seq %d: column types", w.order)
	}
	r.ev.Seq, r.textNull, r.text = w.order, null, text
	r.z = nil
	if !zNull {
		r.z = z
	}
	r.size = sql.NullInt64{Int64: size, Valid: !sizeNull}
	return true, nil
}

// Next decodes the next row. It returns false at the end or on an error
// (see Err); a row that cannot be read stops the iteration.
func (r *Rows) Next() bool {
	if r.err != nil {
		return false
	}
	ok, err := r.nextRow()
	if err != nil {
		r.err = err
		return false
	}
	if !ok {
		if r.index != nil && (r.rows == nil || r.rows.Err() == nil) {
			r.err = r.index.finish()
		}
		return false
	}
	r.ev.Line++
	if r.index != nil {
		if r.err = r.index.advance(r.ev.Seq); r.err != nil {
			return false
		}
	}
	switch {
	case !r.textNull:
		r.ev.Text, r.ev.Compressed = r.text, false
	case r.z != nil:
		r.ev.Compressed = true
		r.ev.Text, r.err = r.decode(r.z, r.size)
		if r.err != nil {
			return false
		}
	default:
		r.err = r.fault(FaultEmpty, nil)
		return false
	}
	return true
}

// decode inflates an event_zstd value into r.buf and checks it: the frame
// (with its checksum), the size and UTF-8. Memory is the declared size.
func (r *Rows) decode(z []byte, size sql.NullInt64) ([]byte, error) {
	if !size.Valid || size.Int64 < 0 || size.Int64 > maxEventBytes {
		return nil, r.fault(FaultSize, fmt.Errorf("event_utf8_bytes %v out of range", sizeText(size)))
	}
	dec, err := r.decoder()
	if err != nil {
		return nil, r.fault(FaultZstd, err)
	}
	if err := dec.Reset(bytes.NewReader(z)); err != nil {
		return nil, r.fault(zstdFault(err), err)
	}
	n := int(size.Int64)
	r.buf = grow(r.buf, n)
	for got := 0; got < n; {
		k, err := dec.Read(r.buf[got:])
		got += k
		if err == io.EOF { // the frame ended cleanly, too early
			return nil, r.fault(FaultSize, fmt.Errorf("decoded %d bytes, event_utf8_bytes is %d", got, n))
		}
		if err != nil {
			return nil, r.fault(zstdFault(err), err)
		}
	}
	// The checksum is checked at the frame's end: read up to it.
	var one [1]byte
	for {
		k, err := dec.Read(one[:])
		if k > 0 {
			return nil, r.fault(FaultSize, fmt.Errorf("decoded more than event_utf8_bytes (%d)", n))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, r.fault(zstdFault(err), err)
		}
	}
	if !utf8.Valid(r.buf) {
		return nil, r.fault(FaultUTF8, invalidUTF8At(r.buf))
	}
	return r.buf, nil
}

func sizeText(v sql.NullInt64) string {
	if !v.Valid {
		return "NULL"
	}
	return fmt.Sprint(v.Int64)
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

func zstdFault(err error) Fault {
	if errors.Is(err, zstd.ErrCRCMismatch) {
		return FaultChecksum
	}
	return FaultZstd
}

func invalidUTF8At(b []byte) error {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("invalid byte 0x%02x at offset %d", b[i], i)
		}
		i += n
	}
	return nil
}

func (r *Rows) fault(f Fault, err error) error { return r.faultAt(r.ev, f, err) }

// faultAt is the error of event ev, read by r, that cannot be read.
func (r *Rows) faultAt(ev Event, f Fault, err error) error {
	line := ev.Line
	if r.lineOf != nil {
		line = r.lineOf(ev.Seq)
	}
	return &RowError{Path: r.db.path, SessionID: r.sessionID, Seq: ev.Seq, Line: line, Fault: f, Err: err}
}

// decoder is the zstd decoder of the rows' goroutine: a lane's own, else
// the database's.
func (r *Rows) decoder() (*zstd.Decoder, error) {
	if !r.lane {
		return r.db.decoder()
	}
	return decoderIn(&r.dec)
}

// decoder is the database's zstd decoder, synchronous (one goroutine).
func (s *DB) decoder() (*zstd.Decoder, error) { return decoderIn(&s.zstd) }

// decoderIn is *d, made at the first call: a synchronous zstd decoder
// bounded to the largest event.
func decoderIn(d **zstd.Decoder) (*zstd.Decoder, error) {
	if *d == nil {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxEventBytes+1))
		if err != nil {
			return nil, err
		}
		*d = dec
	}
	return *d, nil
}

// Event is the current row, valid until the next call to Next.
func (r *Rows) Event() Event { return r.ev }

// Err is the error that stopped the iteration, if any.
func (r *Rows) Err() error {
	if r.err != nil {
		return r.err
	}
	if r.rows == nil {
		return nil
	}
	if err := r.rows.Err(); err != nil {
		return r.db.errorf("reading session %s: %w", r.sessionID, err)
	}
	return nil
}

// Close ends the iteration (the read transaction stays open).
func (r *Rows) Close() error {
	if r.index != nil {
		r.index.close()
	}
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	if r.rows == nil {
		return nil
	}
	return r.rows.Close()
}
