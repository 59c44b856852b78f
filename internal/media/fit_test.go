package media

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"strconv"
	"strings"
	"testing"
)

// Expected texts are OpenClaw's formatBytesShort outputs for the same
// numbers (run through its own formatByteSize).
func TestFormatBytesShort(t *testing.T) {
	for n, want := range map[int]string{
		0: "0B", 1: "1B", 1023: "1023B", 1024: "1.0KB", 1075: "1.0KB", 1126: "1.1KB", 1177: "1.1KB",
		10485760: "10.00MB", 5242880: "5.00MB", 1179648: "1.13MB", 1441792: "1.38MB", 1703936: "1.63MB",
		1966080: "1.88MB", 1073740775: "1024.00MB", 1048575: "1024.0KB", 1073741824: "1024.00MB",
		5242892345: "5000.01MB", 52224: "51.0KB", 51251: "50.0KB", 1053819: "1.01MB",
	} {
		if got := FormatBytesShort(n); got != want {
			t.Errorf("FormatBytesShort(%d) = %q, OpenClaw %q", n, got, want)
		}
	}
}

func TestSideGrid(t *testing.T) {
	tests := []struct {
		maxSide, start int
		want           string
	}{
		{1200, 1200, "1200 1000 800"},
		{1200, 1000, "1200 1000 800"},
		{4000, 4000, "4000 1800 1600 1400 1200 1000 800"},
		{3000, 1500, "1800 1600 1500 1400 1200 1000 800"},
		{1700, 1700, "1700 1600 1400 1200 1000 800"},
		{500, 500, "500"},
		{1, 1, "1"},
	}
	for _, tt := range tests {
		var parts []string
		for _, s := range SideGrid(tt.maxSide, tt.start) {
			parts = append(parts, itoaTest(s))
		}
		if got := strings.Join(parts, " "); got != tt.want {
			t.Errorf("SideGrid(%d, %d) = %s, want %s", tt.maxSide, tt.start, got, tt.want)
		}
	}
}

func itoaTest(n int) string { return strconv.Itoa(n) }

func TestScaledSize(t *testing.T) {
	tests := []struct{ w, h, side, ww, wh int }{
		{4000, 3000, 1200, 1200, 900},
		{2400, 1600, 1200, 1200, 800},
		{1201, 1199, 1200, 1200, 1198},
		{1000, 3001, 1200, 400, 1200},
		{1999, 1001, 1200, 1200, 601},
		{1, 5000, 1200, 1, 1200},
		{300, 200, 1, 1, 1},
		{3000, 2000, 1700, 1700, 1133},
		{800, 600, 1200, 800, 600}, // never enlarged
	}
	for _, tt := range tests {
		if w, h := ScaledSize(tt.w, tt.h, tt.side); w != tt.ww || h != tt.wh {
			t.Errorf("ScaledSize(%d, %d, %d) = %dx%d, want %dx%d", tt.w, tt.h, tt.side, w, h, tt.ww, tt.wh)
		}
	}
}

// When no rung of the ladder fits, the error is OpenClaw's, with the
// smallest candidate's size.
func TestShrinkCannotFit(t *testing.T) {
	raw := encodePNG(t, noise(300, 200, 3))
	_, err := shrink(raw, SideGrid(1200, 300), 100)
	if err == nil {
		t.Fatal("no error")
	}
	e, ok := err.(*Error)
	if !ok || e.Name != "Error" || !strings.HasPrefix(e.Message, "Image could not be reduced below 100B (got ") || !strings.HasSuffix(e.Message, "KB)") {
		t.Fatalf("error %q", err)
	}
}

func TestWithinLimits(t *testing.T) {
	lim := DefaultLimits
	for _, tt := range []struct {
		n, w, h int
		want    bool
	}{
		{100, 1200, 1200, true}, {100, 1201, 10, false}, {100, 0, 10, false},
		{MaxBytes, 10, 10, true}, {MaxBytes + 1, 10, 10, false},
	} {
		if got := WithinLimits(tt.n, tt.w, tt.h, lim); got != tt.want {
			t.Errorf("WithinLimits(%d, %d, %d) = %v", tt.n, tt.w, tt.h, got)
		}
	}
	big := Limits{MaxSide: 10000, MaxBytes: MaxBytes}
	if WithinLimits(100, 5001, 5000, big) {
		t.Error("over 25 million pixels accepted")
	}
}

// An EXIF-rotated JPEG comes out upright, turned as rastermill turns it:
// for orientation 6 the stored top-left corner ends up top-right.
func TestFitOrientation(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 3000, 2000))
	for y := range 2000 {
		for x := range 3000 {
			c := color.NRGBA{20, 20, 200, 255}
			if x < 1500 && y < 1000 {
				c = color.NRGBA{230, 20, 20, 255}
			}
			src.SetNRGBA(x, y, c)
		}
	}
	raw := withEXIFOrientation(encodeJPEG(t, src, 90), 6)
	f, err := Fit(toB64(raw), DefaultLimits)
	if err != nil || !f.Resized || f.Width != 800 || f.Height != 1200 {
		t.Fatalf("Fit = %dx%d resized %v, %v", f.Width, f.Height, f.Resized, err)
	}
	out, err := jpeg.Decode(bytes.NewReader(mustB64(t, f.Data)))
	if err != nil {
		t.Fatal(err)
	}
	isRed := func(x, y int) bool {
		r, g, b, _ := out.At(x, y).RGBA()
		return r>>8 > 180 && g>>8 < 80 && b>>8 < 80
	}
	if !isRed(700, 100) || isRed(100, 100) || isRed(700, 1100) {
		t.Fatalf("corners: top-right red %v, top-left red %v, bottom-right red %v", isRed(700, 100), isRed(100, 100), isRed(700, 1100))
	}
}

func mustB64(t *testing.T, s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
