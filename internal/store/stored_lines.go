package store

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// A line pass that judges a session's rows as their export's lines (check
// --session) need not have each row proven canonical first: it can judge
// the stored text wherever the export's line could not be judged
// otherwise, and judge the export's line only where it could. So that the
// rows are walked once, [DB.CheckedLines] hands on the stored text of each
// row that is one line and too short to cross the long-line size as its
// export could (see storedAsIs), without the proof; the pass judges it,
// asks [StoredLines.Export] for the export's line of those it cannot judge
// as they stand, and compares each event's id and parentId, read from its
// own scan, with the event's identity row ([StoredLines.Entry]); a row
// JSON.parse rejects ends the pass ([StoredLines.Reject]) as it ends the
// export. Any other row is proven or written again as the export does.

// maxStoredLine bounds the rows handed on as stored: the export can write
// a row some 5.3 times longer (a number such as 1e20 becomes 21 digits),
// so a row of at most a sixth of the long-line size (64 KiB, the size
// check reports a line past) is on the same side of it as its export.
const maxStoredLine = (64 << 10) / 6

// storedAsIs reports whether a row is handed on as stored: one line (no
// line break, no carriage return) of at most maxStoredLine bytes.
func storedAsIs(text []byte) bool {
	return len(text) <= maxStoredLine && bytes.IndexByte(text, '\n') < 0 && bytes.IndexByte(text, '\r') < 0
}

// StoredLines is the side of a [DB.CheckedLines] export that the line
// pass reads beside its text: each line's seq and identity row, in line
// order, and the rows the pass finds JSON.parse rejects.
type StoredLines struct {
	r *ExportReader
	// pending are the rows of the lines being handed on (the reading
	// side's); shared those handed on that the pass has not taken yet;
	// taken the pass's, from head on. The reading side publishes pending
	// before the lines' bytes leave the reader, so a line's row is always
	// there when the pass judges it; the rows in the queue are those of
	// the lines the pass has read ahead, which bounds it.
	mu      sync.Mutex
	pending rowQueue
	shared  rowQueue
	taken   rowQueue
	head    int
	ended   atomic.Bool // the pass ended at a row: the reader ends too
	fault   *RowError
	parsers sync.Pool
}

// rowQueue is a run of queued rows, their identity rows' texts in ids.
type rowQueue struct {
	rows []queuedRow
	ids  []byte
}

// queuedRow is a line's event and identity row.
type queuedRow struct {
	seq        int64
	line       int
	found      bool
	id, parent span
}

// CheckedLines is [DB.CheckedReader] for a line pass that reads the rows
// beside the text (see [StoredLines]): the text is the rows' stored texts
// where storedAsIs, their export's lines elsewhere; its identity checks
// are made as the pass calls [StoredLines.Entry], and the pass's
// [StoredLines.Reject] ends it. The index faults ([ExportReader.IndexFaults])
// are the same as CheckedReader's for the rows the pass judged.
func (s *DB) CheckedLines(ctx context.Context, sessionID string, kinds ...IndexKind) (*ExportReader, *StoredLines, error) {
	rows, err := s.events(ctx, sessionID, kinds)
	if err != nil {
		return nil, nil, err
	}
	r := &ExportReader{ctx: ctx, rows: rows}
	r.stored = &StoredLines{r: r}
	r.pipe = startRowPipe(rows, false, true, jsonl.NewFlight(exportFlight))
	return r, r.stored, nil
}

// queue notes the event and identity row of the line being handed on.
func (l *StoredLines) queue(ev Event, row identity) {
	q := &l.pending
	e := queuedRow{seq: ev.Seq, line: ev.Line, found: row.found}
	if row.found {
		e.id, e.parent = q.add(row.eventID), q.add(row.parent)
	}
	q.rows = append(q.rows, e)
}

// queueAsIs is queue for event i of b, handed on as stored.
func (l *StoredLines) queueAsIs(b *rowBatch, i int) {
	q, e := &l.pending, &b.evs[i]
	qe := queuedRow{seq: e.seq, line: e.line, found: e.found}
	if e.found {
		qe.id, qe.parent = q.addSpan(b.ids, e.id), q.addSpan(b.ids, e.parent)
	}
	q.rows = append(q.rows, qe)
}

