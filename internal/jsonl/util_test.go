package jsonl

import "bytes"

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// Valid reports whether JSON.parse accepts data: the validator's verdict.
func Valid(data []byte) bool {
	return validate(data) == nil
}
