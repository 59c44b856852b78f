//go:build !linux

package jsonl

import "os"

// maxMapped: files are read, not mapped, on this platform.
const maxMapped = 0

func mapFile(*os.File, int) *mapping { return nil }
