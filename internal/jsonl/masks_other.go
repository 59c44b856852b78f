//go:build !amd64 || purego

package jsonl

// useAVX2 is false: no vector code is built here.
const useAVX2 = false

// blockMasks sets m to [blockMasksGo]'s masks of b (no vector version
// exists here).
func blockMasks(b []byte, m *blockMask) {
	*m = blockMasksGo(b)
}

// plainBlocks steps over nothing here: every block goes to the block loop.
func plainBlocks(b []byte) (consumed int, escaped bool) { return 0, false }
