package hygiene

import (
	"hash/maphash"
	"slices"
	"sync"
)

// The ids the tool-call id rewriters hand out or reserve, kept for the
// rest of the replay (a later call may not get one of them), in as little
// memory as they fit: `check --provider all` keeps them for half a dozen
// id states at once, most of them the same ids (the strict form of each
// raw id), and a session may have a hundred thousand tool calls.

// idTable numbers distinct ids and stores each one's bytes once, for every
// id state of one read of a session (ReplaySession's runs share one; a
// whole-list replay has its own). It holds no pointers, so the collector
// does not scan it. It only grows: an id handed out stays handed out. It
// is safe for concurrent use: the lanes of a segmented replay share it.
type idTable struct {
	mu    sync.Mutex
	text  []byte   // the ids, one after another
	ends  []int    // ends[n] is where id n ends in text (it starts where id n-1 ends)
	slots []uint32 // open addressing by hash: 0 is empty, n+1 is id n
	seed  maphash.Seed
}

func newIDTable() *idTable { return &idTable{seed: maphash.MakeSeed()} }

// idTableMinSlots is the least room of an idTable's slots.
const idTableMinSlots = 1024

// bytesOf returns the bytes of id n.
func (t *idTable) bytesOf(n int) []byte {
	start := 0
	if n > 0 {
		start = t.ends[n-1]
	}
	return t.text[start:t.ends[n]]
}

// lookup returns id's number and true, or the slot it would take and
// false.
func (t *idTable) lookup(id string) (slot, n int, ok bool) {
	if len(t.slots) == 0 {
		return -1, 0, false
	}
	mask := len(t.slots) - 1
	for i := int(maphash.String(t.seed, id)) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return i, 0, false
		}
		if string(t.bytesOf(int(s-1))) == id {
			return i, int(s - 1), true
		}
	}
}

// number returns id's number, and whether it has one.
func (t *idTable) number(id string) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, n, ok := t.lookup(id)
	return n, ok
}

// add returns id's number, giving it the next one when it has none.
func (t *idTable) add(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	slot, n, ok := t.lookup(id)
	if ok {
		return n
	}
	if 4*(len(t.ends)+1) > 3*len(t.slots) { // at most three quarters full
		t.grow()
		slot, _, _ = t.lookup(id)
	}
	n = len(t.ends)
	t.text = append(t.text, id...)
	t.ends = append(t.ends, len(t.text))
	t.slots[slot] = uint32(n + 1)
	return n
}

// grow doubles the slots and places every id again.
func (t *idTable) grow() {
	t.slots = make([]uint32, max(idTableMinSlots, 2*len(t.slots)))
	mask := len(t.slots) - 1
	for n := range t.ends {
		i := int(maphash.Bytes(t.seed, t.bytesOf(n))) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(n + 1)
	}
}

// idSet is a set of ids of one table: a bit per id number.
type idSet struct {
	table *idTable
	bits  []uint64
}

func (s *idSet) has(id string) bool {
	n, ok := s.table.number(id)
	return ok && n/64 < len(s.bits) && s.bits[n/64]&(1<<(n%64)) != 0
}

func (s *idSet) add(id string) {
	n := s.table.add(id)
	for n/64 >= len(s.bits) {
		s.bits = append(s.bits, 0)
	}
	s.bits[n/64] |= 1 << (n % 64)
}

// clone is a copy of s on the same table.
func (s *idSet) clone() idSet { return idSet{table: s.table, bits: slices.Clone(s.bits)} }
