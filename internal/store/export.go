package store

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// ExportReader is a session's export as a stream: the JSONL text OpenClaw
// writes for it, produced one event at a time.
//
// An export (not a view) reads its rows on a goroutine of its own, which
// hands them on in batches, in seq order, through a bounded channel
// (rowPipe), while the caller's goroutine proves each row canonical (or
// writes it again) and checks it against its identity row: reading the
// b-trees and checking the text then share two cores. An export without
// index checks whose rows come from the b-trees reads them in two lanes
// when two cores can run them (see [startLanes]): each lane reads and
// proves its own runs of the session, and the caller's goroutine writes
// them in seq order. Memory stays bounded by a few batches.
type ExportReader struct {
	ctx    context.Context
	rows   *Rows
	parser jsonl.Parser
	canon  canonScanner
	out    []byte // the lines being read: buf, or a run of a batch's lines
	off    int    // read position in out
	buf    []byte // a line written here
	err    error  // sticky: io.EOF at the end
	lines  int64
	edit   func(seq int64, v *jsonl.Value) // a view's edits, nil for an export
	// pipe reads the rows of an export; nil: the rows are read here, or
	// by lanes.
	pipe *rowPipe
	// lanes read the rows of an export in two lanes (see [startLanes]);
	// nil: pipe reads them, or they are read here.
	lanes *lanes
	cur   *rowBatch // the batch being written
	at    int       // its next event
	// stored: the rows are handed on to a line pass as stored where
	// storedAsIs ([DB.CheckedLines]); nil for an export.
	stored *StoredLines
}

