//go:build amd64 && !purego

package jsonl

// plainQuotesAVX2 is plainQuotesGo for the n blocks of 64 bytes at p,
// writing their quote words at q.
//
//go:noescape
func plainQuotesAVX2(p *byte, n int, q *uint64) bool

// plainQuotes sets words to the quote bits of d (len(words) blocks of 64
// bytes) and reports whether d is plain; with AVX2 where the CPU has it.
func plainQuotes(d []byte, words []uint64) bool {
	if useAVX2 {
		_ = d[len(words)*64-1]
		return plainQuotesAVX2(&d[0], len(words), &words[0])
	}
	return plainQuotesGo(d, words)
}
