package check

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"
)

// pngBase64 returns a real w×h PNG (one colour, so it stays small).
func pngBase64(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// imageSession is a header, then one user message per image.
func imageSession(images ...string) string {
	lines := []string{hdr}
	parent := "null"
	for i, data := range images {
		id := fmt.Sprintf("u%d", i)
		lines = append(lines, fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-03-14T09:27:00.000Z","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":%q,"mimeType":"image/png"}]}}`, id, parent, data))
		parent = fmt.Sprintf("%q", id)
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestImageLimits pins the image findings: the configured side, the
// 8000 px provider limit and the 2000 px many-image limit (more than 20
// images), each as replay would send the image after its resize.
func TestImageLimits(t *testing.T) {
	small := pngBase64(t, 10, 10)
	wide := pngBase64(t, 2500, 4)
	huge := pngBase64(t, 8500, 2)
	many := func(big string) []string {
		imgs := []string{big}
		for range 20 {
			imgs = append(imgs, small)
		}
		return imgs
	}
	cases := []struct {
		name   string
		maxDim int
		images []string
		want   []string // "line:id" of every finding
		text   string   // a message must contain this
	}{
		{"small images", 0, []string{small, small}, nil, ""},
		{"over the configured side", 0, []string{wide}, []string{"2:" + string(OversizedImage)}, "over 1200 px a side"},
		{"under a larger configured side", 3000, []string{wide}, nil, ""},
		{"many images: replay's resize brings it under 2000 px", 0, many(wide),
			[]string{"2:" + string(OversizedImage)}, "also over the 2000 px many-image limit (the session holds 21 images)"},
		{"many images: sent at 2500 px", 3000, many(wide),
			[]string{"2:" + string(ImageOverProviderLimit)}, "over the 2000 px many-image limit"},
		{"20 images are not many", 3000, many(wide)[:20], nil, ""},
		{"over 8000 px even after replay", 9000, []string{huge},
			[]string{"2:" + string(ImageOverProviderLimit)}, "over Anthropic's 8000 px limit"},
		{"8000 px limit handled by the default resize", 0, []string{huge}, []string{"2:" + string(OversizedImage)}, "over Anthropic's 8000 px limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := imageSession(c.images...)
			opts := Options{ImageMaxDimensionPx: c.maxDim}
			sel := mustSelection(t, Options{Only: []ID{OversizedImage, ImageOverProviderLimit}})
			res := Run(context.Background(), strings.NewReader(in), "s.jsonl", int64(len(in)), sel, opts)
			var got []string
			found := c.text == ""
			for _, f := range res.Findings {
				got = append(got, fmt.Sprintf("%d:%s", f.Line, f.ID))
				found = found || strings.Contains(f.Message, c.text)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("findings %v, want %v", got, c.want)
			}
			if !found {
				t.Errorf("no message contains %q: %+v", c.text, res.Findings)
			}
		})
	}
}
