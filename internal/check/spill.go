package check

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"os"
	"slices"
)

// A file full of one fault (millions of malformed lines) has millions of
// findings, and they are sorted only at the end of the file: held in
// memory they took gigabytes. With [Options.SpillAbove] set, the pass
// moves its findings to a temp file (unlinked as soon as it exists) in
// sorted runs whenever it holds more than that many, and the result
// yields them by merging the runs ([Result.All]): memory stays bounded by
// the bound and one read buffer per run, and the order is exactly the
// in-memory one (a stable sort by line, then catalogue order).
//
// The pass keeps two lists, the findings in the order they are found and
// the findings of checks fix repairs (whose hint is settled at the end of
// the file, see earlyExit): each spills into runs of its own, and the
// merge ranks the runs as the lists are concatenated at the end, which
// is what makes it stable.

// spill is the temp file of a pass's sorted runs.
type spill struct {
	f    *os.File
	w    *bufio.Writer
	size int64 // bytes written
	// found and fixable are the runs of the two lists, in order;
	// fixableHint, when set at the end of the file, replaces the hint of
	// every spilled fixable finding (and makes them not fixable).
	found, fixable []run
	fixableHint    string
	// notes are the texts to append to the message of spilled findings,
	// by their index in the order found (see manyImageFindings).
	notes map[int]string
	err   error
}

// run is one sorted run in the spill file.
type run struct {
	off, size int64
	n         int
	fixable   bool
}

