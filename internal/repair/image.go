package repair

import "github.com/openclaw-doctor/openclaw-doctor/internal/media"

// imageMimeKeys are the fields an image block may declare its MIME type in,
// in the order OpenClaw tries them (only whether one holds an image type
// matters to the repair).
var imageMimeKeys = [...]string{"mimeType", "mediaType", "media_type"}

// isImageMime is OpenClaw's isImageMimeType: trimmed, it starts with
// "image/" in any letter case.
func isImageMime(s string) bool { return media.IsImageMIMEType(s) }

// isCorruptedImageData reports whether the data of an image block that
// declares an image MIME type is one OpenClaw replaces by the placeholder
// (docs/fix.md #4): a non-ASCII character, not canonical base64
// (media-core's canonicalizeBase64), or no known image signature at the
// start of the decoded bytes. The declared type need not match the sniffed
// one.
func isCorruptedImageData(data string) bool {
	_, _, ok := media.SanitizeInlineImage(data)
	return !ok
}
