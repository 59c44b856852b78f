package media

import "encoding/base64"

// Header is what an image's first bytes say about it, read the way
// OpenClaw's image library (rastermill's readImageProbeFromHeader) reads
// them.
type Header struct {
	Format string // "png", "gif", "webp", "bmp", "tiff", "heif", "avif" or "jpeg"
	Width  int    // stored width in pixels
	Height int    // stored height in pixels
	// Orientation is the EXIF orientation of a JPEG, or the one implied by a
	// HEIF primary item's irot/imir properties; 0 when absent.
	Orientation int
}

// DisplaySize is the size the image is shown at: orientations 5–8 swap the
// axes (OpenClaw's resolveDisplayImageMetadata). OpenClaw's limits apply to
// this size.
func (h Header) DisplaySize() (w, h2 int) {
	if h.Orientation >= 5 && h.Orientation <= 8 {
		return h.Height, h.Width
	}
	return h.Width, h.Height
}

// headerPrefixBytes is how much of a payload is decoded to read its header.
// Every format keeps its dimensions in the first few dozen bytes except JPEG
// (after its APPn segments) and TIFF/HEIF (anywhere); for those a read past
// the prefix makes [ProbeBase64] decode the whole payload.
const headerPrefixBytes = 64 << 10

// ReadHeader reads the header of decoded image bytes. ok is false when
// OpenClaw would not know the image's dimensions (and so refuses to process
// it).
func ReadHeader(b []byte) (h Header, ok bool) { return readHeader(fullView(b)) }

// ProbeBase64 reads the header of a canonical base64 payload, decoding only a
// prefix when that settles it. It also returns the payload's exact decoded
// length.
func ProbeBase64(canonical string) (h Header, ok bool, decodedLen int) {
	return probeBase64(canonical, headerPrefixBytes)
}

// probeBase64 is ProbeBase64 with the prefix size as a parameter (tests
// use a tiny one to exercise the fallback).
func probeBase64(canonical string, prefixBytes int) (h Header, ok bool, decodedLen int) {
	decodedLen = DecodedLen(canonical)
	prefixChars := min(len(canonical), max(prefixBytes/3, 1)*4)
	prefix, err := base64.StdEncoding.DecodeString(canonical[:prefixChars])
	if err != nil {
		return Header{}, false, decodedLen
	}
	v := &view{b: prefix, total: decodedLen}
	h, ok = readHeader(v)
	if !v.short {
		return h, ok, decodedLen
	}
	full, err := base64.StdEncoding.DecodeString(canonical)
	if err != nil {
		return Header{}, false, decodedLen
	}
	h, ok = ReadHeader(full)
	return h, ok, decodedLen
}

// DecodedLen is the exact number of bytes a canonical base64 payload
// decodes to.
func DecodedLen(canonical string) int {
	n := len(canonical) / 4 * 3
	for i := len(canonical) - 1; i >= 0 && i >= len(canonical)-2 && canonical[i] == '='; i-- {
		n--
	}
	return n
}

// readHeader tries each format in rastermill's order.
func readHeader(v *view) (Header, bool) {
	if w, h, ok := readPNG(v); ok {
		return Header{Format: "png", Width: w, Height: h}, true
	}
	if w, h, ok := readGIF(v); ok {
		return Header{Format: "gif", Width: w, Height: h}, true
	}
	if w, h, ok := readWebP(v); ok {
		return Header{Format: "webp", Width: w, Height: h}, true
	}
	if w, h, ok := readBMP(v); ok {
		return Header{Format: "bmp", Width: w, Height: h}, true
	}
	if w, h, ok := readTIFF(v); ok {
		return Header{Format: "tiff", Width: w, Height: h}, true
	}
	if h, ok := readISOBMFF(v); ok {
		return h, true
	}
	if w, h, ok := readJPEG(v); ok {
		return Header{Format: "jpeg", Width: w, Height: h, Orientation: readJPEGOrientation(v)}, true
	}
	return Header{}, false
}

// positive is rastermill's normalizeMetadata: both sides must be positive.
func positive(w, h int) (int, int, bool) {
	if w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return w, h, true
}

func readPNG(v *view) (int, int, bool) {
	if v.total < 24 {
		return 0, 0, false
	}
	for i, c := range pngSignature {
		if v.at(i) != c {
			return 0, 0, false
		}
	}
	if v.ascii(12, 4) != "IHDR" {
		return 0, 0, false
	}
	return positive(v.u32be(16), v.u32be(20))
}

func readGIF(v *view) (int, int, bool) {
	if v.total < 10 {
		return 0, 0, false
	}
	if sig := v.ascii(0, 6); sig != "GIF87a" && sig != "GIF89a" {
		return 0, 0, false
	}
	return positive(v.u16le(6), v.u16le(8))
}

func readWebP(v *view) (int, int, bool) {
	if v.total < 30 || v.ascii(0, 4) != "RIFF" || v.ascii(8, 4) != "WEBP" {
		return 0, 0, false
	}
	switch v.ascii(12, 4) {
	case "VP8X":
		return positive(1+v.u24le(24), 1+v.u24le(27))
	case "VP8 ":
		return positive(v.u16le(26)&0x3FFF, v.u16le(28)&0x3FFF)
	case "VP8L":
		if v.at(20) != 0x2F {
			return 0, 0, false
		}
		bits := v.u32le(21)
		return positive(bits&0x3FFF+1, (bits>>14)&0x3FFF+1)
	}
	return 0, 0, false
}

