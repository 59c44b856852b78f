package store

import (
	"bytes"
	"encoding/binary"
)

// indexCursor walks an index b-tree in key order from the first entry
// whose first column (TEXT, BINARY collation) is at least a given key.
type indexCursor struct {
	p       *pager
	stack   []indexFrame
	bufs    [][]byte // a page buffer per depth
	scratch []byte   // overflow pages
	entry   []byte   // the current entry's record when it overflows its cell
	rec     record
	loaded  int // pages loaded: bounded by the page count
	// split makes the walk one lane of two (see [leafSplit]); nil: the
	// whole walk.
	split *leafSplit
}

// leafSplit makes an index walk one of two lanes of a session's walk
// (see [ExportReader]). The index leaves, counted from the one the seek
// lands in (leaf 0), are dealt out in runs of runLeaves leaves, by turns
// to lane 0 and lane 1. A lane descends only into its own leaves: another
// lane's it steps over in their parent page, unread, so neither lane
// reads the other's part of the index. The entry of an interior cell
// follows the last leaf of the subtree before it, and goes to that leaf's
// lane. Taken together, the two lanes' entries are the whole walk's, run
// by run in key order.
type leafSplit struct {
	lane, runLeaves int
	// leafDepth is the depth of the leaves (the seek's path): every leaf
	// of a b-tree is at the same depth, and a page that is not where it
	// should be is errBTree.
	leafDepth int
	leaf      int // the last leaf entered or stepped over
	run       int // this lane's current run: lane, lane+2, ...
	ended     int // this lane's runs ended since [indexCursor.runsEnded]
}

func (s *leafSplit) owns(leaf int) bool { return leaf/s.runLeaves%2 == s.lane }

// reach notes that the walk has come to leaf: every run of this lane
// before leaf's run has ended (all its entries precede leaf's).
func (s *leafSplit) reach(leaf int) {
	s.leaf = leaf
	for leaf/s.runLeaves > s.run {
		s.ended++
		s.run += 2
	}
}

// runsEnded is how many of the lane's runs have ended since it was last
// asked (0 for a whole walk).
func (c *indexCursor) runsEnded() int {
	if c.split == nil {
		return 0
	}
	n := c.split.ended
	c.split.ended = 0
	return n
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

// load decodes cell i of f's page into c.rec (its bytes valid until the
// next load).
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
	if n := int(size); n <= c.p.usable && c.p.localPayload(n, true) == n && off+k+n <= c.p.usable {
		// The whole entry lies in its cell: read it there, valid until
		// the page's buffer is loaded again.
		return c.rec.parse(f.pg.data[off+k : off+k+n : off+k+n])
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
			if sp := c.split; sp != nil {
				sp.leafDepth = len(c.stack) - 1
				sp.reach(0)
				if !sp.owns(0) {
					f.i = f.pg.cells // read for its path only
				}
			}
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
			if sp := c.split; sp != nil && len(c.stack) == sp.leafDepth {
				// Child i is a leaf: another lane's is stepped over.
				if sp.reach(sp.leaf + 1); !sp.owns(sp.leaf) {
					continue
				}
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
			if sp := c.split; sp != nil && !sp.owns(sp.leaf) {
				continue // the lane of the leaf before it takes it
			}
			return true, c.load(f, f.i-1)
		}
		c.stack = c.stack[:len(c.stack)-1]
	}
	return false, nil
}

