package media

// HEIF/AVIF headers (ISO base media file format), read as rastermill does:
// the primary item's ispe size and irot/imir orientation when the top-level
// boxes tile the file exactly, otherwise the largest ispe found anywhere in
// the usual container boxes.

var isoImageBrands = map[string]bool{
	"avif": true, "avis": true, "heic": true, "heix": true, "hevc": true,
	"hevx": true, "heif": true, "mif1": true, "msf1": true,
}

var isoContainerBoxes = map[string]bool{
	"edts": true, "ipco": true, "iprp": true, "mdia": true, "meta": true,
	"minf": true, "moov": true, "stbl": true, "trak": true,
}

// exifMatrices maps an orientation matrix to its EXIF orientation.
var exifMatrices = map[[4]int]int{
	{1, 0, 0, 1}: 1, {-1, 0, 0, 1}: 2, {-1, 0, 0, -1}: 3, {1, 0, 0, -1}: 4,
	{0, 1, 1, 0}: 5, {0, -1, 1, 0}: 6, {0, -1, -1, 0}: 7, {0, 1, -1, 0}: 8,
}

var heifRotations = [4][4]int{{1, 0, 0, 1}, {0, 1, -1, 0}, {-1, 0, 0, -1}, {0, -1, 1, 0}}

type box struct {
	typ            string
	dataStart, end int
}

func readISOBMFF(v *view) (Header, bool) {
	if !hasImageBrand(v) {
		return Header{}, false
	}
	format := "heif"
	if hasBrand(v, func(b string) bool { return b == "avif" || b == "avis" }) {
		format = "avif"
	}
	if s, orientation, ok := primaryItem(v); ok {
		return Header{Format: format, Width: s.w, Height: s.h, Orientation: orientation}, true
	}
	if s := largestIspe(v, 0, v.total, 0); s != nil {
		return Header{Format: format, Width: s.w, Height: s.h}, true
	}
	return Header{}, false
}

func hasImageBrand(v *view) bool {
	return hasBrand(v, func(b string) bool { return isoImageBrands[b] })
}

// hasBrand scans the ftyp box from offset 8 (major brand, minor version and
// compatible brands alike, as rastermill does).
func hasBrand(v *view, match func(string) bool) bool {
	if v.total < 16 || v.ascii(4, 4) != "ftyp" {
		return false
	}
	size, ok := boxSize(v, 0, v.total)
	if !ok || size < 16 || size > v.total {
		return false
	}
	for off := 8; off+4 <= size; off += 4 {
		if match(v.ascii(off, 4)) {
			return true
		}
	}
	return false
}

// boxSize is the size of the box at off (0 = to end; 1 = 64-bit size).
func boxSize(v *view, off, end int) (int, bool) {
	if off+8 > end {
		return 0, false
	}
	switch s := v.u32be(off); s {
	case 0:
		return end - off, true
	case 1:
		if off+16 > end {
			return 0, false
		}
		s64 := v.u64be(off + 8)
		if s64 > 1<<53-1 {
			return 0, false
		}
		return int(s64), true
	default:
		return s, true
	}
}

func largestIspe(v *view, start, end, depth int) *size {
	if depth > 8 {
		return nil
	}
	var best *size
	for off := start; off+8 <= end; {
		bs, ok := boxSize(v, off, end)
		if !ok || bs < 8 || off+bs > end {
			return nil
		}
		typ := v.ascii(off+4, 4)
		header := 8
		if v.u32be(off) == 1 {
			header = 16
		}
		dataStart, boxEnd := off+header, off+bs
		if typ == "ispe" && dataStart+12 <= boxEnd {
			if w, h, ok := positive(v.u32be(dataStart+4), v.u32be(dataStart+8)); ok {
				best = larger(best, &size{w, h})
			}
		}
		if isoContainerBoxes[typ] {
			child := dataStart
			if typ == "meta" {
				child += 4
			}
			best = larger(best, largestIspe(v, child, boxEnd, depth+1))
		}
		off = boxEnd
		if v.short {
			return nil
		}
	}
	return best
}

// readBoxes lists the boxes of [start, end); nil unless they tile it exactly.
func readBoxes(v *view, start, end int) []box {
	boxes := []box{}
	off := start
	for off+8 <= end {
		bs, ok := boxSize(v, off, end)
		header := 8
		if v.u32be(off) == 1 {
			header = 16
		}
		if !ok || bs < header || off+bs > end {
			return nil
		}
		boxes = append(boxes, box{typ: v.ascii(off+4, 4), dataStart: off + header, end: off + bs})
		off += bs
		if v.short {
			return nil
		}
	}
	if off != end {
		return nil
	}
	return boxes
}

func findBox(boxes []box, typ string) (box, bool) {
	for _, b := range boxes {
		if b.typ == typ {
			return b, true
		}
	}
	return box{}, false
}

