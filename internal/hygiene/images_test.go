package hygiene

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "image/jpeg"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/media"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// imageConformanceDir holds OpenClaw's outputs for the conformance cases.
var imageConformanceDir = filepath.Join("..", "..", "testdata", "conformance")

// imageBlocksOf returns the image blocks of user and toolResult messages in
// a session file, in file order.
func imageBlocksOf(t *testing.T, path string) []*jsonl.Value {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []*jsonl.Value
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		entry, err := jsonl.Parse(sc.Bytes())
		if err != nil || entry.Get("type").StrOr("") != "message" {
			continue
		}
		msg := entry.Get("message")
		if role := session.Role(msg); role != session.RoleUser && role != session.RoleToolResult {
			continue
		}
		blocks = append(blocks, imageTypeBlocks(msg.Get("content"))...)
	}
	return blocks
}

func imageTypeBlocks(content *jsonl.Value) []*jsonl.Value {
	var out []*jsonl.Value
	if !content.IsArray() {
		return nil
	}
	for i := 0; i < content.Len(); i++ {
		if b := content.Index(i); b.Get("type").StrOr("") == "image" {
			c := b.Clone()
			out = append(out, &c)
		}
	}
	return out
}

// expectedImageOutputs returns, from an expected replay file, the blocks of
// user and toolResult messages that are images or image placeholders.
func expectedImageOutputs(t *testing.T, path string) []*jsonl.Value {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonl.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jsonl.Value
	msgs := doc.Get("messages")
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Index(i)
		if role := session.Role(m); role != session.RoleUser && role != session.RoleToolResult {
			continue
		}
		c := m.Get("content")
		for j := 0; c.IsArray() && j < c.Len(); j++ {
			b := c.Index(j)
			if b.Get("type").StrOr("") == "image" || strings.HasPrefix(b.Get("text").StrOr(""), imageLabel+"omitted ") {
				out = append(out, b)
			}
		}
	}
	return out
}

