package media

import (
	"image"
	"math/rand/v2"
	"testing"
)

// photoLike is a w×h gradient with per-pixel noise, compressing like a
// photo.
func photoLike(w, h, amplitude int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			i := img.PixOffset(x, y)
			img.Pix[i] = uint8(x*200/w + r.IntN(amplitude))
			img.Pix[i+1] = uint8(y*200/h + r.IntN(amplitude))
			img.Pix[i+2] = uint8((x+y)*100/(w+h) + r.IntN(amplitude))
			img.Pix[i+3] = 0xFF
		}
	}
	return img
}

func benchmarkFit(b *testing.B, raw []byte) {
	data := toB64(raw)
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for range b.N {
		f, err := Fit(data, DefaultLimits)
		if err != nil || !f.Resized {
			b.Fatalf("Fit: %v (resized %v)", err, f.Resized)
		}
	}
}

// BenchmarkFitPNG: a 1800×1400 PNG of about 3 MiB, resized to 1200×933.
func BenchmarkFitPNG(b *testing.B) { benchmarkFit(b, encodePNG(b, photoLike(1800, 1400, 12))) }

// BenchmarkFitJPEG: a 3000×2000 JPEG of about 3 MiB, resized to 1200×800.
func BenchmarkFitJPEG(b *testing.B) { benchmarkFit(b, encodeJPEG(b, photoLike(3000, 2000, 40), 90)) }

// BenchmarkProbe reads the header of a 3 MiB payload without decoding it.
func BenchmarkProbe(b *testing.B) {
	data := toB64(encodeJPEG(b, photoLike(3000, 2000, 40), 90))
	b.ResetTimer()
	for range b.N {
		if _, ok, _ := ProbeBase64(data); !ok {
			b.Fatal("no header")
		}
	}
}