// primaryItem reads the size and orientation of the primary item.
func primaryItem(v *view) (size, int, bool) {
	top := readBoxes(v, 0, v.total)
	meta, ok := findBox(top, "meta")
	if !ok || meta.dataStart+4 > meta.end {
		return size{}, 0, false
	}
	children := readBoxes(v, meta.dataStart+4, meta.end)
	pitm, ok1 := findBox(children, "pitm")
	iprp, ok2 := findBox(children, "iprp")
	if !ok1 || !ok2 {
		return size{}, 0, false
	}
	primary, okID := primaryItemID(v, pitm)
	containers := readBoxes(v, iprp.dataStart, iprp.end)
	ipco, okIpco := findBox(containers, "ipco")
	var ipmas []box
	for _, b := range containers {
		if b.typ == "ipma" {
			ipmas = append(ipmas, b)
		}
	}
	if !okID || !okIpco || len(ipmas) == 0 {
		return size{}, 0, false
	}
	props := readBoxes(v, ipco.dataStart, ipco.end)
	if props == nil {
		return size{}, 0, false
	}
	var indices []int
	for _, ipma := range ipmas {
		got, ok := associations(v, ipma, primary)
		if !ok {
			return size{}, 0, false
		}
		indices = append(indices, got...)
	}
	return applyProperties(v, props, indices)
}

// applyProperties takes the first ispe and composes irot/imir in order.
func applyProperties(v *view, props []box, indices []int) (size, int, bool) {
	if len(indices) == 0 {
		return size{}, 0, false
	}
	var s *size
	matrix, transformed := [4]int{1, 0, 0, 1}, false
	for _, idx := range indices {
		if idx-1 >= len(props) {
			continue
		}
		p := props[idx-1]
		if p.dataStart >= p.end {
			continue
		}
		var m *[4]int
		switch {
		case p.typ == "ispe" && p.dataStart+12 <= p.end:
			if s == nil {
				if w, h, ok := positive(v.u32be(p.dataStart+4), v.u32be(p.dataStart+8)); ok {
					s = &size{w, h}
				}
			}
		case p.typ == "irot":
			r := heifRotations[v.at(p.dataStart)&3]
			m = &r
		case p.typ == "imir":
			r := [4]int{1, 0, 0, -1}
			if v.at(p.dataStart)&1 != 0 {
				r = [4]int{-1, 0, 0, 1}
			}
			m = &r
		}
		if m != nil {
			matrix, transformed = multiply(*m, matrix), true
		}
	}
	if s == nil {
		return size{}, 0, false
	}
	orientation := 0
	if transformed {
		orientation = exifMatrices[matrix]
	}
	return *s, orientation, true
}

func multiply(after, before [4]int) [4]int {
	return [4]int{
		after[0]*before[0] + after[1]*before[2],
		after[0]*before[1] + after[1]*before[3],
		after[2]*before[0] + after[3]*before[2],
		after[2]*before[1] + after[3]*before[3],
	}
}

func primaryItemID(v *view, b box) (int, bool) {
	if b.dataStart+4 > b.end {
		return 0, false
	}
	version, payload := v.at(b.dataStart), b.dataStart+4
	switch {
	case version == 0 && payload+2 <= b.end:
		return v.u16be(payload), true
	case version >= 1 && version <= 2 && payload+4 <= b.end:
		return v.u32be(payload), true
	}
	return 0, false
}

// associations lists the primary item's non-zero property indices in an
// ipma box.
func associations(v *view, b box, primary int) ([]int, bool) {
	if b.dataStart+4 > b.end {
		return nil, false
	}
	version, flags, off := v.at(b.dataStart), v.u24be(b.dataStart+1), b.dataStart+4
	if version > 1 || off+4 > b.end {
		return nil, false
	}
	count := v.u32be(off)
	off += 4
	idBytes, assocBytes, mask := 2, 1, 0x7F
	if version != 0 {
		idBytes = 4
	}
	if flags&1 != 0 {
		assocBytes, mask = 2, 0x7FFF
	}
	indices := []int{}
	for e := 0; e < count; e++ {
		if off+idBytes+1 > b.end {
			return nil, false
		}
		id := v.u16be(off)
		if idBytes == 4 {
			id = v.u32be(off)
		}
		off += idBytes
		n := int(v.at(off))
		off++
		if off+n*assocBytes > b.end {
			return nil, false
		}
		for a := 0; a < n; a++ {
			raw := int(v.at(off))
			if assocBytes == 2 {
				raw = v.u16be(off)
			}
			off += assocBytes
			if idx := raw & mask; id == primary && idx != 0 {
				indices = append(indices, idx)
			}
		}
		if v.short {
			return nil, false
		}
	}
	return indices, true
}