// Reader starts the export of sessionID (a session id, not a key). Close it
// when done; the DB stays open, but is not to be used until Close.
func (s *DB) Reader(ctx context.Context, sessionID string) (*ExportReader, error) {
	rows, err := s.Events(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return newExportReader(ctx, rows), nil
}

// newExportReader starts the export of rows, their reading on a goroutine
// of its own, or on two lanes (see [useLanes]).
func newExportReader(ctx context.Context, rows *Rows) *ExportReader {
	r := &ExportReader{ctx: ctx, rows: rows}
	if useLanes(rows) {
		r.lanes = startLanes(rows)
	} else {
		r.pipe = startRowPipe(rows, false, false, jsonl.NewFlight(exportFlight))
	}
	return r
}

// Export writes the export of sessionID to w and returns the number of
// lines and bytes written.
func (s *DB) Export(ctx context.Context, sessionID string, w io.Writer) (lines, bytes int64, err error) {
	r, err := s.Reader(ctx, sessionID)
	if err != nil {
		return 0, 0, err
	}
	bytes, err = r.WriteTo(w)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return r.lines, bytes, err
}

// next fills r.out with the next lines; it returns false at the end or
// on an error, leaving r.err set.
func (r *ExportReader) next() bool {
	if r.err != nil {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	if r.stored != nil {
		return r.nextStored()
	}
	if r.pipe != nil || r.lanes != nil {
		return r.nextRun()
	}
	if !r.rows.Next() {
		r.err = r.rows.Err()
		if r.err == nil {
			r.err = io.EOF
		}
		return false
	}
	var row identity
	if r.rows.index != nil {
		row = r.rows.index.cur
	}
	ev := r.rows.Event()
	if r.canonical(ev, row) {
		r.buf = append(append(r.buf[:0], ev.Text...), '\n')
		r.out, r.off = r.buf, 0
		r.lines++
		return true
	}
	return r.rewrite(ev, row)
}

// canonical reports whether the event's line is its stored text (see
// below), after checking the event against its identity row if so.
func (r *ExportReader) canonical(ev Event, row identity) bool {
	// OpenClaw exports JSON.stringify(JSON.parse(text)); its own rows are
	// already in that form (then the line is the row), but a row written
	// otherwise is normalised.
	if r.edit != nil || !r.canon.canonicalText(ev.Text) {
		return false
	}
	return r.proven(ev, row, r.canon.id, r.canon.parent)
}

// proven is canonical's verdict on an event proven canonical, whose id
// and parentId are id and parent.
func (r *ExportReader) proven(ev Event, row identity, id, parent topField) bool {
	if id.escaped || parent.escaped {
		return false
	}
	if r.stored != nil { // the line pass compares it
		r.stored.queue(ev, row)
		return true
	}
	if r.rows.index != nil { // the stored event
		r.rows.index.checkIdentity(ev, row, id, parent)
	}
	return true
}

// batchCanonical is canonical for event i of a batch, which the reading
// goroutine may have proven already (see [rowPipe.prove]).
func (r *ExportReader) batchCanonical(b *rowBatch, i int) bool {
	if b.evs[i].asIs {
		r.stored.queueAsIs(b, i)
		return true
	}
	ev, row := b.event(i)
	e := &b.evs[i]
	switch e.proof {
	case proofCanonical:
		return r.proven(ev, row, e.fields[0].field(ev.Text), e.fields[1].field(ev.Text))
	case proofNot:
		return false
	}
	return r.canonical(ev, row)
}

// rewrite makes r.out the line of an event that is not canonical: its
// text parsed and written again (with a view's edits).
func (r *ExportReader) rewrite(ev Event, row identity) bool {
	v, err := r.parser.ParseOwned(ev.Text)
	if err != nil {
		r.err = r.rows.faultAt(ev, FaultJSON, err)
		return false
	}
	if r.stored != nil { // the line pass compares it
		r.stored.queue(ev, row)
	} else if r.rows.index != nil { // the stored event, before any view's edits
		r.rows.index.checkIdentity(ev, row, valueField(&v, "id"), valueField(&v, "parentId"))
	}
	if r.edit != nil {
		r.edit(ev.Seq, &v)
	}
	r.buf = append(jsonl.AppendJSON(r.buf[:0], &v), '\n')
	r.out, r.off = r.buf, 0
	r.lines++
	return true
}

// nextRun makes r.out the lines of the piped events up to the next one
// that is not canonical or the batch's end: the batch's own bytes, where
// each text is followed by its "\n". An event that is not canonical is
// written again on its own.
func (r *ExportReader) nextRun() bool {
	for r.cur == nil || r.at == len(r.cur.evs) {
		if r.cur != nil {
			switch err := r.cur.err; {
			case err == nil:
				r.cur.pipe.recycle(r.cur)
			case r.lanes != nil && errors.Is(err, errBTree):
				// Every row before this one is written: the driver
				// reads the rest.
				if r.err = r.handOver(); r.err != nil {
					return false
				}
			default:
				r.err = err
				return false
			}
		}
		if !r.receive() {
			return false
		}
	}
	b := r.cur
	start := int(b.evs[r.at].start)
	end := start
	for ; r.at < len(b.evs); r.at++ {
		if !r.batchCanonical(b, r.at) {
			break
		}
		end = int(b.evs[r.at].end) + 1
		r.lines++
	}
	if end > start {
		r.out, r.off = b.data[start:end], 0
		return true
	}
	ev, row := b.event(r.at)
	r.at++
	return r.rewrite(ev, row)
}

// receive makes r.cur the next batch of rows in seq order; false when the
// context ended (r.err set).
func (r *ExportReader) receive() bool {
	var full chan *rowBatch
	if r.lanes != nil {
		full = r.lanes.next()
	} else {
		full = r.pipe.full
	}
	select {
	case r.cur = <-full:
		r.at = 0
	case <-r.ctx.Done():
		r.cur, r.err = nil, r.ctx.Err()
		return false
	}
	if r.lanes != nil {
		r.lanes.took(r.cur)
	}
	return true
}

// Read reads the export; it returns io.EOF after the last line, or the
// error (often a *RowError) that stopped it.
func (r *ExportReader) Read(p []byte) (int, error) {
	for r.off == len(r.out) {
		if !r.next() {
			return 0, r.err
		}
	}
	n := copy(p, r.out[r.off:])
	r.off += n
	return n, nil
}

// LineRest is how many bytes of the line a Read stopped in are still to
// be read, its "\n" included (see [jsonl.LineSizer]): an export makes a
// line whole before it hands any of it on.
func (r *ExportReader) LineRest() (int, bool) {
	if i := bytes.IndexByte(r.out[r.off:], '\n'); i >= 0 {
		return i + 1, true
	}
	return 0, false
}

// WriteTo writes the rest of the export to w, a run of lines per Write.
func (r *ExportReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if r.off < len(r.out) {
			n, err := w.Write(r.out[r.off:])
			total += int64(n)
			r.off += n
			if err != nil {
				return total, err
			}
		}
		if !r.next() {
			if r.err == io.EOF {
				return total, nil
			}
			return total, r.err
		}
	}
}

// Lines is the number of lines produced so far.
func (r *ExportReader) Lines() int64 { return r.lines }

// Close ends the export's row iteration (and the goroutine reading them).
func (r *ExportReader) Close() error {
	r.stop()
	return r.rows.Close()
}

// stop ends the goroutine reading the rows, if any, and waits for it: from
// then on the rows and the DB are this goroutine's again.
func (r *ExportReader) stop() {
	if r.lanes != nil {
		r.lanes.stop()
	}
	if r.pipe != nil {
		r.pipe.close()
	}
}

// rowPipe reads rows on a goroutine of its own and hands them on in
// batches, in order, through a bounded channel.
type rowPipe struct {
	full chan *rowBatch // batches read, in order
	free chan *rowBatch // batches written, to reuse
	quit chan struct{}  // closed by close: stop reading
	done chan struct{}  // closed when the reading goroutine has returned
	// canon proves texts on the reading goroutine (see prove).
	canon canonScanner
	// lane: the pipe is a lane of an export (see [startLanes]): it proves
	// every batch, and ends a batch at the end of each of its runs.
	lane bool
	// stored: the rows storedAsIs are handed on unproven
	// ([DB.CheckedLines]).
	stored bool
	// flight bounds the bytes of the batches handed on and not yet
	// written, of this pipe and the other lane's (see [exportFlight]).
	flight *jsonl.FlightShare
}

// rowBatch is a run of events: their texts one after another in data,
// each followed by "\n" (so that a run of canonical events is its export),
// and their identity rows' values in ids.
type rowBatch struct {
	data, ids []byte
	evs       []batchEvent
	err       error // the last batch: io.EOF or what stopped the rows
	// runEnd: the batch is the last of its lane's run (see [startLanes]).
	runEnd bool
	pipe   *rowPipe // the pipe it is recycled to
	held   int      // its bytes held against the export's flight
}

// batchEvent is an event of a batch: its text is data[start:end],
// followed by "\n". It holds no pointer, so filling a batch is plain
// copying.
type batchEvent struct {
	seq        int64
	line       int
	start, end int32
	compressed bool
	// found, id and parent are the event's identity row, its texts in ids.
	found      bool
	id, parent span
	// proof is the reading goroutine's canonical proof, if it made one;
	// then fields are the event's top-level id and parentId.
	proof  proof
	fields [2]fieldSpan
	// asIs: handed on as stored, unproven (a [DB.CheckedLines] export's
	// row that is storedAsIs).
	asIs bool
}

// proof is what the reading goroutine found of an event's text.
type proof uint8

const (
	proofNone      proof = iota // not looked at: the writing side proves it
	proofCanonical              // canonical, fields set
	proofNot                    // not proven canonical
)

// fieldSpan is a [topField] whose text is text[start:end] of its event.
type fieldSpan struct {
	start, end                 int32
	present, isString, escaped bool
}

// spanOf is f, a field of text (its text a slice of text, which ends at
// its capacity), as a fieldSpan: where f.text starts is told by how much
// shorter its capacity is.
func spanOf(f topField, text []byte) fieldSpan {
	sp := fieldSpan{present: f.present, isString: f.isString, escaped: f.escaped}
	if len(f.text) > 0 {
		sp.start = int32(cap(text) - cap(f.text))
		sp.end = sp.start + int32(len(f.text))
	}
	return sp
}

func (sp fieldSpan) field(text []byte) topField {
	return topField{present: sp.present, isString: sp.isString, escaped: sp.escaped, text: text[sp.start:sp.end]}
}

// span is a TEXT value (valid) or NULL in a batch's ids.
type span struct {
	start, end int32
	valid      bool
}

// add appends a value to b.ids.
func (b *rowBatch) add(v nullBytes) span { return appendSpan(&b.ids, v) }

// appendSpan appends v's text to *ids and returns where it lies.
func appendSpan(ids *[]byte, v nullBytes) span {
	start := len(*ids)
	*ids = append(*ids, v.b...)
	return span{start: int32(start), end: int32(len(*ids)), valid: v.valid}
}

// event is event i of the batch and its identity row.
func (b *rowBatch) event(i int) (Event, identity) {
	e := &b.evs[i]
	ev := Event{Seq: e.seq, Line: e.line, Text: b.data[e.start:e.end], Compressed: e.compressed}
	row := identity{found: e.found}
	if e.found {
		row.eventID = nullBytes{b: b.ids[e.id.start:e.id.end], valid: e.id.valid}
		row.parent = nullBytes{b: b.ids[e.parent.start:e.parent.end], valid: e.parent.valid}
	}
	return ev, row
}

const (
	// pipeBatchBytes and pipeBatchEvents end a batch. At most
	// pipeBatches+2 batches exist at a time: pipeBatches waiting, one
	// being filled and one being written (with two lanes, pipeBatches
	// waiting and one being filled per lane, and one being written).
	pipeBatchBytes  = 256 << 10
	pipeBatchEvents = 1024
	pipeBatches     = 2
)

// startRowPipe starts reading rows on a goroutine of its own; a lane's
// rows (lane true) are closed there when it returns. With stored, the
// rows storedAsIs are handed on unproven ([DB.CheckedLines]).
func startRowPipe(rows *Rows, lane, stored bool, flight *jsonl.Flight) *rowPipe {
	p := &rowPipe{full: make(chan *rowBatch, pipeBatches), free: make(chan *rowBatch, pipeBatches+2),
		quit: make(chan struct{}), done: make(chan struct{}), lane: lane, stored: stored, flight: flight.Share()}
	go func() {
		defer close(p.done)
		if lane {
			defer rows.Close()
		}
		p.read(rows)
	}()
	return p
}

// read reads every row into batches and sends them; the last batch
// carries io.EOF or the error that stopped the rows.
func (p *rowPipe) read(rows *Rows) {
	b := p.batch()
	for {
		ok := rows.Next()
		// A lane's runs that ended before this row (or the end) end
		// their batches first.
		for n := rows.runsEnded(); n > 0; n-- {
			b.runEnd = true
			if b = p.hand(b); b == nil {
				return
			}
		}
		if !ok {
			b.err = rows.Err()
			if b.err == nil {
				b.err = io.EOF
			}
			if p.lane || proveAll {
				p.prove(b)
			}
			p.hold(b)
			p.send(b)
			return
		}
		ev := rows.Event()
		start := len(b.data)
		b.data = append(b.data, ev.Text...)
		e := batchEvent{seq: ev.Seq, line: ev.Line, start: int32(start), end: int32(len(b.data)), compressed: ev.Compressed,
			asIs: p.stored && storedAsIs(ev.Text)}
		b.data = append(b.data, '\n')
		if j := rows.index; j != nil && j.cur.found {
			e.found, e.id, e.parent = true, b.add(j.cur.eventID), b.add(j.cur.parent)
		}
		b.evs = append(b.evs, e)
		if len(b.data) >= pipeBatchBytes || len(b.evs) >= pipeBatchEvents {
			if b = p.hand(b); b == nil {
				return
			}
		}
	}
}

// hand sends a batch that is full (or ends a run) on, and returns an
// empty one; nil when the pipe was closed. A lane proves each batch; a
// lone reading goroutine proves one only when the writing side is
// behind, where the time would go to waiting.
func (p *rowPipe) hand(b *rowBatch) *rowBatch {
	p.hold(b)
	if p.lane || proveAll || !p.trySend(b) {
		p.prove(b)
		if !p.send(b) {
			return nil
		}
	}
	if !p.flight.Wait(p.quit) {
		return nil
	}
	return p.batch()
}

// exportFlight bounds the bytes of the row batches an export has read
// ahead (see [jsonl.Flight]): many times what batches of usual events
// hold (pipeBatchBytes each), so that only events of a MiB or more meet
// it; without it each of the batches in flight (seven with two lanes)
// could hold such an event.
var exportFlight = 4 << 20 // a variable so that tests can make every batch meet it

// hold counts b's bytes as handed on, until the writing side recycles it.
func (p *rowPipe) hold(b *rowBatch) {
	b.held = cap(b.data) + cap(b.ids)
	p.flight.Hold(b.held)
}

// batch is an empty batch: a written one again, or a new one.
func (p *rowPipe) batch() *rowBatch {
	select {
	case b := <-p.free:
		b.data, b.ids, b.evs, b.err, b.runEnd = b.data[:0], b.ids[:0], b.evs[:0], nil, false
		return b
	default:
		return &rowBatch{pipe: p}
	}
}

// proveAll makes the reading goroutine prove every batch, so that the
// tests hold its proofs to the writing side's.
var proveAll = false

// trySend hands b on if a place is free at once.
func (p *rowPipe) trySend(b *rowBatch) bool {
	select {
	case p.full <- b:
		return true
	default:
		return false
	}
}

// prove makes the canonical proof of each event of b on the reading
// goroutine. Where proving the texts takes longer than reading the
// b-trees (rows that are not plain take the slower descent), the reading
// goroutine takes a share of the proofs whenever the writing side falls
// behind, and the two cores are kept busy alike.
func (p *rowPipe) prove(b *rowBatch) {
	for i := range b.evs {
		e := &b.evs[i]
		text := b.data[e.start:e.end:e.end]
		if e.asIs {
			continue // handed on as stored: the line pass judges it
		}
		if !p.canon.canonicalText(text) {
			e.proof = proofNot
			continue
		}
		e.proof = proofCanonical
		e.fields = [2]fieldSpan{spanOf(p.canon.id, text), spanOf(p.canon.parent, text)}
	}
}

// send hands b on; false when the pipe was closed.
func (p *rowPipe) send(b *rowBatch) bool {
	select {
	case p.full <- b:
		return true
	case <-p.quit:
		return false
	}
}

// recycle gives a written batch back for reuse. One that grew past twice
// the batch size (it held a large event) gives its memory back instead.
func (p *rowPipe) recycle(b *rowBatch) {
	p.flight.Release(b.held)
	b.held = 0
	if cap(b.data) > 2*pipeBatchBytes {
		b.data = nil
	}
	select {
	case p.free <- b:
	default:
	}
}

// close stops the reading goroutine and waits for it (once).
func (p *rowPipe) close() {
	p.stop()
	<-p.done
}

// stop tells the reading goroutine to stop (once), without waiting.
func (p *rowPipe) stop() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
}
