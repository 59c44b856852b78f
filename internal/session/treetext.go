package session

import (
	"encoding/binary"
	"unsafe"
)

// treeText keeps the tree's node ids: each id once, its bytes in 64 KiB
// chunks behind a length prefix, so that a node names its id with a 4-byte
// textRef instead of a 16-byte string header. An id too long for a chunk's
// share (or past what 31 bits address) is kept as a string of its own.
type treeText struct {
	chunks [][]byte
	long   []string
}

// textRef names a string of a treeText: 0 is "", a value with the top bit
// set indexes long, any other is a position in the chunks (chunk<<16 |
// offset) where a uvarint length precedes the bytes.
type textRef uint32

const (
	textChunkBits = 16
	textChunk     = 1 << textChunkBits
	// textLong: longer strings (rare for ids) get a string of their own.
	textLong    = textChunk / 8
	textLongBit = 1 << 31
	textMaxRefs = textLongBit >> textChunkBits // chunks a position can name
)

// add keeps a copy of s and returns its reference.
func (x *treeText) add(s string) textRef {
	if s == "" {
		return 0
	}
	if len(s) <= textLong {
		if c := x.room(len(s) + binary.MaxVarintLen16); c >= 0 {
			chunk := x.chunks[c]
			pos := len(chunk)
			chunk = binary.AppendUvarint(chunk, uint64(len(s)))
			x.chunks[c] = append(chunk, s...)
			return textRef(c<<textChunkBits | pos)
		}
	}
	x.long = append(x.long, s)
	return textRef(textLongBit) | textRef(len(x.long)-1)
}

// room returns the chunk with n bytes free (a new one when the last is
// full), -1 when no more chunks can be named.
func (x *treeText) room(n int) int {
	last := len(x.chunks) - 1
	if last >= 0 && textChunk-len(x.chunks[last]) >= n {
		return last
	}
	if len(x.chunks) == textMaxRefs {
		return -1
	}
	chunk := make([]byte, 0, textChunk)
	if last < 0 {
		chunk = append(chunk, 0) // position 0 is the empty string's
	}
	x.chunks = append(x.chunks, chunk)
	return last + 1
}

// str returns the string r names (no copy: it aliases the chunk).
func (x *treeText) str(r textRef) string {
	switch {
	case r == 0:
		return ""
	case r&textLongBit != 0:
		return x.long[r&^textLongBit]
	}
	b := x.chunks[r>>textChunkBits][r&(textChunk-1):]
	n, k := binary.Uvarint(b)
	return unsafe.String(&b[k], int(n))
}
