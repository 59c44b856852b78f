package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
)

// The fast path reads the b-trees of the database file directly, without
// the SQL engine, for the two ordered walks a check or an export makes
// (a session's events, and its identity rows, both in seq order). It is
// taken only when SQLite itself reads every page from the main file (see
// [DB.fastPath]), and it is a pure reader of that file: pread, never a
// write, never a lock (the driver's read transaction holds the snapshot).
// Anything it does not expect (a page type, a record shape, a pointer out
// of range, a loop) is errBTree, and the caller reads the rest through the
// driver instead: the fast path never fails where the driver succeeds and
// never returns other data.

// errBTree is anything the fast path does not handle.
var errBTree = errors.New("unexpected b-tree content")

func btreeErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errBTree}, args...)...)
}

const (
	pageIndexInterior = 0x02
	pageTableInterior = 0x05
	pageIndexLeaf     = 0x0a
	pageTableLeaf     = 0x0d
	// maxTreeDepth bounds every descent: a b-tree of 2^32 pages with the
	// smallest fan-out SQLite allows is far shallower.
	maxTreeDepth = 40
	// maxCachedInterior bounds the interior pages kept in memory for
	// descents from a root (256 KiB at 4 KiB pages): the first ones read,
	// the roots and the levels below them. A walk holds the pages of its
	// own path, so a larger cache would only grow the heap.
	maxCachedInterior = 64
)

// pager reads pages of the main database file with pread.
type pager struct {
	f        *os.File
	pageSize int
	usable   int // page size less the reserved bytes
	// indexLocal is the largest index payload held whole in its cell
	// (see localPayload).
	indexLocal int
	pages      uint32 // pages in the file
	interior   map[uint32][]byte
}

