package media

import (
	"encoding/binary"
	"testing"
)

func TestReadHeader(t *testing.T) {
	webpVP8X := func(w, h int) []byte {
		b := make([]byte, 30)
		copy(b, "RIFF\x00\x00\x00\x00WEBPVP8X")
		b[24], b[25], b[26] = byte(w-1), byte((w-1)>>8), byte((w-1)>>16)
		b[27], b[28], b[29] = byte(h-1), byte((h-1)>>8), byte((h-1)>>16)
		return b
	}
	webpVP8L := func(w, h int) []byte {
		b := make([]byte, 30)
		copy(b, "RIFF\x00\x00\x00\x00WEBPVP8L")
		b[20] = 0x2F
		binary.LittleEndian.PutUint32(b[21:], uint32(w-1)|uint32(h-1)<<14)
		return b
	}
	bmpV3 := func(w, h int32) []byte {
		b := make([]byte, 54)
		copy(b, "BM")
		binary.LittleEndian.PutUint32(b[14:], 40)
		binary.LittleEndian.PutUint32(b[18:], uint32(w))
		binary.LittleEndian.PutUint32(b[22:], uint32(h))
		return b
	}
	tiff := func(w, h uint16) []byte {
		b := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 2, 0}
		entry := func(tag, v uint16) []byte {
			e := make([]byte, 12)
			binary.LittleEndian.PutUint16(e, tag)
			binary.LittleEndian.PutUint16(e[2:], 3)
			binary.LittleEndian.PutUint32(e[4:], 1)
			binary.LittleEndian.PutUint16(e[8:], v)
			return e
		}
		b = append(b, entry(256, w)...)
		b = append(b, entry(257, h)...)
		return append(b, 0, 0, 0, 0)
	}
	jpg := encodeJPEG(t, gradient(40, 30, false), 80)
	tests := []struct {
		name string
		in   []byte
		want Header
		ok   bool
	}{
		{"png", encodePNG(t, gradient(7, 5, true)), Header{Format: "png", Width: 7, Height: 5}, true},
		{"png header only", encodePNG(t, gradient(7, 5, false))[:24], Header{Format: "png", Width: 7, Height: 5}, true},
		{"png too short", encodePNG(t, gradient(7, 5, false))[:23], Header{}, false},
		{"gif", encodeGIF(t, gradient(9, 4, false)), Header{Format: "gif", Width: 9, Height: 4}, true},
		{"webp vp8x", webpVP8X(5000, 300), Header{Format: "webp", Width: 5000, Height: 300}, true},
		{"webp vp8l", webpVP8L(640, 480), Header{Format: "webp", Width: 640, Height: 480}, true},
		{"bmp", encodeBMP(t, gradient(3, 2, false)), Header{Format: "bmp", Width: 3, Height: 2}, true},
		{"bmp top-down", bmpV3(10, -20), Header{Format: "bmp", Width: 10, Height: 20}, true},
		{"bmp negative width", bmpV3(-10, 20), Header{}, false},
		{"bmp word only (case 30)", []byte("BMfixture"), Header{}, false},
		{"tiff", tiff(300, 200), Header{Format: "tiff", Width: 300, Height: 200}, true},
		{"jpeg", jpg, Header{Format: "jpeg", Width: 40, Height: 30}, true},
		{"jpeg exif 6", withEXIFOrientation(jpg, 6), Header{Format: "jpeg", Width: 40, Height: 30, Orientation: 6}, true},
		{"jpeg exif 9 ignored", withEXIFOrientation(jpg, 9), Header{Format: "jpeg", Width: 40, Height: 30}, true},
		{"jpeg truncated before SOF", jpg[:10], Header{}, false},
		{"hello", []byte("Hello"), Header{}, false},
		{"empty", nil, Header{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReadHeader(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("ReadHeader = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestDisplaySize(t *testing.T) {
	for o, want := range map[int][2]int{0: {4, 3}, 1: {4, 3}, 4: {4, 3}, 5: {3, 4}, 6: {3, 4}, 7: {3, 4}, 8: {3, 4}} {
		w, h := Header{Width: 4, Height: 3, Orientation: o}.DisplaySize()
		if [2]int{w, h} != want {
			t.Errorf("orientation %d: %dx%d, want %v", o, w, h, want)
		}
	}
}

// A header read from a prefix must equal the header read from the whole
// payload, including when the dimensions lie beyond the prefix.
func TestProbeBase64Prefix(t *testing.T) {
	jpg := encodeJPEG(t, gradient(50, 20, false), 80)
	// A 100 KiB comment segment pushes the SOF past the decoded prefix.
	big := make([]byte, 0, len(jpg)+100<<10)
	big = append(big, jpg[:2]...)
	for i := 0; i < 2; i++ {
		seg := make([]byte, 50<<10)
		seg[0], seg[1] = 0xFF, 0xFE
		binary.BigEndian.PutUint16(seg[2:], uint16(len(seg)-2))
		big = append(big, seg...)
	}
	big = append(big, jpg[2:]...)
	for _, raw := range [][]byte{jpg, big, encodePNG(t, gradient(33, 11, false))} {
		want, wantOK := ReadHeader(raw)
		got, ok, n := ProbeBase64(toB64(raw))
		if got != want || ok != wantOK || n != len(raw) {
			t.Fatalf("ProbeBase64 = %+v, %v, %d; want %+v, %v, %d", got, ok, n, want, wantOK, len(raw))
		}
		if !ok {
			t.Fatalf("header not found")
		}
	}
}

func TestDecodedLen(t *testing.T) {
	for n := 1; n < 20; n++ {
		if got := DecodedLen(toB64(make([]byte, n))); got != n {
			t.Errorf("DecodedLen of %d bytes = %d", n, got)
		}
	}
}
