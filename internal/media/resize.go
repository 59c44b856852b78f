package media

import (
	"image"
	"math"
	"runtime"
	"sync"

	"github.com/disintegration/imaging"
)

// This file is a Lanczos-3 downscaler for the two shapes decoding gives
// most often, planar YCbCr (JPEG) and 8-bit RGBA (PNG, after the alpha
// channel is dropped). It works on bytes with fixed-point weights, plane by
// plane, which is several times faster than a general resampler and gives
// the same output size; other image types go through imaging.Resize. Pixels
// differ slightly from OpenClaw's (Photon's) anyway: only the output's type
// and size are OpenClaw's.

// weightBits is the fixed-point precision of the filter weights.
const weightBits = 14

// taps is the filter of one output coordinate: the first source index and
// the weights of consecutive source samples (summing to 1<<weightBits).
type taps struct {
	start   int
	weights []int32
}

// lanczos3 is the Lanczos kernel with a = 3.
func lanczos3(x float64) float64 {
	x = math.Abs(x)
	if x >= 3 {
		return 0
	}
	if x < 1e-9 {
		return 1
	}
	px := math.Pi * x
	return 3 * math.Sin(px) * math.Sin(px/3) / (px * px)
}

// filterTaps computes the taps mapping src samples onto dst samples, pixel
// centres aligned, the kernel widened by the scale factor when shrinking.
// Taps that fall outside the source are dropped and the rest renormalised.
func filterTaps(src, dst int) []taps {
	scale := float64(src) / float64(dst)
	width := max(scale, 1)
	support := 3 * width
	out := make([]taps, dst)
	for x := range dst {
		center := (float64(x)+0.5)*scale - 0.5
		lo := max(0, int(math.Floor(center-support))+1)
		hi := min(src-1, int(math.Ceil(center+support))-1)
		fw := make([]float64, 0, hi-lo+1)
		sum := 0.0
		for i := lo; i <= hi; i++ {
			w := lanczos3((float64(i) - center) / width)
			fw = append(fw, w)
			sum += w
		}
		out[x] = taps{start: lo, weights: quantize(fw, sum)}
	}
	return out
}

// quantize turns float weights into fixed-point ones summing exactly to
// 1<<weightBits (the rounding error goes to the largest weight).
func quantize(fw []float64, sum float64) []int32 {
	ws := make([]int32, len(fw))
	total, biggest := int32(0), 0
	for i, w := range fw {
		ws[i] = int32(math.Round(w / sum * (1 << weightBits)))
		total += ws[i]
		if ws[i] > ws[biggest] {
			biggest = i
		}
	}
	if len(ws) > 0 {
		ws[biggest] += 1<<weightBits - total
	}
	return ws
}

// plane is an 8-bit image of n interleaved channels.
type plane struct {
	pix           []byte
	stride        int
	width, height int
	channels      int
}

// resizePlane scales p to w×h, horizontally then vertically.
func resizePlane(p plane, w, h int) plane {
	tmp := plane{pix: make([]byte, w*p.channels*p.height), stride: w * p.channels, width: w, height: p.height, channels: p.channels}
	hTaps := filterTaps(p.width, w)
	parallelRows(p.height, func(y int) {
		srcRow := p.pix[y*p.stride:]
		dstRow := tmp.pix[y*tmp.stride:]
		for x, t := range hTaps {
			for c := range p.channels {
				var acc int32
				i := t.start*p.channels + c
				for _, wt := range t.weights {
					acc += int32(srcRow[i]) * wt
					i += p.channels
				}
				dstRow[x*p.channels+c] = clampByte(acc)
			}
		}
	})
	out := plane{pix: make([]byte, w*p.channels*h), stride: w * p.channels, width: w, height: h, channels: p.channels}
	vTaps := filterTaps(p.height, h)
	rowLen := w * p.channels
	parallelRows(h, func(y int) {
		t := vTaps[y]
		acc := make([]int32, rowLen)
		for k, wt := range t.weights {
			src := tmp.pix[(t.start+k)*tmp.stride:][:rowLen]
			for i, v := range src {
				acc[i] += int32(v) * wt
			}
		}
		dst := out.pix[y*out.stride:][:rowLen]
		for i, a := range acc {
			dst[i] = clampByte(a)
		}
	})
	return out
}