// addSpan appends the value sp of ids.
func (q *rowQueue) addSpan(ids []byte, sp span) span {
	return q.add(nullBytes{b: ids[sp.start:sp.end], valid: sp.valid})
}

func (q *rowQueue) add(v nullBytes) span { return appendSpan(&q.ids, v) }

// publish hands the pending rows to the pass.
func (l *StoredLines) publish() {
	p := &l.pending
	if len(p.rows) == 0 {
		return
	}
	l.mu.Lock()
	q := &l.shared
	shift := int32(len(q.ids))
	q.ids = append(q.ids, p.ids...)
	for _, e := range p.rows {
		if e.found {
			e.id.start, e.id.end = e.id.start+shift, e.id.end+shift
			e.parent.start, e.parent.end = e.parent.start+shift, e.parent.end+shift
		}
		q.rows = append(q.rows, e)
	}
	l.mu.Unlock()
	p.rows, p.ids = p.rows[:0], p.ids[:0]
}

// next is line's row: the next one queued.
func (l *StoredLines) next(line int) *queuedRow {
	if l.head == len(l.taken.rows) {
		l.mu.Lock()
		l.taken, l.shared = l.shared, rowQueue{rows: l.taken.rows[:0], ids: l.taken.ids[:0]}
		l.mu.Unlock()
		l.head = 0
	}
	if l.head == len(l.taken.rows) || l.taken.rows[l.head].line != line {
		panic("store: the line pass is out of step with the rows it reads")
	}
	l.head++
	return &l.taken.rows[l.head-1]
}

// Export is the export's line of a row's text, appended to dst (see
// [ExportReader]'s rewrite, which it is), or JSON.parse's error. Safe
// for concurrent use.
func (l *StoredLines) Export(dst, text []byte) ([]byte, error) {
	p, _ := l.parsers.Get().(*jsonl.Parser)
	if p == nil {
		p = new(jsonl.Parser)
	}
	defer l.parsers.Put(p)
	v, err := p.ParseOwned(text)
	if err != nil {
		return dst, err
	}
	return jsonl.AppendJSON(dst, &v), nil
}

// Entry compares the event of line with its identity row, as the export
// does for each event it proves or writes again: id and parentID are its
// top-level members, as JSON.parse reads them.
func (l *StoredLines) Entry(line int, id, parentID jsonl.Field) {
	e := l.next(line)
	j := l.r.rows.index
	if j == nil {
		return
	}
	row := identity{found: e.found}
	if e.found {
		ids := l.taken.ids
		row.eventID = nullBytes{b: ids[e.id.start:e.id.end], valid: e.id.valid}
		row.parent = nullBytes{b: ids[e.parent.start:e.parent.end], valid: e.parent.valid}
	}
	j.checkIdentity(Event{Seq: e.seq, Line: e.line}, row, scannedField(id), scannedField(parentID))
}

// scannedField is a member the line pass read, as a topField.
func scannedField(f jsonl.Field) topField {
	s, ok := f.Str()
	return topField{present: f.Exists(), isString: ok, text: unsafe.Slice(unsafe.StringData(s), len(s))}
}

// Reject ends the export at line, whose row JSON.parse rejects (err): the
// row's fault is [StoredLines.Fault], and the reader ends at its next
// read.
func (l *StoredLines) Reject(line int, err error) {
	e := l.next(line)
	l.fault, _ = l.r.rows.faultAt(Event{Seq: e.seq, Line: e.line}, FaultJSON, err).(*RowError)
	l.ended.Store(true)
}

// Fault is the row the pass ended at (Reject), nil if none.
func (l *StoredLines) Fault() *RowError { return l.fault }

// nextStored is nextRun for a [DB.CheckedLines] export: it ends once the
// pass has ended at a row, and publishes the rows of the lines it hands
// on before their bytes leave the reader.
func (r *ExportReader) nextStored() bool {
	if r.stored.ended.Load() {
		r.err = io.EOF
		return false
	}
	ok := r.nextRun()
	r.stored.publish()
	return ok
}
