package jsonl

import (
	"sync"
	"sync/atomic"
)

// BlockPool holds blocks of member records for a [Parser] to carve lists
// from again, so that a reader that parses line after line, and knows when
// it is done with what it parsed, does not make the collector free and the
// allocator clear a block per few hundred lines.
//
// The ownership rule is explicit: a parser that uses a pool records every
// block it carves from; [Parser.TakeBlocks] hands those blocks to the
// caller, and only [BlockPool.Put] gives them back. Blocks that are taken
// and never put are left to the collector, as any parsed value is, so a
// caller that cannot tell when its values are done simply never puts them.
//
// A BlockPool is safe for concurrent use (one goroutine parses, another
// puts); its zero value is ready to use.
type BlockPool struct {
	mu   sync.Mutex
	free [][]Member
}

// poolBlock is the number of members in a pooled block (64 KiB); a list of
// more than a quarter of it is allocated alone and never pooled.
const poolBlock = 2 << 10

// maxPooled bounds the blocks a pool keeps (16 MiB); more are dropped.
const maxPooled = 256

// Blocks are the blocks a parser carved lists from between two calls of
// [Parser.TakeBlocks].
type Blocks struct {
	blocks [][]Member
	// pins is set when a value carved into the blocks may reference
	// memory other than the parser's text blocks, its pool's blocks and
	// constants: text or a list allocated alone (more than a quarter
	// block), or the parsed bytes themselves (ParseOwned). Only such
	// blocks are cleared when they are put back (see Put).
	pins bool
}

// UsePool makes p carve the lists of nested containers from pool's blocks
// (new blocks when it has none), recording each block for TakeBlocks.
func (p *Parser) UsePool(pool *BlockPool) {
	p.pool = pool
	for d := range p.slabs {
		p.slabs[d].free = nil
	}
}

// TakeBlocks returns the blocks p carved lists from since the last call,
// and starts new blocks for the lists it parses next: the values parsed
// so far are the only ones the returned blocks hold.
func (p *Parser) TakeBlocks() Blocks {
	b := p.taken
	p.taken = Blocks{}
	for d := range p.slabs {
		p.slabs[d].free = nil
	}
	return b
}

// Put gives blocks back for reuse. The caller vouches that no value
// carved from them is in use any more, nor anything reached through one.
//
// Blocks are handed out again as they are, not cleared: the parser
// overwrites every member it carves, and clearing 64 KiB per block, with
// the collector's barrier on each pointer while it marks, cost more than
// the rest of the pool's work. Until a block is reused its old members
// keep alive what they point to: the parser's text blocks (64 KiB each,
// a few per block) and other pooled blocks, so a pool of at most
// maxPooled blocks keeps little beside itself. Blocks whose values may
// point elsewhere (Blocks.pins: a long string, a long list, the parsed
// bytes) are cleared, as that could be any amount of memory.
func (pool *BlockPool) Put(b Blocks) {
	if len(b.blocks) == 0 {
		return
	}
	if poisonPut.Load() {
		for _, blk := range b.blocks {
			poison(blk)
		}
		return // never reused: a value read after its release reads only poison
	}
	if b.pins {
		for _, blk := range b.blocks {
			clear(blk)
		}
	}
	pool.mu.Lock()
	n := min(len(b.blocks), maxPooled-len(pool.free))
	pool.free = append(pool.free, b.blocks[:max(n, 0)]...)
	pool.mu.Unlock()
}

// get returns a block of poolBlock members (holding old members, see Put).
func (pool *BlockPool) get() []Member {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if n := len(pool.free); n > 0 {
		blk := pool.free[n-1]
		pool.free[n-1] = nil
		pool.free = pool.free[:n-1]
		return blk
	}
	return make([]Member, poolBlock)
}

// poisonPut makes Put poison blocks instead of reusing them (see
// PoisonReleasedBlocks).
var poisonPut atomic.Bool

// PoisonReleasedBlocks is for tests of a reader that puts blocks back: while
// it is on, Put overwrites every member of a block it is given with a
// poison key and string and never reuses the block, so a value used after
// its release reads poison, which the test's comparison of outputs then
// shows. The returned function restores the previous setting.
func PoisonReleasedBlocks(on bool) (restore func()) {
	prev := poisonPut.Swap(on)
	return func() { poisonPut.Store(prev) }
}

// poisonMember is what a poisoned block holds.
var poisonMember = Member{Key: "\x00released", Value: StringValue("\x00read after its block was released")}

func poison(blk []Member) {
	for i := range blk {
		blk[i] = poisonMember
	}
}
