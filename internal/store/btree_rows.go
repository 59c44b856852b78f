package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
)

// fastTree is an ordered walk the fast path can make: a rowid table, an
// index on (session_id, seq) of it, and the table's column numbers; or
// (table 0) the index alone.
type fastTree struct {
	table, index uint32 // root pages
	cols         map[string]int
	// at are the column numbers of the columns findTree was asked for,
	// in that order (see the col constants): looked up once, not per row.
	at   []int
	need int // the highest column number read
}

// The columns of a fastTree's at: the order of the names given to
// findTree in openFastPath.
const (
	colEventJSON  = 2 // transcript_events
	colEventZstd  = 3
	colEventBytes = 4
	colEventID    = 2 // transcript_event_identities
	colParentID   = 3
)

// fastPath holds what the fast path reads; nil fields are walks it does
// not make (their tables have another shape).
type fastPath struct {
	pager      *pager
	events     *fastTree // transcript_events
	identities *fastTree // transcript_event_identities
	// active is the index on (session_id, event_seq) of
	// session_transcript_active_events, walked alone (no table: its
	// entries hold all the walk reads).
	active *fastTree
}

// openFastPath decides, inside the read transaction, whether the b-trees
// may be read directly, and finds them. The rule: the -wal file is absent
// or empty now that the transaction has started. Then SQLite itself reads
// every page from the main file, and while the transaction is open no
// checkpoint can copy pages into it (a checkpoint never writes past the
// oldest reader's snapshot, here the main file alone). s.file stays open
// until the driver has closed: closing any handle on the file would drop
// the process's POSIX locks, the driver's among them. Any doubt: nil.
func (s *DB) openFastPath(ctx context.Context, abs string) *fastPath {
	if s.file == nil {
		return nil
	}
	if st, err := os.Stat(abs + "-wal"); err == nil && st.Size() != 0 || err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	st, err := s.file.Stat()
	if err != nil {
		return nil
	}
	p, err := newPager(s.file, st.Size())
	if err != nil {
		return nil
	}
	fp := &fastPath{pager: p}
	fp.events = s.findTree(ctx, "transcript_events", "seq", []string{"session_id", "seq", "event_json", "event_zstd", "event_utf8_bytes"})
	fp.identities = s.findTree(ctx, "transcript_event_identities", "seq", []string{"session_id", "seq", "event_id", "parent_id"})
	if s.tables["session_transcript_active_events"] {
		if root := s.findIndex(ctx, "session_transcript_active_events", "event_seq"); root != 0 {
			fp.active = &fastTree{index: root}
		}
	}
	if fp.events == nil && fp.identities == nil && fp.active == nil {
		return nil
	}
	return fp
}

// findTree finds table's root page and an index on (session_id, order)
// (ascending, BINARY, not partial) through the driver, and the column
// numbers of cols; nil when the table is not a plain rowid table with
// those columns.
func (s *DB) findTree(ctx context.Context, table, order string, cols []string) *fastTree {
	if !s.tables[table] {
		return nil
	}
	var root int64
	var wr, strict bool
	err := s.tx.QueryRowContext(ctx, `SELECT s.rootpage, t.wr, t.strict FROM sqlite_schema s
  JOIN pragma_table_list(?1) t ON t.name = s.name WHERE s.type = 'table' AND s.name = ?1 AND t.schema = 'main'`, table).Scan(&root, &wr, &strict)
	if err != nil || wr || root < 1 {
		return nil
	}
	t := &fastTree{table: uint32(root), cols: map[string]int{}}
	all, err := queryRows(ctx, s, "", `SELECT cid, name, hidden FROM pragma_table_xinfo(?)`, func(rows *sql.Rows, c *struct {
		cid    int
		name   string
		hidden int
	}) error {
		return rows.Scan(&c.cid, &c.name, &c.hidden)
	}, table)
	if err != nil {
		return nil
	}
	for i, c := range all {
		// A hidden or generated column is not stored as declared; an
		// INTEGER PRIMARY KEY is stored as the rowid.
		if c.hidden != 0 || c.cid != i {
			return nil
		}
		t.cols[c.name] = c.cid
	}
	// A single INTEGER PRIMARY KEY is stored as the rowid, not in the
	// record.
	var pks, intPKs int
	if err := s.tx.QueryRowContext(ctx, `SELECT count(*), count(CASE WHEN upper(type) = 'INTEGER' THEN 1 END)
  FROM pragma_table_info(?) WHERE pk > 0`, table).Scan(&pks, &intPKs); err != nil || pks == 1 && intPKs == 1 {
		return nil
	}
	for _, c := range cols {
		i, ok := t.cols[c]
		if !ok {
			return nil
		}
		t.at = append(t.at, i)
		t.need = max(t.need, i)
	}
	if t.index = s.findIndex(ctx, table, order); t.index == 0 {
		return nil
	}
	return t
}

