package sessiontest

import (
	"bytes"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// Lines is every line of data as jsonl.Reader splits it, each with its
// own copy of its bytes.
func Lines(data []byte) []jsonl.Line {
	var out []jsonl.Line
	r := jsonl.NewReader(bytes.NewReader(data))
	for {
		l, err := r.Next()
		if err != nil { // io.EOF: a bytes.Reader has no other error
			return out
		}
		l.Bytes = bytes.Clone(l.Bytes)
		out = append(out, l)
	}
}
