package store

import "bytes"

// indexCursor walks an index b-tree in key order from the first entry
// whose first column (TEXT, BINARY collation) is at least a given key.
type indexCursor struct {
	p       *pager
	stack   []indexFrame
	bufs    [][]byte // a page buffer per depth
	scratch []byte   // overflow pages
	entry   []byte   // the current entry's record
	rec     record
	loaded  int // pages loaded: bounded by the page count
}

type indexFrame struct {
	pg      page
	i       int  // leaf: the next cell; interior: the child being walked
	descend bool // interior: child i is still to be entered
}

func newIndexCursor(p *pager) *indexCursor {
	return &indexCursor{p: p, scratch: make([]byte, p.pageSize)}
}

// push loads page n onto the stack.
func (c *indexCursor) push(n uint32) (*indexFrame, error) {
	d := len(c.stack)
	if d >= maxTreeDepth {
		return nil, btreeErrorf("index deeper than %d pages", maxTreeDepth)
	}
	if c.loaded++; c.loaded > int(c.p.pages) {
		return nil, btreeErrorf("index walk visits more pages than the file holds")
	}
	for len(c.bufs) <= d {
		c.bufs = append(c.bufs, make([]byte, c.p.pageSize))
	}
	c.stack = append(c.stack, indexFrame{})
	f := &c.stack[d]
	if err := c.p.load(n, c.bufs[d], &f.pg); err != nil {
		return nil, err
	}
	if f.pg.kind != pageIndexInterior && f.pg.kind != pageIndexLeaf {
		return nil, btreeErrorf("page %d of an index has type 0x%02x", n, f.pg.kind)
	}
	return f, nil
}

// load decodes cell i of f's page into c.entry and c.rec.
func (c *indexCursor) load(f *indexFrame, i int) error {
	off, err := f.pg.cell(i, c.p.usable)
	if err != nil {
		return err
	}
	if f.pg.interior() {
		off += 4
	}
	size, k := varint(f.pg.data[:c.p.usable], off)
	if k == 0 {
		return btreeErrorf("page %d: cell %d", f.pg.n, i)
	}
	if c.entry, err = c.p.payload(c.entry[:0], &f.pg, off+k, int(size), true, c.scratch); err != nil {
		return err
	}
	return c.rec.parse(c.entry)
}

// firstText is the current entry's first column, which must be TEXT.
func (c *indexCursor) firstText() ([]byte, error) {
	if len(c.rec.types) == 0 {
		return nil, btreeErrorf("empty index entry")
	}
	b, ok := c.rec.bytes(0, false)
	if !ok {
		return nil, btreeErrorf("index entry's first column is not TEXT")
	}
	return b, nil
}

// seek positions the cursor before the first entry whose first column is
// at least key: entries before it are all smaller.
func (c *indexCursor) seek(root uint32, key []byte) error {
	c.stack, c.loaded = c.stack[:0], 0
	for n := root; ; {
		f, err := c.push(n)
		if err != nil {
			return err
		}
		i, err := c.lowerBound(f, key)
		if err != nil {
			return err
		}
		f.i = i
		if !f.pg.interior() {
			return nil
		}
		if n, err = f.pg.child(i, c.p.usable); err != nil {
			return err
		}
	}
}

// lowerBound is the first cell of f's page whose first column is at
// least key (the cell count when none is). It reads every cell, checking
// their order: on a sorted page SQLite's binary search lands on the same
// cell.
func (c *indexCursor) lowerBound(f *indexFrame, key []byte) (int, error) {
	at := f.pg.cells
	var prev []byte
	for i := 0; i < f.pg.cells; i++ {
		if err := c.load(f, i); err != nil {
			return 0, err
		}
		first, err := c.firstText()
		if err != nil {
			return 0, err
		}
		if i > 0 && bytes.Compare(first, prev) < 0 {
			return 0, btreeErrorf("page %d: index cells out of order", f.pg.n)
		}
		prev = append(prev[:0], first...)
		if at == f.pg.cells && bytes.Compare(first, key) >= 0 {
			at = i
		}
	}
	return at, nil
}

