//go:build amd64 && !purego

package jsonl

import "golang.org/x/sys/cpu"

// useAVX2: the string scan's block masks take a few dozen vector
// instructions instead of some three hundred word operations.
var useAVX2 = cpu.X86.HasAVX2

// blockMasksAVX2 is blockMasksGo for the 64 bytes at p, with AVX2.
//
//go:noescape
func blockMasksAVX2(p *byte, m *blockMask)

// blockMasks sets m to [blockMasksGo]'s masks of b, with AVX2 when the CPU
// has it.
func blockMasks(b []byte, m *blockMask) {
	if useAVX2 {
		_ = b[63]
		blockMasksAVX2(&b[0], m)
		return
	}
	*m = blockMasksGo(b)
}

// plainBlocksAVX2 is plainBlocks for the n bytes at p, with AVX2.
//
//go:noescape
func plainBlocksAVX2(p *byte, n int) (consumed int, escaped bool)

// plainBlocks returns how many bytes of whole 64-byte blocks at the start
// of b (a string body, outside any escape or UTF-8 sequence) need no
// closer look, and whether they hold an escape (the blocks
// plainBlocksAVX2 describes). Without AVX2 it returns 0, leaving every
// block to the block loop.
func plainBlocks(b []byte) (consumed int, escaped bool) {
	if useAVX2 && len(b) >= 64 {
		return plainBlocksAVX2(&b[0], len(b))
	}
	return 0, false
}
