//go:build !amd64 || purego

package jsonl

// blockMasks sets m to [blockMasksGo]'s masks of b (no vector version
// exists here).
func blockMasks(b []byte, m *blockMask) {
	*m = blockMasksGo(b)
}