// The image blocks of the conformance cases, sanitized, must give OpenClaw's
// blocks: the same placeholders, and images of the same MIME type and pixel
// size within 5 MiB.
func TestSanitizeImageBlocksConformance(t *testing.T) {
	for _, c := range []string{"28", "29", "30", "31", "35", "36", "37", "64"} {
		t.Run(c, func(t *testing.T) {
			cases, _ := filepath.Glob(filepath.Join(imageConformanceDir, "cases", c+"-*.jsonl"))
			if len(cases) != 1 {
				t.Fatalf("case %s not found", c)
			}
			name := strings.TrimSuffix(filepath.Base(cases[0]), ".jsonl")
			got := imageBlocksOf(t, cases[0])
			r := &Run{Config: NewConfig(Target{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"})}
			sanitizeImageBlocks(r, got)
			want := expectedImageOutputs(t, filepath.Join(imageConformanceDir, "expected", name+".replay.anthropic-sonnet45.json"))
			if len(got) != len(want) {
				t.Fatalf("%d image blocks, OpenClaw has %d", len(got), len(want))
			}
			for i := range got {
				compareImageBlock(t, got[i], want[i])
			}
		})
	}
}

// compareImageBlock compares as the replay conformance test does: texts exactly,
// images by MIME type and decoded size, other fields exactly.
func compareImageBlock(t *testing.T, got, want *jsonl.Value) {
	t.Helper()
	if want.Get("type").StrOr("") != "image" {
		if !jsonl.Equal(got, want) {
			t.Errorf("got %s, OpenClaw %s", jsonl.MarshalString(*got), jsonl.MarshalString(*want))
		}
		return
	}
	gm, gw, gh := decodeImage(t, got)
	wm, ww, wh := decodeImage(t, want)
	if gm != wm || gw != ww || gh != wh {
		t.Errorf("got %s %dx%d, OpenClaw %s %dx%d", gm, gw, gh, wm, ww, wh)
	}
	if n := media.DecodedLen(got.Get("data").StrOr("")); n > media.MaxBytes {
		t.Errorf("image of %d bytes, over the limit", n)
	}
	g, w := got.Clone(), want.Clone()
	g.Delete("data")
	w.Delete("data")
	if !jsonl.Equal(&g, &w) {
		t.Errorf("fields differ: got %s, OpenClaw %s", jsonl.MarshalString(g), jsonl.MarshalString(w))
	}
}

func decodeImage(t *testing.T, b *jsonl.Value) (string, int, int) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b.Get("data").StrOr(""))
	if err != nil {
		t.Fatalf("data: %v", err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return b.Get("mimeType").StrOr(""), cfg.Width, cfg.Height
}

func textBlockValue(s string) jsonl.Value {
	return jsonl.ObjectOf(jsonl.Member{Key: "type", Value: jsonl.StringValue("text")}, jsonl.Member{Key: "text", Value: jsonl.StringValue(s)})
}

func mustParse(t *testing.T, s string) jsonl.Value {
	t.Helper()
	v, err := jsonl.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// pngOf is a base64 PNG of the given size.
func pngOf(t testing.TB, w, h int) string {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.Set(0, 0, color.NRGBA{1, 2, 3, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestSanitizeImageBlocks(t *testing.T) {
	big := pngOf(t, 1500, 1000)
	tiny := pngOf(t, 2, 2)
	tests := []struct {
		name      string
		block     string
		maxSide   int
		wantText  string // placeholder, or "" for an image
		wantMIME  string
		wantW     int
		wantH     int
		wantRules []string
	}{
		{name: "not an image", block: `{"type":"text","text":"hi"}`, wantText: "-"},
		{name: "missing mimeType", block: `{"type":"image","data":"` + tiny + `"}`,
			wantText: "[session:history] omitted image payload: missing data or mimeType", wantRules: []string{ruleImageOmit}},
		{name: "data not a string", block: `{"type":"image","data":5,"mimeType":"image/png"}`,
			wantText: "[session:history] omitted image payload: missing data or mimeType", wantRules: []string{ruleImageOmit}},
		{name: "empty", block: `{"type":"image","data":" \n","mimeType":"image/png"}`,
			wantText: "[session:history] omitted empty image payload", wantRules: []string{ruleImageOmit}},
		{name: "invalid", block: `{"type":"image","data":"a@b","mimeType":"image/png"}`,
			wantText: "[session:history] omitted image payload: invalid base64", wantRules: []string{ruleImageOmit}},
		{name: "input cap", block: `{"type":"image","data":"` + strings.Repeat("A", 14<<20) + `","mimeType":"image/png"}`,
			wantText: "[session:history] omitted image payload: image exceeds input size limit (10.00MB)", wantRules: []string{ruleImageOmit}},
		{name: "not an image payload", block: `{"type":"image","data":"SGVsbG8=","mimeType":"image/png"}`,
			wantText: "[session:history] omitted image payload: RastermillError: Unable to determine image dimensions; refusing to process", wantRules: []string{ruleImageOmit}},
		{name: "kept", block: `{"type":"image","data":"` + tiny + `","mimeType":"image/png"}`,
			wantMIME: "image/png", wantW: 2, wantH: 2},
		{name: "kept, mime sniffed", block: `{"type":"image","mimeType":"image/gif","data":"` + tiny + `","x":1}`,
			wantMIME: "image/png", wantW: 2, wantH: 2, wantRules: []string{ruleImageMIME}},
		{name: "kept, base64 canonicalised", block: `{"type":"image","data":"` + tiny[:20] + `\n` + tiny[20:] + `","mimeType":"image/png"}`,
			wantMIME: "image/png", wantW: 2, wantH: 2, wantRules: []string{ruleImageBase64}},
		{name: "resized", block: `{"type":"image","data":"` + big + `","mimeType":"image/png"}`,
			wantMIME: "image/jpeg", wantW: 1200, wantH: 800, wantRules: []string{ruleImageResize}},
		{name: "configured max side", block: `{"type":"image","data":"` + big + `","mimeType":"image/png"}`, maxSide: 500,
			wantMIME: "image/jpeg", wantW: 500, wantH: 333, wantRules: []string{ruleImageResize}},
		{name: "large max side keeps it", block: `{"type":"image","data":"` + big + `","mimeType":"image/png"}`, maxSide: 2000,
			wantMIME: "image/png", wantW: 1500, wantH: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Run{Config: NewConfig(Target{Provider: "openai", ImageMaxDimensionPx: tt.maxSide})}
			b := mustParse(t, tt.block)
			orig := b.Clone()
			sanitizeImageBlocks(r, []*jsonl.Value{&b})
			var rules []string
			for _, c := range r.Changes {
				rules = append(rules, c.Rule)
			}
			if strings.Join(rules, ",") != strings.Join(tt.wantRules, ",") {
				t.Errorf("changes %v, want %v", rules, tt.wantRules)
			}
			switch tt.wantText {
			case "-":
				if !jsonl.Equal(&b, &orig) {
					t.Fatalf("non-image block changed: %s", jsonl.MarshalString(b))
				}
				return
			case "":
			default:
				want := textBlockValue(tt.wantText)
				if !jsonl.Equal(&b, &want) {
					t.Fatalf("got %.200s, want %s", jsonl.MarshalString(b), jsonl.MarshalString(want))
				}
				return
			}
			mime, w, h := decodeImage(t, &b)
			if mime != tt.wantMIME || w != tt.wantW || h != tt.wantH {
				t.Fatalf("got %s %dx%d, want %s %dx%d", mime, w, h, tt.wantMIME, tt.wantW, tt.wantH)
			}
			// Other fields are kept, in their places.
			if keys, origKeys := keysOf(&b), keysOf(&orig); keys != origKeys {
				t.Fatalf("keys %s, want %s", keys, origKeys)
			}
		})
	}
}

func keysOf(v *jsonl.Value) string {
	var ks []string
	for _, m := range v.Items() {
		ks = append(ks, m.Key)
	}
	return strings.Join(ks, ",")
}

// Images of several messages are sanitized in one batch, each change
// recorded with its message, and identical payloads share one job.
func TestSanitizeSessionImages(t *testing.T) {
	big := pngOf(t, 1300, 650)
	msgs := []Message{
		{V: mustParse(t, `{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"`+big+`","mimeType":"image/png"}]}`), Line: 2},
		{V: mustParse(t, `{"role":"assistant","content":[{"type":"image","data":"!!","mimeType":"image/png"}]}`), Line: 3},
		{V: mustParse(t, `{"role":"toolResult","toolCallId":"c","content":[{"type":"image","data":"`+big+`","mimeType":"image/png"},{"type":"image","data":"","mimeType":"image/png"}]}`), Line: 4},
		{V: mustParse(t, `{"role":"user","content":"text only"}`), Line: 5},
	}
	r := &Run{Config: NewConfig(Target{Provider: "anthropic"})}
	sanitizeSessionImages(r, msgs)
	var got []string
	for _, c := range r.Changes {
		got = append(got, c.Rule+"@"+itoa(c.Line))
	}
	want := "images/resize@2,images/resize@4,images/omit@4"
	if strings.Join(got, ",") != want {
		t.Fatalf("changes %v, want %s", got, want)
	}
	if s := msgs[1].V.Path("content").Index(0).Get("data").StrOr(""); s != "!!" {
		t.Fatalf("assistant image touched: %q", s)
	}
	u, tr := msgs[0].V.Get("content").Index(1), msgs[2].V.Get("content").Index(0)
	if u.Get("data").StrOr("") != tr.Get("data").StrOr("") {
		t.Fatalf("identical payloads sanitized differently")
	}
	// Running the per-message pass afterwards changes nothing.
	before := jsonl.MarshalString(msgs[2].V)
	r2 := &Run{Config: NewConfig(Target{Provider: "anthropic"})}
	c := msgs[2].V.Get("content")
	sanitizeImageBlocks(r2, []*jsonl.Value{c.Index(0), c.Index(1)})
	if after := jsonl.MarshalString(msgs[2].V); after != before || len(r2.Changes) != 0 {
		t.Fatalf("second pass changed the message (%d changes)", len(r2.Changes))
	}
}

func itoa(n int) string { return jsonl.MarshalString(jsonl.IntValue(int64(n))) }

// sanitizeImageBlocks replaces each image block among blocks in place by
// its sanitized form or a text placeholder; other blocks are untouched.
func sanitizeImageBlocks(r *Run, blocks []*jsonl.Value) {
	sanitizeImageSet(r, []imageSite{{blocks: blocks}})
}