// findIndex is the root page of an index of table whose key is exactly
// (session_id, order), ascending, BINARY and not partial; 0 when none is.
func (s *DB) findIndex(ctx context.Context, table, order string) uint32 {
	type cand struct {
		name string
		root int64
	}
	cands, err := queryRows(ctx, s, "", `SELECT l.name, s.rootpage FROM pragma_index_list(?) l
  JOIN sqlite_schema s ON s.name = l.name AND s.type = 'index' WHERE l.partial = 0 ORDER BY l.name`,
		func(rows *sql.Rows, c *cand) error { return rows.Scan(&c.name, &c.root) }, table)
	if err != nil {
		return 0
	}
	for _, c := range cands {
		var shape []string
		_, err := queryRows(ctx, s, "", `SELECT cid, coalesce(name, ''), "desc", coll, key FROM pragma_index_xinfo(?) ORDER BY seqno`,
			func(rows *sql.Rows, _ *struct{}) error {
				var cid, desc, key int
				var name, coll string
				if err := rows.Scan(&cid, &name, &desc, &coll, &key); err != nil {
					return err
				}
				shape = append(shape, strings.Join([]string{name, itoa(cid < 0), itoa(desc != 0), strings.ToUpper(coll), itoa(key != 0)}, "/"))
				return nil
			}, c.name)
		want := []string{"session_id/0/0/BINARY/1", order + "/0/0/BINARY/1", "/1/0/BINARY/0"}
		if err == nil && c.root > 0 && strings.Join(shape, ",") == strings.Join(want, ",") {
			return uint32(c.root)
		}
	}
	return 0
}