// clampByte rounds a fixed-point sample and clamps it to 0–255 (Lanczos
// lobes overshoot).
func clampByte(acc int32) byte {
	v := (acc + 1<<(weightBits-1)) >> weightBits
	switch {
	case v < 0:
		return 0
	case v > 255:
		return 255
	}
	return byte(v)
}

// parallelRows calls f for every row in [0, n) on up to GOMAXPROCS
// goroutines, in contiguous bands.
func parallelRows(n int, f func(y int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for y := range n {
			f(y)
		}
		return
	}
	var wg sync.WaitGroup
	band := (n + workers - 1) / workers
	for start := 0; start < n; start += band {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for y := lo; y < hi; y++ {
				f(y)
			}
		}(start, min(start+band, n))
	}
	wg.Wait()
}

// resizeLanczos scales img to exactly w×h. Planar YCbCr stays YCbCr (4:2:0
// out), 8-bit RGBA stays RGBA, 8-bit gray stays gray; other types go
// through imaging.
func resizeLanczos(img image.Image, w, h int) image.Image {
	switch m := img.(type) {
	case *image.YCbCr:
		return resizeYCbCr(m, w, h)
	case *image.RGBA:
		return rgbaFrom(resizePlane(rgbaPlane(m.Pix, m.Stride, m.Rect), w, h))
	case *image.NRGBA:
		// Opaque here (makeOpaque ran), so NRGBA bytes are RGBA bytes.
		return rgbaFrom(resizePlane(rgbaPlane(m.Pix, m.Stride, m.Rect), w, h))
	case *image.Gray:
		p := resizePlane(plane{pix: m.Pix, stride: m.Stride, width: m.Rect.Dx(), height: m.Rect.Dy(), channels: 1}, w, h)
		return &image.Gray{Pix: p.pix, Stride: p.stride, Rect: image.Rect(0, 0, w, h)}
	}
	return imaging.Resize(img, w, h, imaging.Lanczos)
}

func rgbaPlane(pix []byte, stride int, r image.Rectangle) plane {
	return plane{pix: pix, stride: stride, width: r.Dx(), height: r.Dy(), channels: 4}
}

func rgbaFrom(p plane) *image.RGBA {
	return &image.RGBA{Pix: p.pix, Stride: p.stride, Rect: image.Rect(0, 0, p.width, p.height)}
}

// resizeYCbCr scales each plane: luma to w×h, chroma to the 4:2:0 chroma
// size of w×h.
func resizeYCbCr(m *image.YCbCr, w, h int) *image.YCbCr {
	b := m.Rect
	cw, ch := chromaSize(m.SubsampleRatio, b.Dx(), b.Dy())
	y := resizePlane(plane{pix: m.Y, stride: m.YStride, width: b.Dx(), height: b.Dy(), channels: 1}, w, h)
	ow, oh := (w+1)/2, (h+1)/2
	cb := resizePlane(plane{pix: m.Cb, stride: m.CStride, width: cw, height: ch, channels: 1}, ow, oh)
	cr := resizePlane(plane{pix: m.Cr, stride: m.CStride, width: cw, height: ch, channels: 1}, ow, oh)
	return &image.YCbCr{
		Y: y.pix, Cb: cb.pix, Cr: cr.pix,
		YStride: y.stride, CStride: cb.stride,
		SubsampleRatio: image.YCbCrSubsampleRatio420,
		Rect:           image.Rect(0, 0, w, h),
	}
}

// chromaSize is the size of a chroma plane for a w×h image.
func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	}
	return w, h
}
