package media

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"

	"github.com/disintegration/imaging"
	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// shrink decodes buf once and re-encodes it as JPEG for each side of grid
// and each quality step until an output has at most maxBytes bytes.
func shrink(buf []byte, grid []int, maxBytes int) (Fitted, error) {
	src, orientation, err := decodeChecked(buf)
	if err != nil {
		return Fitted{}, err
	}
	b := src.Bounds()
	dispW, dispH := Header{Width: b.Dx(), Height: b.Dy(), Orientation: orientation}.DisplaySize()
	smallest := -1
	var prevW, prevH int
	var enc bytes.Buffer
	for _, side := range grid {
		w, h := ScaledSize(dispW, dispH, side)
		if w == prevW && h == prevH {
			// Same pixels as the previous side: every quality already failed.
			continue
		}
		prevW, prevH = w, h
		rgb := encodable(orientedResize(src, orientation, w, h))
		for _, q := range QualitySteps {
			enc.Reset()
			if err := jpeg.Encode(&enc, rgb, &jpeg.Options{Quality: q}); err != nil {
				return Fitted{}, &Error{Name: "Error", Message: err.Error()}
			}
			if smallest < 0 || enc.Len() < smallest {
				smallest = enc.Len()
			}
			if enc.Len() <= maxBytes {
				return Fitted{Data: encodeBase64(enc.Bytes()), Resized: true, Width: w, Height: h, Quality: q}, nil
			}
		}
	}
	if smallest < 0 {
		smallest = len(buf)
	}
	return Fitted{}, &Error{Name: "Error", Message: "Image could not be reduced below " +
		FormatBytesShort(maxBytes) + " (got " + FormatBytesShort(smallest) + ")"}
}

// orientedResize gives the w×h displayed picture of src stored with an EXIF
// orientation: it resizes in storage orientation (axes swapped for 5–8)
// and then turns the small result, which is cheaper than turning the source.
func orientedResize(src image.Image, orientation, w, h int) image.Image {
	rw, rh := w, h
	if orientation >= 5 && orientation <= 8 {
		rw, rh = h, w
	}
	return orient(resized(src, rw, rh), orientation)
}

// decodeChecked decodes buf with rastermill's admission checks, in its
// order, drops its alpha channel, and returns its EXIF orientation.
func decodeChecked(buf []byte) (image.Image, int, error) {
	h, ok := ReadHeader(buf)
	if !ok {
		return nil, 0, rastermillError("Unable to determine image dimensions; refusing to process")
	}
	if err := checkPixelBudget(h.Width, h.Height); err != nil {
		return nil, 0, err
	}
	decode := decoders[h.Format]
	if decode == nil {
		return nil, 0, errUnavailable
	}
	img, err := decode(bytes.NewReader(buf))
	if err != nil {
		if photonFormats[h.Format] {
			return nil, 0, rastermillError("Unable to decode image with Photon")
		}
		return nil, 0, errUnavailable
	}
	b := img.Bounds()
	if err := checkPixelBudget(b.Dx(), b.Dy()); err != nil {
		return nil, 0, err
	}
	return makeOpaque(img), h.Orientation, nil
}

// checkPixelBudget is rastermill's validatePixelBudget.
func checkPixelBudget(w, h int) error {
	if h > 0 && w > MaxPixels/h {
		return rastermillError("Image dimensions exceed the 25,000,000 pixel input limit: %dx%d (%d pixels)", w, h, w*h)
	}
	return nil
}

// photonFormats are the formats OpenClaw decodes in-process; a failure to
// decode one of them is an undecodable image, not a missing backend.
var photonFormats = map[string]bool{"png": true, "gif": true, "webp": true, "jpeg": true}

// decoders decode each format Go can read. BMP and TIFF stand in for the
// external tools (ImageMagick) OpenClaw falls back to; HEIF and AVIF have no
// decoder, as on a machine without those tools.
var decoders = map[string]func(r *bytes.Reader) (image.Image, error){
	"png":  func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) },
	"gif":  func(r *bytes.Reader) (image.Image, error) { return gif.Decode(r) },
	"webp": func(r *bytes.Reader) (image.Image, error) { return webp.Decode(r) },
	"jpeg": func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) },
	"bmp":  func(r *bytes.Reader) (image.Image, error) { return bmp.Decode(r) },
	"tiff": func(r *bytes.Reader) (image.Image, error) { return tiff.Decode(r) },
}

// orient applies an EXIF orientation (2–8) the way rastermill's
// transformOrientation does.
func orient(img image.Image, orientation int) image.Image {
	switch orientation {
	case 2:
		return imaging.FlipH(img)
	case 3:
		return imaging.Rotate180(img)
	case 4:
		return imaging.FlipV(img)
	case 5:
		return imaging.Transpose(img)
	case 6:
		return imaging.Rotate270(img)
	case 7:
		return imaging.Transverse(img)
	case 8:
		return imaging.Rotate90(img)
	}
	return img
}

// resized scales img to exactly w×h with a Lanczos-3 filter (Photon's
// filter), or returns it unchanged when it already has that size.
func resized(img image.Image, w, h int) image.Image {
	b := img.Bounds()
	if b.Dx() == w && b.Dy() == h {
		return img
	}
	return resizeLanczos(img, w, h)
}

// makeOpaque discards img's alpha channel in place, keeping colours as
// stored rather than blending them: Photon resizes every channel on its own
// and drops alpha when it writes a JPEG, which is the same as dropping alpha
// first. img must be owned by the caller.
func makeOpaque(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.NRGBA:
		opaque8(m.Pix)
	case *image.NRGBA64:
		opaque16(m.Pix)
	case *image.RGBA:
		opaque8(m.Pix)
	case *image.RGBA64:
		opaque16(m.Pix)
	case *image.Paletted:
		for i, c := range m.Palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			n.A = 0xFF
			m.Palette[i] = n
		}
	case *image.NYCbCrA:
		return &m.YCbCr
	}
	return img
}

// opaque8 sets the alpha of every 8-bit RGBA pixel of pix to opaque.
func opaque8(pix []byte) {
	for i := 3; i < len(pix); i += 4 {
		pix[i] = 0xFF
	}
}

// opaque16 sets the alpha of every 16-bit RGBA pixel of pix to opaque.
func opaque16(pix []byte) {
	for i := 6; i < len(pix); i += 8 {
		pix[i], pix[i+1] = 0xFF, 0xFF
	}
}

// encodable returns an opaque img in a form the JPEG encoder handles fast
// (*image.YCbCr, *image.RGBA or *image.Gray), converting others.
func encodable(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.YCbCr, *image.RGBA, *image.Gray:
		return img
	case *image.NRGBA:
		// Opaque NRGBA pixels are RGBA pixels: reuse the buffer.
		return &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
	}
	n := imaging.Clone(img)
	return &image.RGBA{Pix: n.Pix, Stride: n.Stride, Rect: n.Rect}
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
