package session

import "unsafe"

// arena hands out immutable strings and byte slices carved from large
// chunks, so that half a million short ids or lines cost a handful of
// allocations instead of one each. Nothing handed out is ever written again;
// a chunk stays alive as long as anything carved from it does.
type arena struct {
	chunk []byte
	size  int // chunk size for new chunks
}

func newArena(size int) *arena { return &arena{size: size} }

// bytes returns a copy of b that the caller owns and must not modify.
func (a *arena) bytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	if len(b) > a.size/4 {
		return append([]byte(nil), b...) // a big line gets its own allocation
	}
	if cap(a.chunk)-len(a.chunk) < len(b) {
		a.chunk = make([]byte, 0, a.size)
	}
	start := len(a.chunk)
	a.chunk = append(a.chunk, b...)
	return a.chunk[start:len(a.chunk):len(a.chunk)]
}

// str returns b as a string.
func (a *arena) str(b []byte) string {
	if a == nil {
		return string(b)
	}
	c := a.bytes(b)
	if len(c) == 0 {
		return ""
	}
	return unsafe.String(&c[0], len(c))
}
