package media

import (
	"bytes"
	"image"
	"image/color"
	"testing"

	"github.com/disintegration/imaging"
)

func TestFilterTapsSumToOne(t *testing.T) {
	for _, c := range [][2]int{{3000, 1200}, {1201, 1200}, {5000, 1}, {7, 3}, {100, 100}, {10, 25}} {
		for x, tp := range filterTaps(c[0], c[1]) {
			sum := int32(0)
			for _, w := range tp.weights {
				sum += w
			}
			if sum != 1<<weightBits || tp.start < 0 || tp.start+len(tp.weights) > c[0] {
				t.Fatalf("%d→%d, x=%d: start %d, %d weights summing to %d", c[0], c[1], x, tp.start, len(tp.weights), sum)
			}
		}
	}
}

// A flat image stays flat, and a resized picture stays close to what
// imaging's Lanczos gives, for each fast path.
func TestResizeLanczos(t *testing.T) {
	flat := image.NewNRGBA(image.Rect(0, 0, 301, 199))
	for i := 0; i < len(flat.Pix); i += 4 {
		copy(flat.Pix[i:], []byte{10, 200, 77, 255})
	}
	out := resizeLanczos(flat, 120, 80)
	for y := range 80 {
		for x := range 120 {
			if c := out.At(x, y).(color.RGBA); c != (color.RGBA{10, 200, 77, 255}) {
				t.Fatalf("flat image changed at %d,%d: %v", x, y, c)
			}
		}
	}
	src := gradient(900, 600, false)
	ycc := decodeJPEGForTest(t, encodeJPEG(t, src, 95))
	for name, img := range map[string]image.Image{"rgba": src, "ycbcr": ycc} {
		got := resizeLanczos(img, 360, 240)
		if b := got.Bounds(); b.Dx() != 360 || b.Dy() != 240 {
			t.Fatalf("%s: size %v", name, b)
		}
		want := imaging.Resize(img, 360, 240, imaging.Lanczos)
		if d := meanAbsDiff(got, want); d > 1.5 {
			t.Errorf("%s: mean difference from imaging %.2f per channel", name, d)
		}
	}
}

func decodeJPEGForTest(t *testing.T, raw []byte) image.Image {
	img, err := decoders["jpeg"](bytesReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func meanAbsDiff(a, b image.Image) float64 {
	r := a.Bounds()
	sum, n := 0.0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c1 := color.NRGBAModel.Convert(a.At(x, y)).(color.NRGBA)
			c2 := color.NRGBAModel.Convert(b.At(x, y)).(color.NRGBA)
			for _, d := range []int{int(c1.R) - int(c2.R), int(c1.G) - int(c2.G), int(c1.B) - int(c2.B)} {
				sum += float64(max(d, -d))
				n++
			}
		}
	}
	return sum / float64(n)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
