package media

import (
	"encoding/base64"
	"fmt"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"math"
	"strconv"
)

// OpenClaw's replay image limits (OpenClaw's image tooling, which
// resizes with rastermill).
const (
	// DefaultMaxSide is agents.defaults.imageMaxDimensionPx when unset.
	DefaultMaxSide = 1200
	// MaxBytes is the largest decoded image OpenClaw replays (5 MiB).
	MaxBytes = 5 << 20
	// MaxInputBytes caps the estimated decoded size of a payload before
	// anything else is tried (10 MiB).
	MaxInputBytes = 10 << 20
	// MaxPixels is the pixel count above which an image is neither kept nor
	// decoded (rastermill's input and output budget).
	MaxPixels = 25_000_000
)

// QualitySteps is OpenClaw's JPEG quality ladder (IMAGE_REDUCE_QUALITY_STEPS).
var QualitySteps = [...]int{85, 75, 65, 55, 45, 35}

// Limits are the bounds an image must fit.
type Limits struct {
	MaxSide  int // longest displayed side in pixels (≥ 1)
	MaxBytes int // decoded bytes
}

// DefaultLimits are OpenClaw's defaults.
var DefaultLimits = Limits{MaxSide: DefaultMaxSide, MaxBytes: MaxBytes}

// Fitted is an image that fits its limits.
type Fitted struct {
	Data string // canonical base64 of the image (Sanitized.Data repeats it)
	// Resized is true when the image was re-encoded as JPEG; otherwise Data
	// is the input unchanged.
	Resized       bool
	Width, Height int // displayed size of Data
	Quality       int // JPEG quality used (0 when not resized)
	// The input's displayed size (0×0 when its header is unknown) and
	// decoded length.
	SourceWidth, SourceHeight, SourceBytes int
	SourceFormat                           string // header format, "" when unknown
}

