package repair

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// rewoundInput is a file that another program rewrites between the two
// passes: it reads as first until it is rewound, then as second.
type rewoundInput struct {
	r      *bytes.Reader
	second []byte
}

func (in *rewoundInput) Read(p []byte) (int, error) { return in.r.Read(p) }

func (in *rewoundInput) Seek(off int64, whence int) (int64, error) {
	if off == 0 && whence == io.SeekStart && in.second != nil {
		in.r, in.second = bytes.NewReader(in.second), nil
	}
	return in.r.Seek(off, whence)
}

// TestSecondPassSeesChangedInput changes the input between RepairStream's
// two passes: when the plan rewrites lines, a shorter or longer input is
// refused with errChanged and nothing past the last range that still
// matched is written; when nothing needs changing, the input is copied as
// it reads by then. Ranges of every size cross the second pass's 1 MiB
// copies.
func TestSecondPassSeesChangedInput(t *testing.T) {
	var kept strings.Builder
	kept.WriteString(header + "\n")
	for kept.Len() < 3<<20 {
		kept.WriteString(userHello + "\n")
	}
	malformed := "{\"type\":\"message\"\n" // a line the repair drops
	for _, tc := range []struct {
		name, first, second string
		wantChanged         bool
	}{
		{"rewrite, truncated", kept.String() + malformed + userHello + "\n", kept.String()[:1<<20], true},
		{"rewrite, grown", kept.String() + malformed + userHello + "\n", kept.String() + malformed + userHello + "\n" + userHello + "\n", true},
		{"rewrite, same", kept.String() + malformed + userHello + "\n", kept.String() + malformed + userHello + "\n", false},
		{"no change, truncated", kept.String(), kept.String()[:100], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &rewoundInput{r: bytes.NewReader([]byte(tc.first)), second: []byte(tc.second)}
			var out bytes.Buffer
			res, err := RepairStream(&out, in, "-", Options{Now: goldenClock, UUID: goldenUUIDs()})
			if got := errors.Is(err, errChanged); got != tc.wantChanged {
				t.Fatalf("err %v, want errChanged: %v", err, tc.wantChanged)
			}
			switch {
			case tc.wantChanged:
				if out.Len() > len(tc.first) {
					t.Errorf("wrote %d bytes of a %d-byte input", out.Len(), len(tc.first))
				}
			case res.Plan.NeedsRewrite():
				_, want := runBothPasses(t, []byte(tc.first))
				if !bytes.Equal(out.Bytes(), want) {
					t.Errorf("wrote %d bytes, want the %d of the repair", out.Len(), len(want))
				}
			default:
				if out.String() != tc.second {
					t.Errorf("wrote %d bytes, want the input as it reads now (%d)", out.Len(), len(tc.second))
				}
			}
		})
	}
}
