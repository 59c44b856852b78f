// Package media handles the image payloads of session transcripts the way
// OpenClaw does: base64 validation, image signature sniffing, header-only
// dimension reading, and the resize/re-encode ladder used at replay.
//
// Guarantees:
//
//   - [CanonicalBase64] accepts exactly the strings OpenClaw's media-core
//     canonicalizeBase64 accepts and returns the same canonical text.
//   - [SniffMIME] and [SniffBase64] recognise exactly the signatures of
//     OpenClaw's inline-image sniffing (PNG, JPEG, WebP, GIF, BMP, HEIC/HEIF).
//   - [ReadHeader] reads dimensions from the first bytes of an image without
//     decoding pixels, with the same rules (and the same refusals) as
//     OpenClaw's image library, rastermill.
//   - [Shrink] walks OpenClaw's side and quality ladder and picks the same
//     output dimensions and MIME type as OpenClaw for every image it can
//     decode.
//
// It does not reproduce OpenClaw's JPEG bytes: Go's encoder and OpenClaw's
// differ, so only the output's type, pixel size and byte limit match. It never
// reads or writes files.
package media
