package check

import (
	"bytes"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Rows is what a line pass over a store session's rows read as they are
// stored needs of the store ([Options.Rows]): the input's lines are then
// the rows' stored texts, each exactly one line, except where the store
// handed on the export's line itself (a row with a line break, or too
// long to be on the same side of the long-line size as its export). A
// stored text is judged as it is wherever its export cannot be judged
// otherwise; a line whose export may be (see
// [repair.LineJudge.Normalised]) is judged again, on the worker, as its
// export's line, and a line JSON.parse rejects ends the input there, as
// such a row ends the export.
type Rows interface {
	// Export appends the export's line of line (JSON.stringify of
	// JSON.parse, without the "\n") to dst, or returns JSON.parse's
	// error. It is called on any worker, concurrently.
	Export(dst, line []byte) ([]byte, error)
	// Entry is called for each line the pass judges, in line order, with
	// its top-level id and parentId members (as JSON.parse reads them),
	// before the line's findings.
	Entry(line int, id, parentID jsonl.Field)
	// Reject ends the input at line, whose row JSON.parse rejects with
	// err: the pass judges no line from it on.
	Reject(line int, err error)
}

// rowFacts is what the ordered pass hands [Rows] of one line.
type rowFacts struct {
	id, parent jsonl.Field
	err        error // JSON.parse rejects the row
}

// storedLine judges line l of a store's rows ([Options.Rows]): as it
// stands when its export cannot be judged otherwise, else as its export's
// line, which it appends to o's export buffers (the facts alias it until
// the batch is consumed).
func (x *extractor) storedLine(l jsonl.Line, o *lineFacts) {
	rf := x.judge.Judge(l)
	e := x.judge.Envelope()
	var rejected error
	if e == nil || x.judge.Normalised() {
		out, err := x.rows.Export(o.exportBuffer(), l.Bytes)
		o.exports[o.used-1] = out
		switch {
		case err != nil:
			rejected = err
		case e != nil && bytes.Equal(out, l.Bytes): // the stored text is the export's line
		default:
			l = jsonl.Line{Num: l.Num, Offset: l.Offset, Bytes: out, Newline: true}
			rf = x.judge.Judge(l)
			e = x.judge.Envelope()
		}
	}
	o.rep = append(o.rep, rf)
	o.facts = append(o.facts, facts{})
	r := rowFacts{err: rejected}
	if e != nil && rejected == nil {
		r.id, r.parent = e.ID, e.ParentID
	}
	o.rows = append(o.rows, r)
	if rejected != nil {
		e = nil // a rejected row has no entry
	}
	x.extract(l, e, &o.facts[len(o.facts)-1], o)
}

// exportBuffer is an empty buffer for an export line of the batch: one of
// the buffers an earlier batch left, or a new one.
func (o *lineFacts) exportBuffer() []byte {
	if o.used == len(o.exports) {
		o.exports = append(o.exports, nil)
	}
	o.used++
	return o.exports[o.used-1][:0]
}

// storedRow hands line i of the batch to [Rows]; false when the row ends
// the input (the pass then judges nothing more).
func (p *pass) storedRow(o *lineFacts, i int) bool {
	r, line := &o.rows[i], o.facts[i].line
	if r.err != nil {
		p.rows.Reject(line, r.err)
		p.ended = true
		return false
	}
	p.rows.Entry(line, r.id, r.parent)
	return true
}