func itoa(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// treeWalk reads a session's rows of one table in (session_id, order)
// order through its index, and decodes each row's record.
type treeWalk struct {
	tree      *fastTree
	sessionID []byte
	idx       *indexCursor
	tab       *tableTree
	row       record
	order     int64 // the current row's order column (from the index)
	rowid     int64 // the current row's rowid
	started   bool
	done      bool
}

func (fp *fastPath) walk(t *fastTree, sessionID string) *treeWalk {
	return walkOn(fp.pager, t, sessionID)
}

// walkOn is a walk of t that reads its pages through p.
func walkOn(p *pager, t *fastTree, sessionID string) *treeWalk {
	w := &treeWalk{tree: t, sessionID: []byte(sessionID), idx: newIndexCursor(p)}
	w.row.max = t.need + 1 // the columns read, and those before them
	if t.table != 0 {
		w.tab = newTableTree(p, t.table)
	}
	return w
}

// next reads the next row of the session into w.row; false at the end.
func (w *treeWalk) next() (bool, error) {
	rowid, ok, err := w.nextEntry()
	if !ok || err != nil {
		return false, err
	}
	data, err := w.tab.find(rowid)
	if err != nil {
		return false, err
	}
	if err := w.row.parse(data); err != nil {
		return false, err
	}
	if len(w.row.types) <= w.tree.need {
		return false, btreeErrorf("row %d has %d columns", rowid, len(w.row.types))
	}
	return true, nil
}

// head reads the record header of the row of the current index entry
// into w.row, with the values its cell holds (see [record.parseHead]).
func (w *treeWalk) head() error {
	off, size, err := w.tab.locate(w.rowid)
	if err != nil {
		return err
	}
	local := w.tab.p.localPayload(size, false)
	if off+local > w.tab.p.usable {
		return btreeErrorf("page %d: payload runs past the page", w.tab.leaf.n)
	}
	if err := w.row.parseHead(w.tab.leaf.data[off:off+local], size); err != nil {
		return err
	}
	if len(w.row.types) <= w.tree.need {
		return btreeErrorf("row %d has %d columns", w.rowid, len(w.row.types))
	}
	return nil
}

// full reads the whole record of the row head read into w.row.
func (w *treeWalk) full() error {
	off, size, err := w.tab.locate(w.rowid)
	if err == nil {
		w.tab.row, err = w.tab.p.payload(w.tab.row[:0], &w.tab.leaf, off, size, false, w.tab.scratch)
	}
	if err != nil {
		return err
	}
	return w.row.parse(w.tab.row)
}

// nextEntry moves to the session's next index entry: its rowid, with its
// order column in w.order; false at the end.
func (w *treeWalk) nextEntry() (rowid int64, ok bool, err error) {
	if w.done {
		return 0, false, nil
	}
	if !w.started {
		w.started = true
		if err := w.idx.seek(w.tree.index, w.sessionID); err != nil {
			return 0, false, err
		}
	}
	if order, rowid, ok := w.idx.nextKeyed(w.sessionID); ok {
		w.order, w.rowid = order, rowid
		return rowid, true, nil
	}
	ok, err = w.idx.next()
	if err != nil || !ok {
		w.done = !ok
		return 0, false, err
	}
	// As SQLite's index scan for session_id = ?: from the seek position,
	// every entry up to the first whose session_id is greater; the order
	// column comes from the index, the other columns from the row.
	r := &w.idx.rec
	if len(r.types) != 3 {
		return 0, false, btreeErrorf("index entry shape")
	}
	if c, err := compareFirst(r, w.sessionID); err != nil {
		return 0, false, err
	} else if c > 0 {
		w.done = true
		return 0, false, nil
	}
	order, ok1 := r.int(1)
	rowid, ok2 := rowidOf(r)
	if !ok1 || !ok2 {
		return 0, false, btreeErrorf("index entry types")
	}
	w.order, w.rowid = order, rowid
	return rowid, true, nil
}

// skipLeaf steps over the rest of the index leaf the walk is in when
// its last entry is still the session's (see [indexCursor.skipLeaf]): how
// many entries it stepped over, the last one current (w.order, w.rowid);
// 0 when it did not move.
func (w *treeWalk) skipLeaf() (int, error) {
	if !w.started || w.done {
		return 0, nil
	}
	n, err := w.idx.skipLeaf(w.sessionID)
	if n == 0 || err != nil {
		return 0, err
	}
	r := &w.idx.rec
	order, ok1 := r.int(1)
	rowid, ok2 := rowidOf(r)
	if len(r.types) != 3 || !ok1 || !ok2 {
		return 0, btreeErrorf("index entry types")
	}
	w.order, w.rowid = order, rowid
	return n, nil
}

// compareFirst compares an index entry's first column with a TEXT key as
// SQLite orders values (NULL and numbers before text, blobs after).
func compareFirst(r *record, key []byte) (int, error) {
	t := r.types[0]
	switch {
	case t == 10 || t == 11:
		return 0, btreeErrorf("serial type %d", t)
	case t < 12:
		return -1, nil
	case t%2 == 0:
		return 1, nil
	}
	b, _ := r.bytes(0, false)
	return bytes.Compare(b, key), nil
}

// text is column col (of the tree's at) as TEXT or NULL (ok false for another type).
func (w *treeWalk) text(col int) (b []byte, null, ok bool) {
	i := w.tree.at[col]
	if w.row.null(i) {
		return nil, true, true
	}
	b, ok = w.row.bytes(i, false)
	return b, false, ok
}

// textPair reads columns i and j (i < j <= last) of the record in data
// as TEXT or NULL into a and b, from its header, without decoding the
// other columns into a [record]: what [treeWalk.next] and two
// [treeWalk.text] calls give, and errBTree where they fail (a header that
// does not hold the columns up to last, a value past the record, another
// type).
func textPair(data []byte, i, j, last int, a, b *nullBytes) error {
	hsize, k := varint(data, 0)
	if k == 0 || hsize < uint64(k) || hsize > uint64(len(data)) {
		return btreeErrorf("record header")
	}
	h := data[:hsize]
	body := len(h)
	for col := 0; col <= last; col++ {
		if k >= len(h) {
			return btreeErrorf("row has %d columns", col)
		}
		t := uint64(h[k])
		k++
		if t >= 0x80 {
			var n int
			if t, n = varint(h, k-1); n == 0 {
				return btreeErrorf("record column %d", col)
			}
			k += n - 1
		}
		size, ok := serialSize(t)
		if !ok || body+size > len(data) {
			return btreeErrorf("record column %d", col)
		}
		if col == i || col == j {
			v := b
			if col == i {
				v = a
			}
			switch {
			case t == 0: // NULL
				*v = nullBytes{}
			case t >= 13 && t%2 == 1:
				*v = nullBytes{b: data[body : body+size : body+size], valid: true}
			default:
				return btreeErrorf("column %d: serial type %d", col, t)
			}
		}
		body += size
	}
	return nil
}