// newPager reads the database header of f. size is the file's size.
func newPager(f *os.File, size int64) (*pager, error) {
	var h [100]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return nil, btreeErrorf("header: %v", err)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return nil, btreeErrorf("not an SQLite 3 file")
	}
	ps := int(binary.BigEndian.Uint16(h[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps&(ps-1) != 0 {
		return nil, btreeErrorf("page size %d", ps)
	}
	reserved := int(h[20])
	// Text encoding 1 is UTF-8: the driver returns the stored bytes.
	if enc := binary.BigEndian.Uint32(h[56:60]); enc != 1 {
		return nil, btreeErrorf("text encoding %d", enc)
	}
	if h[21] != 64 || h[22] != 32 || h[23] != 32 || ps-reserved < 480 {
		return nil, btreeErrorf("payload fractions or reserved bytes")
	}
	if size%int64(ps) != 0 || size/int64(ps) > 1<<31 {
		return nil, btreeErrorf("file size %d is not a whole number of pages", size)
	}
	pages := uint32(size / int64(ps))
	// The header's page count is valid when its version-valid-for number
	// matches the change counter; it must then agree with the file.
	if binary.BigEndian.Uint32(h[92:96]) == binary.BigEndian.Uint32(h[24:28]) &&
		binary.BigEndian.Uint32(h[28:32]) != pages {
		return nil, btreeErrorf("header page count %d, file holds %d", binary.BigEndian.Uint32(h[28:32]), pages)
	}
	p := &pager{f: f, pageSize: ps, usable: ps - reserved, pages: pages, interior: map[uint32][]byte{}}
	p.indexLocal = (p.usable-12)*64/255 - 23
	return p, nil
}

// lane is a pager for another goroutine: the same file and header, and a
// cache of its own that starts with this one's pages (whose bytes are
// never written again, so both may read them).
func (p *pager) lane() *pager {
	q := *p
	q.interior = maps.Clone(p.interior)
	return &q
}

// read reads page n into buf (of the page size).
func (p *pager) read(n uint32, buf []byte) error {
	if n < 1 || n > p.pages {
		return btreeErrorf("page %d out of range (1..%d)", n, p.pages)
	}
	if _, err := p.f.ReadAt(buf[:p.pageSize], int64(n-1)*int64(p.pageSize)); err != nil {
		return btreeErrorf("page %d: %v", n, err)
	}
	return nil
}

// page is one b-tree page as read.
type page struct {
	n     uint32
	data  []byte
	hdr   int // offset of the b-tree header (100 on page 1)
	kind  byte
	cells int
	right uint32 // the right-most child of an interior page
}

// parse checks the b-tree header of the page in data.
func (p *pager) parse(n uint32, data []byte, pg *page) error {
	hdr := 0
	if n == 1 {
		hdr = 100
	}
	*pg = page{n: n, data: data, hdr: hdr, kind: data[hdr]}
	switch pg.kind {
	case pageIndexInterior, pageTableInterior:
		pg.right = binary.BigEndian.Uint32(data[hdr+8:])
	case pageIndexLeaf, pageTableLeaf:
	default:
		return btreeErrorf("page %d has type 0x%02x", n, pg.kind)
	}
	pg.cells = int(binary.BigEndian.Uint16(data[hdr+3:]))
	if pg.hdrSize()+2*pg.cells > p.usable {
		return btreeErrorf("page %d: %d cells do not fit", n, pg.cells)
	}
	return nil
}

func (pg *page) interior() bool { return pg.kind == pageIndexInterior || pg.kind == pageTableInterior }

func (pg *page) hdrSize() int {
	if pg.interior() {
		return pg.hdr + 12
	}
	return pg.hdr + 8
}

// cell is the offset of cell i, checked to lie in the page.
func (pg *page) cell(i int, usable int) (int, error) {
	at := pg.hdrSize() + 2*i
	off := int(binary.BigEndian.Uint16(pg.data[at:]))
	if off < pg.hdrSize()+2*pg.cells || off+4 > usable {
		return 0, btreeErrorf("page %d: cell %d at offset %d", pg.n, i, off)
	}
	return off, nil
}

// child is the left child of interior cell i (i == cells: the right-most).
func (pg *page) child(i int, usable int) (uint32, error) {
	if i == pg.cells {
		return pg.right, nil
	}
	off, err := pg.cell(i, usable)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(pg.data[off:]), nil
}

// load reads page n: interior pages come from (and go to) the cache, leaf
// pages into buf.
func (p *pager) load(n uint32, buf []byte, pg *page) error {
	if data, ok := p.interior[n]; ok {
		return p.parse(n, data, pg)
	}
	if err := p.read(n, buf); err != nil {
		return err
	}
	if err := p.parse(n, buf[:p.pageSize], pg); err != nil {
		return err
	}
	if err := p.sortedRowids(pg); err != nil {
		return err
	}
	if pg.interior() && len(p.interior) < maxCachedInterior {
		data := bytes.Clone(buf[:p.pageSize])
		p.interior[n] = data
		pg.data = data
	}
	return nil
}

// sortedRowids checks that the rowids of a table page strictly increase:
// SQLite's binary search and ours then find the same cell.
func (p *pager) sortedRowids(pg *page) error {
	skip := 4 // an interior cell: child pointer, then the rowid
	switch pg.kind {
	case pageTableLeaf:
		skip = 0
	case pageTableInterior:
	default:
		return nil
	}
	data := pg.data[:p.usable]
	ptrs := pg.hdrSize()
	var prev int64
	for i := 0; i < pg.cells; i++ {
		// pg.cell(i), its bounds checked as there.
		off := int(binary.BigEndian.Uint16(data[ptrs+2*i:]))
		if off < ptrs+2*pg.cells || off+4 > len(data) {
			return btreeErrorf("page %d: cell %d at offset %d", pg.n, i, off)
		}
		at := off + skip
		if skip == 0 { // a leaf cell: payload size, then the rowid
			_, k := varint(data, at)
			if k == 0 {
				return btreeErrorf("page %d: cell %d", pg.n, i)
			}
			at += k
		}
		key, k := varint(data, at)
		if k == 0 || i > 0 && int64(key) <= prev {
			return btreeErrorf("page %d: rowids out of order at cell %d", pg.n, i)
		}
		prev = int64(key)
	}
	return nil
}

// varint decodes an SQLite varint at b[i:]; n is 0 when it runs past b.
func varint(b []byte, i int) (v uint64, n int) {
	for k := 0; k < 8; k++ {
		if i+k >= len(b) {
			return 0, 0
		}
		c := b[i+k]
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v, k + 1
		}
	}
	if i+8 >= len(b) {
		return 0, 0
	}
	return v<<8 | uint64(b[i+8]), 9
}

// localPayload is how many bytes of a payload of size n stay in the cell.
func (p *pager) localPayload(n int, index bool) int {
	u := p.usable
	x := u - 35
	if index {
		x = p.indexLocal
	}
	if n <= x {
		return n
	}
	m := (u-12)*32/255 - 23
	k := m + (n-m)%(u-4)
	if k <= x {
		return k
	}
	return m
}

// payload appends the payload of size n whose cell part starts at
// pg.data[off:] to dst, following the overflow chain. scratch is a page
// buffer for the overflow pages.
func (p *pager) payload(dst []byte, pg *page, off, n int, index bool, scratch []byte) ([]byte, error) {
	if n < 0 || n > 1<<30 {
		return nil, btreeErrorf("page %d: payload size %d", pg.n, n)
	}
	local := p.localPayload(n, index)
	end := off + local
	if local < n {
		end += 4
	}
	if end > p.usable {
		return nil, btreeErrorf("page %d: payload runs past the page", pg.n)
	}
	dst = append(dst, pg.data[off:off+local]...)
	if local == n {
		return dst, nil
	}
	next := binary.BigEndian.Uint32(pg.data[off+local:])
	// Each overflow page holds usable-4 bytes: the chain has a known
	// length, which bounds the loop.
	for left := n - local; left > 0; {
		if next == 0 {
			return nil, btreeErrorf("page %d: overflow chain ends early", pg.n)
		}
		if err := p.read(next, scratch); err != nil {
			return nil, err
		}
		k := min(left, p.usable-4)
		dst = append(dst, scratch[4:4+k]...)
		left -= k
		next = binary.BigEndian.Uint32(scratch)
	}
	return dst, nil
}

// record is a decoded record header: each column's serial type and the
// offset of its value in the record.
type record struct {
	data  []byte
	types []uint64
	offs  []int
	// max is how many columns the header is decoded for (0: all). As
	// SQLite decodes a header only up to the column a query reads, the
	// columns past them are not looked at.
	max int
}

func serialSize(t uint64) (int, bool) {
	switch {
	case t <= 4:
		return int(t), true
	case t == 5:
		return 6, true
	case t == 6 || t == 7:
		return 8, true
	case t == 8 || t == 9:
		return 0, true
	case t >= 12:
		return int((t - 12) / 2), true
	}
	return 0, false
}

// parse decodes the header of the record in data.
func (r *record) parse(data []byte) error { return r.parseHead(data, len(data)) }

// parseHead decodes the header of a record of total bytes of which data
// is the start (the part in its cell): the header must lie in data, the
// values may lie past it (then [record.has] is false for them).
func (r *record) parseHead(data []byte, total int) error {
	r.data = data
	hsize, n := varint(data, 0)
	if n == 0 || hsize < uint64(n) || hsize > uint64(len(data)) || len(data) > total {
		return btreeErrorf("record header")
	}
	h := data[:hsize]
	// A column takes at least one header byte: the slices are filled in
	// place, without growing.
	if cap(r.types) < len(h) {
		r.types, r.offs = make([]uint64, 0, len(h)), make([]int, 0, len(h))
	}
	types, offs := r.types[:len(h)], r.offs[:len(h)]
	cols, body := 0, len(h)
	for i := n; i < len(h) && (r.max == 0 || cols < r.max); cols++ {
		t := uint64(h[i])
		if t < 0x80 { // nearly every serial type is one byte
			i++
		} else {
			var k int
			if t, k = varint(h, i); k == 0 {
				return btreeErrorf("record column %d", cols)
			}
			i += k
		}
		size, ok := serialSize(t)
		if !ok || size < 0 || body+size > total {
			return btreeErrorf("record column %d", cols)
		}
		types[cols], offs[cols] = t, body
		body += size
	}
	r.types, r.offs = types[:cols], offs[:cols]
	return nil
}

// has reports whether column i's value lies in r.data.
func (r *record) has(i int) bool {
	size, _ := serialSize(r.types[i])
	return r.offs[i]+size <= len(r.data)
}

// null reports whether column i is NULL.
func (r *record) null(i int) bool { return r.types[i] == 0 }

// int is column i as an integer; ok is false for other types.
func (r *record) int(i int) (int64, bool) {
	t, d := r.types[i], r.data[r.offs[i]:]
	switch {
	case t == 1:
		return int64(int8(d[0])), true
	case t >= 2 && t <= 6:
		size, _ := serialSize(t)
		v := int64(int8(d[0]))
		for _, c := range d[1:size] {
			v = v<<8 | int64(c)
		}
		return v, true
	case t == 8:
		return 0, true
	case t == 9:
		return 1, true
	}
	return 0, false
}

// text is column i's bytes when it is TEXT (blob false) or a BLOB.
func (r *record) bytes(i int, blob bool) ([]byte, bool) {
	t := r.types[i]
	if t < 12 || (t%2 == 0) != blob {
		return nil, false
	}
	size, _ := serialSize(t)
	return r.data[r.offs[i] : r.offs[i]+size], true
}

// blob is column i as a BLOB or NULL (ok false for another type).
func (r *record) blob(i int) (b []byte, null, ok bool) {
	if r.null(i) {
		return nil, true, true
	}
	b, ok = r.bytes(i, true)
	return b, false, ok
}

// intOrNull is column i as an INTEGER or NULL (ok false for another type).
func (r *record) intOrNull(i int) (v int64, null, ok bool) {
	if r.null(i) {
		return 0, true, true
	}
	v, ok = r.int(i)
	return v, false, ok
}
