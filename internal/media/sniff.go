package media

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// SignaturePrefixChars is how much of a canonical base64 payload OpenClaw
// decodes to sniff its signature (IMAGE_SIGNATURE_PREFIX_BASE64_CHARS): 128
// characters, 96 bytes.
const SignaturePrefixChars = 128

// HEIC and HEIF brands recognised in an ISO-BMFF ftyp box.
var (
	heicBrands = []string{"heic", "heix", "hevc", "hevx", "heis", "heim", "hevm", "hevs"}
	heifBrands = []string{"mif1", "msf1"}
)

// SniffMIME returns the image MIME type whose signature b starts with, in
// OpenClaw's order (PNG, JPEG, WebP, GIF, BMP, then HEIC/HEIF by ftyp brand),
// or "" when none matches.
func SniffMIME(b []byte) string {
	switch {
	case len(b) >= 8 && bytes.Equal(b[:8], pngSignature):
		return "image/png"
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return "image/jpeg"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	case len(b) >= 6 && (string(b[:6]) == "GIF87a" || string(b[:6]) == "GIF89a"):
		return "image/gif"
	case len(b) >= 2 && b[0] == 'B' && b[1] == 'M':
		return "image/bmp"
	}
	return sniffISOBMFF(b)
}

// sniffISOBMFF recognises HEIC/HEIF by their brands. Like OpenClaw it reads
// the major brand and then every four bytes from offset 16 to the end of b,
// whatever the ftyp box's declared size.
func sniffISOBMFF(b []byte) string {
	if len(b) < 12 || string(b[4:8]) != "ftyp" {
		return ""
	}
	brands := []string{string(b[8:12])}
	for off := 16; off+4 <= len(b); off += 4 {
		brands = append(brands, string(b[off:off+4]))
	}
	if anyIn(brands, heicBrands) {
		return "image/heic"
	}
	if anyIn(brands, heifBrands) {
		return "image/heif"
	}
	return ""
}

func anyIn(xs, set []string) bool {
	for _, x := range xs {
		for _, s := range set {
			if x == s {
				return true
			}
		}
	}
	return false
}

// SniffBase64 sniffs the image type of a canonical base64 payload (as
// returned by [CanonicalBase64]) from its first [SignaturePrefixChars]
// characters, as OpenClaw's sanitizeInlineImageBase64 does.
func SniffBase64(canonical string) string {
	prefix := canonical[:min(len(canonical), SignaturePrefixChars)]
	b, err := base64.StdEncoding.DecodeString(prefix)
	if err != nil {
		// A canonical payload's prefix is a whole number of quanta; it can
		// only fail to decode if the caller skipped canonicalisation.
		return ""
	}
	return SniffMIME(b)
}

// SanitizeInlineImage is OpenClaw's sanitizeInlineImageBase64 without the
// declared-type check: it canonicalises data and sniffs its signature. ok is
// false when data is not canonical base64 or carries no known image
// signature. The declared MIME type of a block need not match mime.
func SanitizeInlineImage(data string) (mime, canonical string, ok bool) {
	canonical, ok = CanonicalBase64(data)
	if !ok {
		return "", "", false
	}
	mime = SniffBase64(canonical)
	if mime == "" {
		return "", "", false
	}
	return mime, canonical, true
}

// IsImageMIMEType reports whether v, trimmed as JavaScript trims, starts
// with "image/" in any letter case (OpenClaw's isImageMimeType).
func IsImageMIMEType(v string) bool {
	t := jsonl.TrimJS(v)
	return len(t) >= 6 && strings.EqualFold(t[:6], "image/")
}

// InferMIMEFromBase64 is the cheap guess OpenClaw's replay makes from the
// text of a payload (as OpenClaw's image tooling infers it): JPEG, PNG or
// GIF by their base64 prefixes, "" otherwise (the declared type then stands).
func InferMIMEFromBase64(data string) string {
	t := jsonl.TrimJS(data)
	switch {
	case strings.HasPrefix(t, "/9j/"):
		return "image/jpeg"
	case strings.HasPrefix(t, "iVBOR"):
		return "image/png"
	case strings.HasPrefix(t, "R0lGOD"):
		return "image/gif"
	}
	return ""
}

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}