// next moves to the next entry in key order (c.rec); false at the end.
func (c *indexCursor) next() (bool, error) {
	for len(c.stack) > 0 {
		f := &c.stack[len(c.stack)-1]
		if !f.pg.interior() {
			if f.i < f.pg.cells {
				f.i++
				return true, c.load(f, f.i-1)
			}
			c.stack = c.stack[:len(c.stack)-1]
			continue
		}
		if f.descend {
			f.descend = false
			n, err := f.pg.child(f.i, c.p.usable)
			if err != nil {
				return false, err
			}
			if err := c.descend(n); err != nil {
				return false, err
			}
			continue
		}
		// Back from child i: its key follows it, then child i+1.
		if f.i < f.pg.cells {
			f.i++
			f.descend = true
			return true, c.load(f, f.i-1)
		}
		c.stack = c.stack[:len(c.stack)-1]
	}
	return false, nil
}

// descend pushes page n, to be walked from its first entry.
func (c *indexCursor) descend(n uint32) error {
	f, err := c.push(n)
	if err != nil {
		return err
	}
	f.i, f.descend = 0, f.pg.interior()
	return nil
}

// tableTree finds rows of a table b-tree by rowid; the last leaf read
// stays in memory, so rows read in rowid order cost one read per leaf.
type tableTree struct {
	p       *pager
	root    uint32
	buf     []byte // interior pages beyond the cache
	leaf    page
	leafBuf []byte
	scratch []byte
	row     []byte // the current row's record
}

func newTableTree(p *pager, root uint32) *tableTree {
	return &tableTree{p: p, root: root, buf: make([]byte, p.pageSize), leafBuf: make([]byte, p.pageSize), scratch: make([]byte, p.pageSize)}
}

// find reads the record of rowid into t.row.
func (t *tableTree) find(rowid int64) ([]byte, error) {
	n := t.root
	for depth := 0; ; depth++ {
		if depth >= maxTreeDepth {
			return nil, btreeErrorf("table deeper than %d pages", maxTreeDepth)
		}
		if n == t.leaf.n && t.leaf.kind == pageTableLeaf {
			return t.inLeaf(rowid)
		}
		var pg page
		if err := t.p.load(n, t.buf, &pg); err != nil {
			return nil, err
		}
		switch pg.kind {
		case pageTableLeaf:
			if &pg.data[0] == &t.buf[0] {
				copy(t.leafBuf, t.buf)
				pg.data = t.leafBuf[:t.p.pageSize]
			}
			t.leaf = pg
			return t.inLeaf(rowid)
		case pageTableInterior:
		default:
			return nil, btreeErrorf("page %d of a table has type 0x%02x", n, pg.kind)
		}
		i, err := t.childFor(&pg, rowid)
		if err != nil {
			return nil, err
		}
		if n, err = pg.child(i, t.p.usable); err != nil {
			return nil, err
		}
	}
}

// childFor is the child of an interior page that holds rowid: the first
// cell whose key is at least rowid, else the right-most child.
func (t *tableTree) childFor(pg *page, rowid int64) (int, error) {
	lo, hi := 0, pg.cells
	for lo < hi {
		mid := (lo + hi) / 2
		off, err := pg.cell(mid, t.p.usable)
		if err != nil {
			return 0, err
		}
		key, k := varint(pg.data[:t.p.usable], off+4)
		if k == 0 {
			return 0, btreeErrorf("page %d: cell %d", pg.n, mid)
		}
		if int64(key) < rowid {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// inLeaf reads rowid's record from the current leaf.
func (t *tableTree) inLeaf(rowid int64) ([]byte, error) {
	pg := &t.leaf
	data := pg.data[:t.p.usable]
	lo, hi := 0, pg.cells
	for lo < hi {
		mid := (lo + hi) / 2
		off, err := pg.cell(mid, t.p.usable)
		if err != nil {
			return nil, err
		}
		size, k := varint(data, off)
		key, k2 := varint(data, off+k)
		if k == 0 || k2 == 0 {
			return nil, btreeErrorf("page %d: cell %d", pg.n, mid)
		}
		switch {
		case int64(key) < rowid:
			lo = mid + 1
		case int64(key) > rowid:
			hi = mid
		default:
			var err error
			t.row, err = t.p.payload(t.row[:0], pg, off+k+k2, int(size), false, t.scratch)
			return t.row, err
		}
	}
	return nil, btreeErrorf("rowid %d not in table page %d", rowid, pg.n)
}

// rowidOf is the rowid of an index entry: its last column, an integer.
func rowidOf(r *record) (int64, bool) {
	if len(r.types) == 0 {
		return 0, false
	}
	return r.int(len(r.types) - 1)
}