// nextKeyed is next for the common entry of a session's walk: a leaf
// cell that holds its whole record, (TEXT, INTEGER, INTEGER) with each
// serial type in one header byte, whose text is key. It decodes that cell
// in place, without the general record path, and returns its two
// integers. ok false: the next entry is not of that kind; the cursor has
// not moved and next reads it. Where it succeeds, next would read the
// same entry and find the same values, and c.rec is not set (next and
// load set it again).
func (c *indexCursor) nextKeyed(key []byte) (a, b int64, ok bool) {
	if len(c.stack) == 0 {
		return 0, 0, false
	}
	f := &c.stack[len(c.stack)-1]
	if f.pg.kind != pageIndexLeaf || f.i >= f.pg.cells {
		return 0, 0, false
	}
	data := f.pg.data[:c.p.usable]
	hdr := f.pg.hdrSize()
	off := int(binary.BigEndian.Uint16(data[hdr+2*f.i:]))
	// The cell: a one-byte payload size n, then the record: header size
	// 4, the three serial types, the values.
	if off < hdr+2*f.pg.cells || off+5 > len(data) {
		return 0, 0, false
	}
	n := int(data[off])
	if n >= 0x80 || n > c.p.indexLocal || off+1+n > len(data) || data[off+1] != 4 {
		return 0, 0, false
	}
	t0, t1, t2 := data[off+2], data[off+3], data[off+4]
	s1, s2 := intSize(t1), intSize(t2)
	if t0 < 13 || t0%2 == 0 || t0 >= 0x80 || s1 < 0 || s2 < 0 {
		return 0, 0, false
	}
	l := int(t0-13) / 2
	v := off + 5 // the values
	if 4+l+s1+s2 > n || !equalKey(data[v:v+l], key) {
		return 0, 0, false
	}
	v += l
	a = intAt(data, v, s1, t1)
	b = intAt(data, v+s1, s2, t2)
	f.i++
	return a, b, true
}

// equalKey is bytes.Equal for the short keys of a session's index
// entries: eight bytes at a time, the last eight overlapping, without a
// call.
func equalKey(a, key []byte) bool {
	n := len(key)
	if len(a) != n {
		return false
	}
	if n < 8 {
		return string(a) == string(key)
	}
	a = a[:n]
	for i := 0; i < n-8; i += 8 {
		if binary.LittleEndian.Uint64(a[i:]) != binary.LittleEndian.Uint64(key[i:]) {
			return false
		}
	}
	return binary.LittleEndian.Uint64(a[n-8:]) == binary.LittleEndian.Uint64(key[n-8:])
}

// intSize is the size of an integer of serial type t; -1 for another type
// (or an integer whose serial type takes more than one header byte).
func intSize(t byte) int {
	switch t {
	case 1, 2, 3, 4:
		return int(t)
	case 5:
		return 6
	case 6:
		return 8
	case 8, 9:
		return 0
	}
	return -1
}

// intAt is the integer of serial type t (see intSize) whose size bytes
// start at data[v:].
func intAt(data []byte, v, size int, t byte) int64 {
	if size == 0 {
		return int64(t - 8) // 8: 0, 9: 1
	}
	if v+8 <= len(data) {
		// One load; the arithmetic shift keeps the sign.
		return int64(binary.BigEndian.Uint64(data[v:])) >> (64 - 8*size)
	}
	x := int64(int8(data[v]))
	for _, c := range data[v+1 : v+size] {
		x = x<<8 | int64(c)
	}
	return x
}

// skipLeaf steps over the rest of the current leaf when its last entry's
// first column is key: the page's entries being in order, so is every
// one before it. It returns how many entries it stepped over, the last
// one loaded (c.rec); 0 when it did not move (c.rec is then to be
// loaded again by next).
func (c *indexCursor) skipLeaf(key []byte) (int, error) {
	if len(c.stack) == 0 {
		return 0, nil
	}
	f := &c.stack[len(c.stack)-1]
	if f.pg.interior() || f.pg.cells-f.i < 2 {
		return 0, nil
	}
	if err := c.load(f, f.pg.cells-1); err != nil {
		return 0, err
	}
	if len(c.rec.types) == 0 {
		return 0, nil
	}
	if cmp, err := compareFirst(&c.rec, key); err != nil || cmp != 0 {
		return 0, nil
	}
	n := f.pg.cells - f.i
	f.i = f.pg.cells
	return n, nil
}

// descend pushes page n, to be walked from its first entry.
func (c *indexCursor) descend(n uint32) error {
	f, err := c.push(n)
	if err != nil {
		return err
	}
	if sp := c.split; sp != nil && (len(c.stack)-1 == sp.leafDepth) == f.pg.interior() {
		return btreeErrorf("index page %d at depth %d, its leaves at depth %d", n, len(c.stack)-1, sp.leafDepth)
	}
	f.i, f.descend = 0, f.pg.interior()
	return nil
}