// record is a spilled finding and its index in the order found (-1 for a
// fixable one).
type record struct {
	Finding
	index int
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "openclaw-doctor-findings-*")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name()) // nothing stays behind, whatever ends the process
	return &spill{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// add writes fs, sorted stably, as the next run of a list; first is the
// index in the order found of fs[0] (ignored for the fixable list).
func (s *spill) add(fs []Finding, first int, fixable bool) {
	if s.err != nil || len(fs) == 0 {
		return
	}
	recs := make([]record, len(fs))
	for i, f := range fs {
		recs[i] = record{Finding: f, index: -1}
		if !fixable {
			recs[i].index = first + i
		}
	}
	slices.SortStableFunc(recs, func(a, b record) int { return compareFindings(a.Finding, b.Finding) })
	r := run{off: s.size, n: len(recs), fixable: fixable}
	var buf []byte
	for i := range recs {
		buf = appendRecord(buf[:0], &recs[i])
		n, err := s.w.Write(buf)
		s.size += int64(n)
		if err != nil {
			s.err = err
			return
		}
	}
	r.size = s.size - r.off
	if fixable {
		s.fixable = append(s.fixable, r)
	} else {
		s.found = append(s.found, r)
	}
}

// appendRecord encodes r: its index, line, severity and fixable flag, then
// its id, entry id, message and hint, each with its length.
func appendRecord(b []byte, r *record) []byte {
	b = binary.AppendVarint(b, int64(r.index))
	b = binary.AppendVarint(b, int64(r.Line))
	b = binary.AppendVarint(b, int64(r.Severity))
	fixable := byte(0)
	if r.Fixable {
		fixable = 1
	}
	b = append(b, fixable)
	for _, s := range []string{string(r.ID), r.EntryID, r.Message, r.Hint} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// readRecord decodes the next record of br into r (path is every
// finding's path).
func readRecord(br *bufio.Reader, path string, r *record) error {
	var nums [3]int64 // index, line, severity
	for i := range nums {
		n, err := binary.ReadVarint(br)
		if err != nil {
			return err
		}
		nums[i] = n
	}
	index, line, sev := nums[0], nums[1], nums[2]
	fixable, err := br.ReadByte()
	if err != nil {
		return err
	}
	var strs [4]string
	for i := range strs {
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return err
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return err
		}
		strs[i] = string(b)
	}
	*r = record{index: int(index), Finding: Finding{ID: ID(strs[0]), Severity: Severity(sev), Path: path, Line: int(line),
		EntryID: strs[1], Message: strs[2], Hint: strs[3], Fixable: fixable == 1}}
	return nil
}

// flush ends the writing; the runs are read from the file from now on.
func (s *spill) flush() {
	if err := s.w.Flush(); err != nil && s.err == nil {
		s.err = err
	}
}

// all yields the spilled findings merged with the in-memory ones: tail,
// the in-memory rest of the found list, ranked after the found runs and
// before the fixable runs, and rest, the in-memory rest of the fixable
// list and what the end of the file added, ranked last (both sorted). The
// file is closed when the sequence ends.
func (s *spill) all(path string, tail, rest []Finding) iter.Seq[Finding] {
	return func(yield func(Finding) bool) {
		defer s.f.Close()
		if s.err == nil && !s.merge(path, tail, rest, yield) {
			return
		}
		if s.err != nil { // the findings on disk are lost: say so rather than end short
			yield(Finding{ID: Unreadable, Severity: Error, Path: path,
				Message: "some findings could not be reported: " + s.err.Error()})
		}
	}
}

// merge yields the merged findings (see all); false when yield stopped it.
func (s *spill) merge(path string, tail, rest []Finding, yield func(Finding) bool) bool {
	var h mergeHeap
	add := func(src source) {
		if src.next() {
			h = append(h, src)
		}
	}
	for i, r := range s.found {
		add(&runSource{spill: s, r: r, rank: i, path: path})
	}
	add(&sliceSource{fs: tail, rank: len(s.found)})
	for i, r := range s.fixable {
		add(&runSource{spill: s, r: r, rank: len(s.found) + 1 + i, path: path})
	}
	add(&sliceSource{fs: rest, rank: len(s.found) + 1 + len(s.fixable)})
	heap.Init(&h)
	for len(h) > 0 {
		src := h[0]
		if !yield(src.current()) {
			return false
		}
		if src.next() {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return true
}

// close drops the spill file of a result that will not be read.
func (s *spill) close() { s.f.Close() }

// source is one sorted sequence of the merge.
type source interface {
	next() bool // moves to the next finding; false at the end
	current() Finding
	order() int // the sequence's rank among the sequences of the merge
}

// runSource reads one run of the spill file.
type runSource struct {
	spill *spill
	r     run
	rank  int
	path  string
	br    *bufio.Reader
	left  int
	cur   record
}

func (s *runSource) next() bool {
	if s.br == nil {
		s.br = bufio.NewReaderSize(io.NewSectionReader(s.spill.f, s.r.off, s.r.size), 32<<10)
		s.left = s.r.n
	}
	if s.left == 0 {
		return false
	}
	s.left--
	if err := readRecord(s.br, s.path, &s.cur); err != nil {
		if s.spill.err == nil {
			s.spill.err = errors.Join(errors.New("reading back spilled findings"), err)
		}
		return false
	}
	if s.r.fixable && s.spill.fixableHint != "" {
		s.cur.Fixable, s.cur.Hint = false, s.spill.fixableHint
	}
	if note, ok := s.spill.notes[s.cur.index]; ok && s.cur.index >= 0 {
		s.cur.Message += note
	}
	return true
}

func (s *runSource) current() Finding { return s.cur.Finding }
func (s *runSource) order() int       { return s.rank }

// sliceSource is an in-memory sorted sequence.
type sliceSource struct {
	fs   []Finding
	rank int
	i    int
}

func (s *sliceSource) next() bool {
	if s.i >= len(s.fs) {
		return false
	}
	s.i++
	return true
}

func (s *sliceSource) current() Finding { return s.fs[s.i-1] }
func (s *sliceSource) order() int       { return s.rank }

// mergeHeap orders the sources by their current finding, then by rank
// (each source is itself in order, so ties keep the concatenation's
// order: the merge is a stable sort).
type mergeHeap []source

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if c := compareFindings(h[i].current(), h[j].current()); c != 0 {
		return c < 0
	}
	return h[i].order() < h[j].order()
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(source)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// compareFindings is the order of [SortFindings]: line, then catalogue
// order.
func compareFindings(a, b Finding) int {
	if c := cmp.Compare(a.Line, b.Line); c != 0 {
		return c
	}
	return cmp.Compare(findingRank[a.ID], findingRank[b.ID])
}