// Error is an error as OpenClaw prints it, String(err): "Name: message".
// OpenClaw's replay puts that text into its image placeholder.
type Error struct {
	Name    string // JavaScript error class, e.g. "RastermillError"
	Message string
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

func rastermillError(format string, args ...any) *Error {
	return &Error{Name: "RastermillError", Message: fmt.Sprintf(format, args...)}
}

// errUnavailable is what OpenClaw reports when no backend can decode the
// format (Photon decodes only PNG, GIF, WebP and JPEG; the rest need
// external tools).
var errUnavailable = &Error{
	Name:    "ImageProcessorUnavailableError",
	Message: "Image processor unavailable for jpeg encoding; tried: photon, imagemagick, graphicsmagick, ffmpeg",
}

// WithinLimits is OpenClaw's imageWithinLimits: known positive display
// dimensions, no side over lim.MaxSide, at most MaxPixels pixels and at most
// lim.MaxBytes decoded bytes.
func WithinLimits(decodedLen, w, h int, lim Limits) bool {
	return w > 0 && h > 0 && decodedLen <= lim.MaxBytes && w <= lim.MaxSide && h <= lim.MaxSide && w*h <= MaxPixels
}

// Fit returns canonical (a payload accepted by [CanonicalBase64]) unchanged
// when its header shows it within lim, and otherwise re-encodes it as JPEG
// down OpenClaw's ladder: for each side of [SideGrid] (never enlarging), each
// quality of [QualitySteps], until the output has at most lim.MaxBytes
// bytes. Pixels are decoded only when the header does not settle it.
//
// The error, when there is one, is an [*Error] whose text is OpenClaw's:
// unknown dimensions, too many pixels, an undecodable image, a format no
// backend decodes, or "Error: Image could not be reduced below 5.00MB (got
// N.NNMB)".
func Fit(canonical string, lim Limits) (Fitted, error) {
	h, known, n := ProbeBase64(canonical)
	w, ht := h.DisplaySize()
	if known && WithinLimits(n, w, ht, lim) {
		return Fitted{Data: canonical, Width: w, Height: ht, SourceWidth: w, SourceHeight: ht, SourceBytes: n, SourceFormat: h.Format}, nil
	}
	buf, err := base64.StdEncoding.DecodeString(canonical)
	if err != nil {
		return Fitted{}, rastermillError("Unable to determine image dimensions; refusing to process")
	}
	maxDim := lim.MaxSide
	if known {
		maxDim = max(w, ht)
	}
	start := lim.MaxSide
	if maxDim > 0 {
		start = min(lim.MaxSide, maxDim)
	}
	f, err := shrink(buf, SideGrid(lim.MaxSide, start), lim.MaxBytes)
	f.SourceWidth, f.SourceHeight, f.SourceBytes, f.SourceFormat = w, ht, n, h.Format
	return f, err
}

// SideGrid is OpenClaw's buildImageResizeSideGrid: start, 1800, 1600, 1400,
// 1200, 1000 and 800, each capped at maxSide, without duplicates or
// non-positive values, in descending order.
func SideGrid(maxSide, start int) []int {
	var grid []int
	for _, s := range []int{start, 1800, 1600, 1400, 1200, 1000, 800} {
		s = min(s, maxSide)
		if s > 0 && !containsInt(grid, s) {
			grid = append(grid, s)
		}
	}
	// Insertion sort, descending: the grid has at most seven entries.
	for i := 1; i < len(grid); i++ {
		for j := i; j > 0 && grid[j] > grid[j-1]; j-- {
			grid[j], grid[j-1] = grid[j-1], grid[j]
		}
	}
	return grid
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ScaledSize is rastermill's "inside" fit of a w×h image into a side×side
// box without enlarging: both sides scaled by the smaller ratio and rounded
// half up (JavaScript's Math.round), at least 1.
func ScaledSize(w, h, side int) (int, int) {
	scale := math.Min(1, math.Min(float64(side)/float64(w), float64(side)/float64(h)))
	return max(1, jsRound(float64(w)*scale)), max(1, jsRound(float64(h)*scale))
}

func jsRound(x float64) int { return int(math.Floor(x + 0.5)) }

// FormatBytesShort is OpenClaw's formatBytesShort: bytes below 1 KiB as
// "NB", below 1 MiB as "N.NKB", else "N.NNMB" (binary units, JavaScript's
// toFixed rounding).
func FormatBytesShort(n int) string {
	v := float64(n)
	switch {
	case v < 1024:
		return strconv.Itoa(n) + "B"
	case v < 1024*1024:
		return jsToFixed(v/1024, 1) + "KB"
	}
	return jsToFixed(v/(1024*1024), 2) + "MB"
}

// jsToFixed is Number.prototype.toFixed for a non-negative x: the exact
// binary value rounded to digits decimals, ties away from zero.
func jsToFixed(x float64, digits int) string {
	// Forty decimals hold the exact value of every integer divided by a
	// power of two up to 2^40, which is all this package formats.
	exact := strconv.FormatFloat(x, 'f', 40, 64)
	dot := len(exact) - 41
	keep := exact[:dot+1+digits]
	if exact[dot+1+digits] < '5' {
		return keep
	}
	return roundUpDecimal(keep)
}

// roundUpDecimal adds one unit in the last place of a decimal string.
func roundUpDecimal(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '.' {
			continue
		}
		if b[i] < '9' {
			b[i]++
			return string(b)
		}
		b[i] = '0'
	}
	return "1" + string(b)
}

// Sanitized is an image payload ready for replay.
type Sanitized struct {
	Data     string // canonical base64
	MIMEType string // the sniffed or declared type, or image/jpeg when resized
	Fitted
}

// Sanitize is OpenClaw's replay treatment of one image payload (the part of
// sanitizeContentBlocksImages after the data/mimeType shape check): the
// input-size cap, the empty and invalid-base64 checks, the MIME guess, then
// [Fit]. When the payload cannot be replayed, omitted is the rest of
// OpenClaw's placeholder after "[<label>] omitted ", e.g. "image payload:
// invalid base64" or "empty image payload".
func Sanitize(data, declaredMIME string, lim Limits) (s Sanitized, omitted string) {
	if EstimateDecodedBytes(data) > MaxInputBytes {
		return Sanitized{}, "image payload: image exceeds input size limit (" + FormatBytesShort(MaxInputBytes) + ")"
	}
	trimmed := jsonl.TrimJS(data)
	if trimmed == "" {
		return Sanitized{}, "empty image payload"
	}
	canonical, ok := CanonicalBase64(trimmed)
	if !ok {
		return Sanitized{}, "image payload: invalid base64"
	}
	mime := InferMIMEFromBase64(canonical)
	if mime == "" {
		mime = declaredMIME
	}
	f, err := Fit(canonical, lim)
	if err != nil {
		return Sanitized{}, "image payload: " + err.Error()
	}
	if f.Resized {
		mime = "image/jpeg"
	}
	return Sanitized{Data: f.Data, MIMEType: mime, Fitted: f}, ""
}