// tableTree finds rows of a table b-tree by rowid. Rows read in rowid
// order cost one page read per leaf and almost no search: the last
// descent is remembered (each interior page's chosen child and the rowids
// that child covers, and the page itself in that depth's buffer), so a
// rowid the same child covers skips that page's search, and a rowid past
// it reads the page from its buffer; and a rowid the whole descent still
// covers is first tried at the cell after the last one found. Both give
// the cell a search from the root gives, because the pages are read once
// and their rowids are checked to be in order when loaded.
type tableTree struct {
	p       *pager
	root    uint32
	bufs    [][]byte // a page buffer per depth
	held    []page   // the interior page each depth's buffer holds (n 0: none)
	path    []treeStep
	leaf    page
	at      int // the leaf cell found last
	leafBuf []byte
	scratch []byte
	row     []byte // the current row's record
	// found: the last locate found rowid last in cell at of leaf, and the
	// steps of its descent cover the rowids up to hi (hasHi false: all).
	found bool
	last  int64
	hi    int64
	hasHi bool
}

// treeStep is one interior page of the last descent: the child taken and
// the rowids it covers, (lo, hi] (hasLo, hasHi false: unbounded).
type treeStep struct {
	n, child     uint32
	lo, hi       int64
	hasLo, hasHi bool
}

func (s *treeStep) covers(rowid int64) bool {
	return (!s.hasLo || rowid > s.lo) && (!s.hasHi || rowid <= s.hi)
}

func newTableTree(p *pager, root uint32) *tableTree {
	return &tableTree{p: p, root: root, leafBuf: make([]byte, p.pageSize), scratch: make([]byte, p.pageSize)}
}

// find reads the record of rowid: the leaf's own bytes when the whole
// record lies in its cell (valid until the next find), else a copy in
// t.row of the cell's part and its overflow pages.
func (t *tableTree) find(rowid int64) ([]byte, error) {
	off, size, err := t.locate(rowid)
	if err != nil {
		return nil, err
	}
	if size >= 0 && t.p.localPayload(size, false) == size && off+size <= t.p.usable {
		return t.leaf.data[off : off+size : off+size], nil
	}
	t.row, err = t.p.payload(t.row[:0], &t.leaf, off, size, false, t.scratch)
	return t.row, err
}

// locate finds rowid's cell in its leaf (t.leaf): the offset of its
// payload and the payload's size.
func (t *tableTree) locate(rowid int64) (off, size int, err error) {
	// The row found last, or the next cell holding the next rowid asked
	// for: every step of the last descent covers the rowids from the last
	// one found up to t.hi, so the descent would end in this leaf again.
	if t.found && rowid >= t.last && (!t.hasHi || rowid <= t.hi) {
		at := t.at
		if rowid > t.last {
			at++
		}
		if at < t.leaf.cells {
			key, off, size, err := t.leafKey(at)
			if err == nil && key == rowid {
				t.at, t.last = at, rowid
				return off, size, nil
			}
		}
	}
	t.found = false
	if off, size, err = t.descend(rowid); err != nil {
		return 0, 0, err
	}
	t.found, t.last, t.hasHi = true, rowid, false
	for _, s := range t.path {
		if s.hasHi && (!t.hasHi || s.hi < t.hi) {
			t.hi, t.hasHi = s.hi, true
		}
	}
	return off, size, nil
}

// descend finds rowid's cell from the root, through the steps of the last
// descent that still cover it.
func (t *tableTree) descend(rowid int64) (off, size int, err error) {
	n := t.root
	for depth := 0; ; depth++ {
		if depth >= maxTreeDepth {
			return 0, 0, btreeErrorf("table deeper than %d pages", maxTreeDepth)
		}
		if depth < len(t.path) && t.path[depth].n == n && t.path[depth].covers(rowid) {
			n = t.path[depth].child
			continue
		}
		t.path = t.path[:min(depth, len(t.path))]
		if n == t.leaf.n && t.leaf.kind == pageTableLeaf {
			return t.inLeaf(rowid)
		}
		pg, err := t.pageAt(depth, n)
		if err != nil {
			return 0, 0, err
		}
		switch pg.kind {
		case pageTableLeaf:
			if &pg.data[0] == &t.bufs[depth][0] {
				// The leaf keeps the buffer it was read into, and this
				// depth takes the last leaf's: no copy of the page.
				t.bufs[depth], t.leafBuf = t.leafBuf, t.bufs[depth]
			}
			t.leaf, t.at = pg, -1
			return t.inLeaf(rowid)
		case pageTableInterior:
		default:
			return 0, 0, btreeErrorf("page %d of a table has type 0x%02x", n, pg.kind)
		}
		step, err := t.childFor(&pg, rowid)
		if err != nil {
			return 0, 0, err
		}
		t.path = append(t.path, step)
		n = step.child
	}
}

