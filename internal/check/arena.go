package check

import "unsafe"

// arena copies the short strings the ordered pass keeps (entry and call
// ids) out of the batch buffers into shared chunks: one allocation per
// chunk instead of one per id, which matters for files with millions of
// entries. Nothing written to a chunk is ever modified.
type arena struct{ chunk []byte }

const (
	arenaChunk = 64 << 10
	// arenaMax: longer strings get their own allocation.
	arenaMax = arenaChunk / 8
)

// str returns a copy of s that does not alias s's memory.
func (a *arena) str(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > arenaMax:
		return string([]byte(s))
	}
	if cap(a.chunk)-len(a.chunk) < len(s) {
		a.chunk = make([]byte, 0, arenaChunk)
	}
	start := len(a.chunk)
	a.chunk = append(a.chunk, s...)
	return unsafe.String(&a.chunk[start], len(s))
}
