package media

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"
)

// FuzzCanonicalBase64 checks, for any input: the fast path agrees with the
// general one, an accepted payload decodes with the standard decoder and
// re-encodes to itself, and the size estimate of a canonical payload is its
// decoded length. Seeded from OpenClaw's vectors.
func FuzzCanonicalBase64(f *testing.F) {
	if data, err := os.ReadFile("testdata/openclaw-base64-vectors.json"); err == nil {
		var vectors []openClawVector
		if json.Unmarshal(data, &vectors) == nil {
			for _, v := range vectors {
				f.Add(v.In)
			}
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := CanonicalBase64(s)
		slow, slowOK := canonicalSlow(s)
		if got != slow || ok != slowOK {
			t.Fatalf("fast %q %v, slow %q %v", got, ok, slow, slowOK)
		}
		if !ok {
			return
		}
		raw, err := base64.StdEncoding.Strict().DecodeString(got)
		if err != nil {
			t.Fatalf("canonical %q does not decode: %v", got, err)
		}
		if base64.StdEncoding.EncodeToString(raw) != got {
			t.Fatalf("canonical %q is not the encoding of its bytes", got)
		}
		if n := EstimateDecodedBytes(got); n != len(raw) || DecodedLen(got) != len(raw) {
			t.Fatalf("estimate %d, DecodedLen %d, actual %d", n, DecodedLen(got), len(raw))
		}
		_ = SniffBase64(got)
	})
}

// FuzzReadHeader checks that header reading never panics and that reading
// from a base64 prefix of any size agrees with reading the whole payload.
func FuzzReadHeader(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\x00\x00\x00\x80"))
	f.Add([]byte("GIF89a\x10\x00\x20\x00"))
	f.Add([]byte("BM"))
	f.Add([]byte("II*\x00\x08\x00\x00\x00"))
	f.Add([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10})
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantOK := ReadHeader(b)
		if len(b) == 0 {
			return
		}
		enc := base64.StdEncoding.EncodeToString(b)
		for _, prefix := range []int{3, 12, 30, headerPrefixBytes} {
			got, ok, n := probeBase64(enc, prefix)
			if got != want || ok != wantOK || n != len(b) {
				t.Fatalf("prefix %d: ProbeBase64 %+v %v %d, ReadHeader %+v %v %d", prefix, got, ok, n, want, wantOK, len(b))
			}
		}
	})
}