// pageAt is page n at depth of a descent: the interior page held there
// when it is n, else read into that depth's buffer (and held there when
// it is an interior page). Holding each depth's page makes a walk in
// rowid order read each interior page once without a shared cache.
func (t *tableTree) pageAt(depth int, n uint32) (page, error) {
	for len(t.bufs) <= depth {
		t.bufs, t.held = append(t.bufs, make([]byte, t.p.pageSize)), append(t.held, page{})
	}
	if h := t.held[depth]; h.n == n && h.kind == pageTableInterior {
		return h, nil
	}
	t.held[depth] = page{} // the buffer is read again
	var pg page
	if err := t.p.load(n, t.bufs[depth], &pg); err != nil {
		return pg, err
	}
	if pg.kind == pageTableInterior {
		t.held[depth] = pg
	}
	return pg, nil
}

// childFor is the step of an interior page toward rowid: the first cell
// whose key is at least rowid, else the right-most child, with the keys
// around it.
func (t *tableTree) childFor(pg *page, rowid int64) (treeStep, error) {
	key := func(i int) (int64, error) {
		off, err := pg.cell(i, t.p.usable)
		if err != nil {
			return 0, err
		}
		k, n := varint(pg.data[:t.p.usable], off+4)
		if n == 0 {
			return 0, btreeErrorf("page %d: cell %d", pg.n, i)
		}
		return int64(k), nil
	}
	lo, hi := 0, pg.cells
	for lo < hi {
		mid := (lo + hi) / 2
		k, err := key(mid)
		if err != nil {
			return treeStep{}, err
		}
		if k < rowid {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	step := treeStep{n: pg.n}
	var err error
	if lo > 0 {
		step.hasLo = true
		if step.lo, err = key(lo - 1); err != nil {
			return step, err
		}
	}
	if lo < pg.cells {
		step.hasHi = true
		if step.hi, err = key(lo); err != nil {
			return step, err
		}
	}
	step.child, err = pg.child(lo, t.p.usable)
	return step, err
}

// leafKey is the rowid of leaf cell i, the offset of its payload and the
// payload's size.
func (t *tableTree) leafKey(i int) (rowid int64, off, size int, err error) {
	pg := &t.leaf
	data := pg.data[:t.p.usable]
	at, err := pg.cell(i, t.p.usable)
	if err != nil {
		return 0, 0, 0, err
	}
	n, k := varint(data, at)
	key, k2 := varint(data, at+k)
	if k == 0 || k2 == 0 {
		return 0, 0, 0, btreeErrorf("page %d: cell %d", pg.n, i)
	}
	return int64(key), at + k + k2, int(n), nil
}

// inLeaf finds rowid's cell in the current leaf, trying the cell after the
// last one found first.
func (t *tableTree) inLeaf(rowid int64) (off, size int, err error) {
	pg := &t.leaf
	if next := t.at + 1; next < pg.cells {
		key, off, size, err := t.leafKey(next)
		if err != nil {
			return 0, 0, err
		}
		if key == rowid {
			t.at = next
			return off, size, nil
		}
	}
	lo, hi := 0, pg.cells
	for lo < hi {
		mid := (lo + hi) / 2
		key, off, size, err := t.leafKey(mid)
		if err != nil {
			return 0, 0, err
		}
		switch {
		case key < rowid:
			lo = mid + 1
		case key > rowid:
			hi = mid
		default:
			t.at = mid
			return off, size, nil
		}
	}
	return 0, 0, btreeErrorf("rowid %d not in table page %d", rowid, pg.n)
}

// rowidOf is the rowid of an index entry: its last column, an integer.
func rowidOf(r *record) (int64, bool) {
	if len(r.types) == 0 {
		return 0, false
	}
	return r.int(len(r.types) - 1)
}
