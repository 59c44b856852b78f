//go:build amd64 && !purego

package jsonl

import "golang.org/x/sys/cpu"

// useAVX2: the string scan's block masks take a dozen vector instructions
// instead of some two hundred word operations.
var useAVX2 = cpu.X86.HasAVX2

// blockMasksAVX2 is blockMasksGo for the 64 bytes at p, with AVX2.
//
//go:noescape
func blockMasksAVX2(p *byte) (quotes, backslashes, special uint64)

// blockMasks is [blockMasksGo], with AVX2 when the CPU has it.
func blockMasks(b []byte) (quotes, backslashes, special uint64) {
	if useAVX2 {
		_ = b[63]
		return blockMasksAVX2(&b[0])
	}
	return blockMasksGo(b)
}
