//go:build !amd64 || purego

package jsonl

// plainQuotes is plainQuotesGo here (no vector version exists).
func plainQuotes(d []byte, words []uint64) bool { return plainQuotesGo(d, words) }
