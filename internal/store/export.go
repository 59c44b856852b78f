package store

import (
	"context"
	"io"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// ExportReader is a session's export as a stream: the JSONL text OpenClaw
// writes for it, produced one event at a time.
type ExportReader struct {
	ctx    context.Context
	rows   *Rows
	parser jsonl.Parser
	canon  canonScanner
	line   []byte // the current line with its "\n"
	off    int    // read position in line
	err    error  // sticky: io.EOF at the end
	lines  int64
	edit   func(seq int64, v *jsonl.Value) // a view's edits, nil for an export
}

// Reader starts the export of sessionID (a session id, not a key). Close it
// when done; the DB stays open.
func (s *DB) Reader(ctx context.Context, sessionID string) (*ExportReader, error) {
	rows, err := s.Events(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return &ExportReader{ctx: ctx, rows: rows}, nil
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

// next fills r.line with the next event's line; it returns false at the
// end or on an error, leaving r.err set.
func (r *ExportReader) next() bool {
	if r.err != nil {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	if !r.rows.Next() {
		r.err = r.rows.Err()
		if r.err == nil {
			r.err = io.EOF
		}
		return false
	}
	ev := r.rows.Event()
	// OpenClaw exports JSON.stringify(JSON.parse(text)); its own rows are
	// already in that form (then the line is the row), but a row written
	// otherwise is normalised.
	if r.edit == nil && r.canon.canonicalText(ev.Text) && !r.canon.id.escaped && !r.canon.parent.escaped {
		if r.rows.index != nil { // the stored event
			r.rows.index.checkIdentity(ev, r.canon.id, r.canon.parent)
		}
		r.line = append(append(r.line[:0], ev.Text...), '\n')
	} else {
		v, err := r.parser.ParseOwned(ev.Text)
		if err != nil {
			r.err = r.rows.fault(FaultJSON, err)
			return false
		}
		if r.rows.index != nil { // the stored event, before any view's edits
			r.rows.index.checkIdentity(ev, valueField(&v, "id"), valueField(&v, "parentId"))
		}
		if r.edit != nil {
			r.edit(ev.Seq, &v)
		}
		r.line = append(jsonl.AppendJSON(r.line[:0], &v), '\n')
	}
	r.off = 0
	r.lines++
	return true
}

// Read reads the export; it returns io.EOF after the last line, or the
// error (often a *RowError) that stopped it.
func (r *ExportReader) Read(p []byte) (int, error) {
	for r.off == len(r.line) {
		if !r.next() {
			return 0, r.err
		}
	}
	n := copy(p, r.line[r.off:])
	r.off += n
	return n, nil
}

// WriteTo writes the rest of the export to w, one line per Write.
func (r *ExportReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if r.off < len(r.line) {
			n, err := w.Write(r.line[r.off:])
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

// Close ends the export's row iteration.
func (r *ExportReader) Close() error { return r.rows.Close() }
