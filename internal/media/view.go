package media

// view reads fixed-width integers from the start of a decoded payload whose
// full length is total. It may hold only a prefix of the bytes: a read past
// the prefix but inside total returns 0 and sets short, so the caller can
// decode more and read again. Bounds checks use total, exactly as OpenClaw's
// readers use buffer.length, so a result obtained without short is the result
// the whole buffer gives.
type view struct {
	b     []byte
	total int
	short bool
}

func fullView(b []byte) *view { return &view{b: b, total: len(b)} }

// at returns the byte at off, or 0 (setting short when off < total).
func (v *view) at(off int) byte {
	if off < 0 || off >= v.total {
		return 0
	}
	if off >= len(v.b) {
		v.short = true
		return 0
	}
	return v.b[off]
}

// has reports whether n bytes from off lie inside the buffer; bytes it will
// not be asked for later are not required to be in the prefix.
func (v *view) has(off, n int) bool { return off >= 0 && n >= 0 && off+n <= v.total }

func (v *view) u16be(off int) int { return int(v.at(off))<<8 | int(v.at(off+1)) }
func (v *view) u16le(off int) int { return int(v.at(off)) | int(v.at(off+1))<<8 }
func (v *view) u24le(off int) int { return v.u16le(off) | int(v.at(off+2))<<16 }
func (v *view) u24be(off int) int { return int(v.at(off))<<16 | v.u16be(off+1) }
func (v *view) u32be(off int) int { return v.u16be(off)<<16 | v.u16be(off+2) }
func (v *view) u32le(off int) int { return v.u16le(off) | v.u16le(off+2)<<16 }
func (v *view) i32le(off int) int { return int(int32(uint32(v.u32le(off)))) }
func (v *view) u64be(off int) uint64 {
	return uint64(v.u32be(off))<<32 | uint64(v.u32be(off+4))
}

// ascii is Node's buffer.toString("ascii", off, off+n): each byte with its
// high bit cleared, so 0xC2 0xCD reads as "BM". Out-of-range bytes are
// dropped as Node drops them.
func (v *view) ascii(off, n int) string {
	end := min(off+n, v.total)
	if off < 0 || off >= end {
		return ""
	}
	s := make([]byte, 0, end-off)
	for i := off; i < end; i++ {
		s = append(s, v.at(i)&0x7F)
	}
	return string(s)
}
