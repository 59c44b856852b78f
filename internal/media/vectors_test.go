package media

import (
	"encoding/json"
	"image"
	"image/color"
	"os"
	"testing"
)

// fitVector is one generated image with OpenClaw's own replay result for it
// (testdata/openclaw-fit-vectors.json). The images are rebuilt from their
// spec by makeVectorImage; OPENCLAW_WRITE_FIT_BLOCKS=file writes them as
// image blocks for OpenClaw (see testdata/gen-fit-vectors.mjs).
type fitVector struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"` // gradient, alpha, noise, solid, gray, paletted, deep
	Format   string `json:"format"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Orient   int    `json:"orientation,omitempty"`
	Cut      int    `json:"cut,omitempty"` // keep only this many bytes
	MaxSide  int    `json:"maxSide"`
	Declared string `json:"declaredMime"`
	// OpenClaw's output block: an image's MIME type and size, or a text.
	OpenClaw *struct {
		Type     string `json:"type"`
		MIMEType string `json:"mimeType,omitempty"`
		Width    int    `json:"width,omitempty"`
		Height   int    `json:"height,omitempty"`
		Same     bool   `json:"same,omitempty"`
		Text     string `json:"text,omitempty"`
	} `json:"openclaw,omitempty"`
}

var vectorSpecs = []fitVector{
	{Name: "png 2400x1600 (case 64)", Kind: "gradient", Format: "png", Width: 2400, Height: 1600},
	{Name: "png 4000x3000", Kind: "smooth", Format: "png", Width: 4000, Height: 3000},
	{Name: "png 4000x3000 with texture, over the input cap", Kind: "gradient", Format: "png", Width: 4000, Height: 3000},
	{Name: "png 1201x1199", Kind: "gradient", Format: "png", Width: 1201, Height: 1199},
	{Name: "png 1000x3001", Kind: "gradient", Format: "png", Width: 1000, Height: 3001},
	{Name: "png 1999x1001", Kind: "gradient", Format: "png", Width: 1999, Height: 1001},
	{Name: "png 1x5000", Kind: "solid", Format: "png", Width: 1, Height: 5000},
	{Name: "png 1200x1200 kept", Kind: "gradient", Format: "png", Width: 1200, Height: 1200},
	{Name: "png labelled webp", Kind: "gradient", Format: "png", Width: 100, Height: 80, Declared: "image/webp"},
	{Name: "png alpha 1600x1600", Kind: "alpha", Format: "png", Width: 1600, Height: 1600},
	{Name: "png gray 1300x1300", Kind: "gray", Format: "png", Width: 1300, Height: 1300},
	{Name: "png paletted 1300x700", Kind: "paletted", Format: "png", Width: 1300, Height: 700},
	{Name: "png 16-bit 1500x900", Kind: "deep", Format: "png", Width: 1500, Height: 900},
	{Name: "png 6000x5000 over pixel budget", Kind: "solid", Format: "png", Width: 6000, Height: 5000},
	{Name: "png 5000x5000 at the pixel budget", Kind: "solid", Format: "png", Width: 5000, Height: 5000},
	{Name: "png truncated body", Kind: "gradient", Format: "png", Width: 2000, Height: 2000, Cut: 4000},
	{Name: "png noise 1500x1500 over 5 MiB", Kind: "noise", Format: "png", Width: 1500, Height: 1500, MaxSide: 3000},
	{Name: "png 4000x3000 max 4000", Kind: "smooth", Format: "png", Width: 4000, Height: 3000, MaxSide: 4000},
	{Name: "png 300x200 max 1", Kind: "gradient", Format: "png", Width: 300, Height: 200, MaxSide: 1},
	{Name: "png 3000x2000 max 1700", Kind: "gradient", Format: "png", Width: 3000, Height: 2000, MaxSide: 1700},
	{Name: "jpeg 3000x2000", Kind: "gradient", Format: "jpeg", Width: 3000, Height: 2000},
	{Name: "jpeg 3000x2000 orientation 6", Kind: "gradient", Format: "jpeg", Width: 3000, Height: 2000, Orient: 6},
	{Name: "jpeg 1300x1100 orientation 8", Kind: "gradient", Format: "jpeg", Width: 1300, Height: 1100, Orient: 8},
	{Name: "jpeg 1300x1100 orientation 3", Kind: "gradient", Format: "jpeg", Width: 1300, Height: 1100, Orient: 3},
	{Name: "jpeg truncated header", Kind: "gradient", Format: "jpeg", Width: 1300, Height: 1100, Cut: 100},
	{Name: "gif 1600x100", Kind: "paletted", Format: "gif", Width: 1600, Height: 100},
	{Name: "bmp 100x10 kept", Kind: "gradient", Format: "bmp", Width: 100, Height: 10},
}

// makeVectorImage rebuilds a vector's image bytes.
func makeVectorImage(t testing.TB, v fitVector) []byte {
	var img image.Image
	switch v.Kind {
	case "gradient":
		img = gradient(v.Width, v.Height, false)
	case "smooth":
		img = smooth(v.Width, v.Height)
	case "alpha":
		img = gradient(v.Width, v.Height, true)
	case "noise":
		img = noise(v.Width, v.Height, 7)
	case "solid":
		u := image.NewUniform(color.NRGBA{200, 30, 60, 255})
		m := image.NewNRGBA(image.Rect(0, 0, v.Width, v.Height))
		for i := 0; i < len(m.Pix); i += 4 {
			copy(m.Pix[i:], []byte{u.C.(color.NRGBA).R, 30, 60, 255})
		}
		img = m
	case "gray":
		g := image.NewGray(image.Rect(0, 0, v.Width, v.Height))
		for i := range g.Pix {
			g.Pix[i] = uint8(i % 251)
		}
		img = g
	case "paletted":
		p := image.NewPaletted(image.Rect(0, 0, v.Width, v.Height), color.Palette{
			color.RGBA{0, 0, 0, 255}, color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}, color.RGBA{0, 0, 0, 0}})
		for i := range p.Pix {
			p.Pix[i] = uint8(i / 7 % 4)
		}
		img = p
	case "deep":
		d := image.NewNRGBA64(image.Rect(0, 0, v.Width, v.Height))
		for y := 0; y < v.Height; y++ {
			for x := 0; x < v.Width; x++ {
				d.SetNRGBA64(x, y, color.NRGBA64{uint16(x * 40), uint16(y * 70), 0x1234, 0xFFFF})
			}
		}
		img = d
	default:
		t.Fatalf("unknown kind %q", v.Kind)
	}
	var raw []byte
	switch v.Format {
	case "png":
		raw = encodePNG(t, img)
	case "jpeg":
		raw = encodeJPEG(t, img, 90)
		if v.Orient != 0 {
			raw = withEXIFOrientation(raw, v.Orient)
		}
	case "gif":
		raw = encodeGIF(t, img)
	case "bmp":
		raw = encodeBMP(t, img)
	}
	if v.Cut > 0 {
		raw = raw[:v.Cut]
	}
	return raw
}

func (v fitVector) declared() string {
	if v.Declared != "" {
		return v.Declared
	}
	return "image/" + v.Format
}

// TestWriteFitBlocks writes the vectors' image blocks for OpenClaw when
// OPENCLAW_WRITE_FIT_BLOCKS names a file.
func TestWriteFitBlocks(t *testing.T) {
	path := os.Getenv("OPENCLAW_WRITE_FIT_BLOCKS")
	if path == "" {
		t.Skip("set OPENCLAW_WRITE_FIT_BLOCKS to regenerate the OpenClaw input")
	}
	type block struct {
		Spec     fitVector `json:"spec"`
		Type     string    `json:"type"`
		Data     string    `json:"data"`
		MIMEType string    `json:"mimeType"`
	}
	var blocks []block
	for _, v := range vectorSpecs {
		blocks = append(blocks, block{v, "image", toB64(makeVectorImage(t, v)), v.declared()})
	}
	b, err := json.Marshal(blocks)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenClawFitVectors(t *testing.T) {
	data, err := os.ReadFile("testdata/openclaw-fit-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []fitVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) != len(vectorSpecs) {
		t.Fatalf("%d vectors on file, %d specs: regenerate the file", len(vectors), len(vectorSpecs))
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			if testing.Short() && v.Width*v.Height > 4_000_000 {
				t.Skip("large image")
			}
			t.Parallel()
			checkVector(t, v)
		})
	}
}

func checkVector(t *testing.T, v fitVector) {
	lim := DefaultLimits
	if v.MaxSide > 0 {
		lim.MaxSide = v.MaxSide
	}
	raw := makeVectorImage(t, v)
	s, omitted := Sanitize(toB64(raw), v.declared(), lim)
	want := v.OpenClaw
	if want.Type == "text" {
		if got := "[session:history] omitted " + omitted; omitted == "" || got != want.Text {
			t.Fatalf("got image %s %dx%d (or text %q); OpenClaw: %q", s.MIMEType, s.Width, s.Height, got, want.Text)
		}
		return
	}
	if omitted != "" {
		t.Fatalf("omitted: %s; OpenClaw: %s %dx%d", omitted, want.MIMEType, want.Width, want.Height)
	}
	h, ok, n := ProbeBase64(s.Data)
	w, ht := h.DisplaySize()
	if !ok || s.MIMEType != want.MIMEType || w != want.Width || ht != want.Height || (s.Data == toB64(raw)) != want.Same {
		t.Fatalf("got %s %dx%d (same %v); OpenClaw: %s %dx%d (same %v)", s.MIMEType, w, ht, s.Data == toB64(raw), want.MIMEType, want.Width, want.Height, want.Same)
	}
	if n > lim.MaxBytes {
		t.Fatalf("output has %d bytes, over %d", n, lim.MaxBytes)
	}
	if s.Width != w || s.Height != ht {
		t.Fatalf("reported size %dx%d, actual %dx%d", s.Width, s.Height, w, ht)
	}
}
