//go:build !amd64 || purego

package jsonl

// blockMasks is [blockMasksGo] where no vector version exists.
func blockMasks(b []byte) (quotes, backslashes, special uint64) {
	return blockMasksGo(b)
}