func readBMP(v *view) (int, int, bool) {
	if v.total < 26 || v.ascii(0, 2) != "BM" {
		return 0, 0, false
	}
	dib := v.u32le(14)
	if dib == 12 {
		return positive(v.u16le(18), v.u16le(20))
	}
	if dib < 40 {
		return 0, 0, false
	}
	h := v.i32le(22)
	if h < 0 {
		h = -h
	}
	return positive(v.i32le(18), h)
}

// readTIFF follows the IFD chain and returns the largest image in it; a
// SubIFDs tag (330) or an IFD without both sizes makes the header unknown.
func readTIFF(v *view) (int, int, bool) {
	if v.total < 8 {
		return 0, 0, false
	}
	order := v.ascii(0, 2)
	le := order == "II"
	if !le && order != "MM" {
		return 0, 0, false
	}
	u16 := func(off int) int {
		if le {
			return v.u16le(off)
		}
		return v.u16be(off)
	}
	u32 := func(off int) int {
		if le {
			return v.u32le(off)
		}
		return v.u32be(off)
	}
	if u16(2) != 42 {
		return 0, 0, false
	}
	var best *size
	seen := map[int]bool{}
	for ifd := u32(4); ifd != 0; {
		if seen[ifd] || !v.has(ifd, 2) {
			return 0, 0, false
		}
		seen[ifd] = true
		count := u16(ifd)
		entriesEnd := ifd + 2 + count*12
		if !v.has(entriesEnd, 4) {
			return 0, 0, false
		}
		w, h := -1, -1
		for i := 0; i < count; i++ {
			e := ifd + 2 + i*12
			tag := u16(e)
			if tag == 330 {
				return 0, 0, false
			}
			if tag != 256 && tag != 257 {
				continue
			}
			typ, n := u16(e+2), u32(e+4)
			if n != 1 || (typ != 3 && typ != 4) {
				continue
			}
			val := u32(e + 8)
			if typ == 3 {
				val = u16(e + 8)
			}
			if tag == 256 {
				w = val
			} else {
				h = val
			}
		}
		pw, ph, ok := positive(w, h)
		if !ok {
			return 0, 0, false
		}
		best = larger(best, &size{pw, ph})
		ifd = u32(entriesEnd)
	}
	if best == nil {
		return 0, 0, false
	}
	return best.w, best.h, true
}

type size struct{ w, h int }

// larger keeps current unless candidate has strictly more pixels.
func larger(current, candidate *size) *size {
	if candidate == nil {
		return current
	}
	if current == nil || candidate.w*candidate.h > current.w*current.h {
		return candidate
	}
	return current
}

// readJPEG walks the marker segments to the first start-of-frame.
func readJPEG(v *view) (int, int, bool) {
	if v.total < 4 || v.at(0) != 0xFF || v.at(1) != 0xD8 {
		return 0, 0, false
	}
	off := 2
	for off+8 < v.total {
		for off < v.total && v.at(off) == 0xFF {
			off++
		}
		if off >= v.total {
			return 0, 0, false
		}
		marker := v.at(off)
		off++
		if marker == 0xD8 || marker == 0xD9 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) {
			continue
		}
		if off+1 >= v.total {
			return 0, 0, false
		}
		segLen := v.u16be(off)
		if segLen < 2 || off+segLen > v.total {
			return 0, 0, false
		}
		if marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
			if segLen < 7 || off+6 >= v.total {
				return 0, 0, false
			}
			return positive(v.u16be(off+5), v.u16be(off+3))
		}
		off += segLen
		if v.short {
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// readJPEGOrientation finds the EXIF orientation in an APP1 segment before
// the first scan; 0 when absent or outside 1–8.
func readJPEGOrientation(v *view) int {
	if v.total < 4 || v.at(0) != 0xFF || v.at(1) != 0xD8 {
		return 0
	}
	off := 2
	for off+4 < v.total && !v.short {
		if v.at(off) != 0xFF {
			off++
			continue
		}
		marker := v.at(off + 1)
		if marker == 0xFF {
			off++
			continue
		}
		if marker == 0xDA || marker == 0xD9 {
			return 0
		}
		segLen := v.u16be(off + 2)
		if segLen < 2 || off+2+segLen > v.total {
			return 0
		}
		if marker == 0xE1 && segLen >= 14 && v.ascii(off+4, 4) == "Exif" && v.at(off+8) == 0 && v.at(off+9) == 0 {
			return exifOrientation(v, off+10, off+2+segLen)
		}
		off += 2 + segLen
	}
	return 0
}

// exifOrientation reads tag 0x0112 from IFD0 of the TIFF block
// [start, end).
func exifOrientation(v *view, start, end int) int {
	if start+8 > end {
		return 0
	}
	order := v.ascii(start, 2)
	le := order == "II"
	if !le && order != "MM" {
		return 0
	}
	u16 := func(off int) int {
		if le {
			return v.u16le(off)
		}
		return v.u16be(off)
	}
	u32 := v.u32be
	if le {
		u32 = v.u32le
	}
	if u16(start+2) != 42 {
		return 0
	}
	ifd := start + u32(start+4)
	if ifd+2 > end {
		return 0
	}
	n := u16(ifd)
	for i := 0; i < n; i++ {
		e := ifd + 2 + i*12
		if e+12 > end {
			return 0
		}
		if u16(e) == 0x0112 {
			if o := u16(e + 8); o >= 1 && o <= 8 {
				return o
			}
			return 0
		}
	}
	return 0
}
