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
