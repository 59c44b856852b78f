package media

import (
	"encoding/base64"
	"testing"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestSniffMIME(t *testing.T) {
	ftyp := func(major string, compat ...string) []byte {
		b := []byte("\x00\x00\x00\x18ftyp" + major + "\x00\x00\x00\x00")
		for _, c := range compat {
			b = append(b, c...)
		}
		return b
	}
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"png", []byte("\x89PNG\r\n\x1a\nrest"), "image/png"},
		{"png truncated", []byte("\x89PNG\r\n\x1a"), ""},
		{"jpeg", []byte{0xFF, 0xD8, 0xFF, 0xE0}, "image/jpeg"},
		{"jpeg two bytes", []byte{0xFF, 0xD8}, ""},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "image/webp"},
		{"riff not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"gif87a", []byte("GIF87a.."), "image/gif"},
		{"gif89a", []byte("GIF89a.."), "image/gif"},
		{"gif other", []byte("GIF90a.."), ""},
		{"bmp", []byte("BM"), "image/bmp"},
		{"bmp word", []byte("BMfixture"), "image/bmp"},
		{"heic major", ftyp("heic"), "image/heic"},
		{"heic compatible", ftyp("isom", "mif1", "hevx"), "image/heic"},
		{"heif", ftyp("mif1"), "image/heif"},
		{"heif compatible only", ftyp("isom", "msf1"), "image/heif"},
		{"mp4", ftyp("isom", "mp41"), ""},
		{"avif", ftyp("avif", "mif1"), "image/heif"},
		{"text", []byte("Hello"), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SniffMIME(tt.in); got != tt.want {
				t.Fatalf("SniffMIME = %q, want %q", got, tt.want)
			}
		})
	}
}

// tinyPNG is a 1×1 RGB PNG (69 bytes); tinyPNGShort is its first 68 bytes
// encoded without padding.
const (
	tinyPNG      = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mNgYGAAAAAEAAHI6uv5AAAAAElFTkSuQmCC"
	tinyPNGShort = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mNgYGAAAAAEAAHI6uv5AAAAAElFTkSuQmA"
)

func TestSanitizeInlineImage(t *testing.T) {
	// A brand beyond the first 96 decoded bytes is not seen.
	late := append([]byte("\x00\x00\x00\x80ftypisom\x00\x00\x00\x00"), make([]byte, 84)...)
	late = append(late, "heic"...)
	tests := []struct {
		name, in, mime, canonical string
		ok                        bool
	}{
		{"tiny png", tinyPNG, "image/png", tinyPNG, true},
		{"unpadded png", tinyPNGShort, "image/png", tinyPNGShort + "=", true},
		{"truncated at a non-canonical point", tinyPNG[:len(tinyPNG)-2], "", "", false},
		{"hello", "SGVsbG8=", "", "", false},
		{"bmp word", "Qk1maXh0dXJl", "image/bmp", "Qk1maXh0dXJl", true},
		{"corrupt", "iVBORw0KGgo=====", "", "", false},
		{"late brand", b64(late), "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mime, canonical, ok := SanitizeInlineImage(tt.in)
			if mime != tt.mime || canonical != tt.canonical || ok != tt.ok {
				t.Fatalf("SanitizeInlineImage = %q, %q, %v; want %q, %q, %v", mime, canonical, ok, tt.mime, tt.canonical, tt.ok)
			}
		})
	}
}

func TestIsImageMIMEType(t *testing.T) {
	for in, want := range map[string]bool{
		"image/png": true, " IMAGE/PNG ": true, "\u00a0image/x": true, "image/": true,
		"image": false, "text/plain": false, "": false, "imagex/png": false,
	} {
		if got := IsImageMIMEType(in); got != want {
			t.Errorf("IsImageMIMEType(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestInferMIMEFromBase64(t *testing.T) {
	for in, want := range map[string]string{
		"/9j/4AAQ": "image/jpeg", " iVBORw0": "image/png", "R0lGODlh": "image/gif",
		"UklGR": "", "Qk0": "", "": "",
	} {
		if got := InferMIMEFromBase64(in); got != want {
			t.Errorf("InferMIMEFromBase64(%q) = %q, want %q", in, got, want)
		}
	}
}
