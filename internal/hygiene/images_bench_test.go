//go:build unix

package hygiene

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-doctor/openclaw-doctor/internal/cputime"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// The image benchmarks replay a session of benchImages real, decodable PNG
// and JPEG images of 2–4 MiB each, all larger than the 1200 px limit, every
// payload distinct (a numbered PNG tEXt chunk or JPEG comment), so each one
// is decoded, resized and re-encoded. Run with -benchtime=1x; the figure to
// read is ns/image.
//
//	go test ./internal/hygiene -run '^$' -bench Images -benchtime=1x
const benchImages = 200

var benchSession struct {
	once sync.Once
	msgs []Message
	size int // total decoded bytes
}

// benchMessages returns the session's messages: one user message per image,
// alternating PNG and JPEG.
func benchMessages(b *testing.B) ([]Message, int) {
	benchSession.once.Do(func() {
		pngBase := benchPNG(b)
		jpgBase := benchJPEG(b)
		for _, raw := range [][]byte{pngBase, jpgBase} {
			if len(raw) < 2<<20 || len(raw) > 4<<20-64 {
				b.Fatalf("benchmark image of %d bytes, want 2–4 MiB", len(raw))
			}
		}
		for i := range benchImages {
			var raw []byte
			mime := "image/png"
			if i%2 == 0 {
				raw = withPNGText(pngBase, fmt.Sprintf("copy %d", i))
			} else {
				raw, mime = withJPEGComment(jpgBase, fmt.Sprintf("copy %d", i)), "image/jpeg"
			}
			benchSession.size += len(raw)
			msg := jsonl.ObjectOf(
				jsonl.Member{Key: "role", Value: jsonl.StringValue("user")},
				jsonl.Member{Key: "content", Value: jsonl.ArrayValue(
					textBlockValue(fmt.Sprintf("screenshot %d", i)),
					jsonl.ObjectOf(
						jsonl.Member{Key: "type", Value: jsonl.StringValue("image")},
						jsonl.Member{Key: "data", Value: jsonl.StringValue(base64.StdEncoding.EncodeToString(raw))},
						jsonl.Member{Key: "mimeType", Value: jsonl.StringValue(mime)},
					),
				)},
			)
			benchSession.msgs = append(benchSession.msgs, Message{V: msg, Line: i + 2})
		}
	})
	return benchSession.msgs, benchSession.size
}

// noisyImage is a w×h gradient with per-pixel noise of the given amplitude,
// so it compresses like a photo rather than like a flat screenshot.
func noisyImage(w, h, amplitude int) *image.NRGBA {
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

// benchPNG is a 1800×1400 PNG of about 4 MiB.
func benchPNG(b *testing.B) []byte {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, noisyImage(1800, 1400, 12)); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchJPEG is a 3000×2000 JPEG of about 2.4 MiB.
func benchJPEG(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, noisyImage(3000, 2000, 40), &jpeg.Options{Quality: 93}); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// withPNGText inserts a tEXt chunk after IHDR.
func withPNGText(p []byte, text string) []byte {
	data := append([]byte("Comment\x00"), text...)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	const ihdrEnd = 8 + 8 + 13 + 4
	out := append([]byte{}, p[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, p[ihdrEnd:]...)
}

// withJPEGComment inserts a COM segment after SOI.
func withJPEGComment(j []byte, text string) []byte {
	seg := []byte{0xFF, 0xFE, byte((len(text) + 2) >> 8), byte(len(text) + 2)}
	seg = append(seg, text...)
	out := append([]byte{}, j[:2]...)
	out = append(out, seg...)
	return append(out, j[2:]...)
}

func cloneBenchMessages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{V: m.V.Clone(), Line: m.Line}
	}
	return out
}

// reportPerImage adds wall ns/image, CPU ns/image (user + system, which a
// busy machine does not inflate) and MB/s of decoded input to the result.
func reportPerImage(b *testing.B, elapsed, cpu time.Duration, size int) {
	n := float64(b.N * benchImages)
	b.ReportMetric(float64(elapsed.Nanoseconds())/n, "ns/image")
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/image")
	b.ReportMetric(float64(size)*float64(b.N)/elapsed.Seconds()/1e6, "MB/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkImagesSession sanitizes the whole session in one parallel batch
// (sanitizeSessionImages).
func BenchmarkImagesSession(b *testing.B) {
	msgs, size := benchMessages(b)
	b.ResetTimer()
	var elapsed, cpu time.Duration
	for range b.N {
		b.StopTimer()
		work := cloneBenchMessages(msgs)
		r := &Run{Config: NewConfig(Target{Provider: "anthropic"})}
		b.StartTimer()
		start, cpuStart := time.Now(), cputime.Process()
		sanitizeSessionImages(r, work)
		elapsed += time.Since(start)
		cpu += cputime.Process() - cpuStart
		if got := countRule(r, ruleImageResize); got != benchImages {
			b.Fatalf("%d images resized, want %d", got, benchImages)
		}
	}
	reportPerImage(b, elapsed, cpu, size)
}

// BenchmarkImagesPerMessage sanitizes message by message, as the image pass
// does when it calls sanitizeImageBlocks for each message.
func BenchmarkImagesPerMessage(b *testing.B) {
	msgs, size := benchMessages(b)
	b.ResetTimer()
	var elapsed, cpu time.Duration
	for range b.N {
		b.StopTimer()
		work := cloneBenchMessages(msgs)
		r := &Run{Config: NewConfig(Target{Provider: "anthropic"})}
		b.StartTimer()
		start, cpuStart := time.Now(), cputime.Process()
		for i := range work {
			c := work[i].V.Get("content")
			blocks := make([]*jsonl.Value, c.Len())
			for j := range blocks {
				blocks[j] = c.Index(j)
			}
			sanitizeImageBlocks(r, blocks)
		}
		elapsed += time.Since(start)
		cpu += cputime.Process() - cpuStart
		if got := countRule(r, ruleImageResize); got != benchImages {
			b.Fatalf("%d images resized, want %d", got, benchImages)
		}
	}
	reportPerImage(b, elapsed, cpu, size)
}

func countRule(r *Run, rule string) int {
	n := 0
	for _, c := range r.Changes {
		if c.Rule == rule {
			n++
		}
	}
	return n
}
