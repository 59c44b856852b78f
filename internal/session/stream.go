package session

import (
	"io"
	"math"
	"sort"
	"sync"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// ContextStream is the context of a session's active branch read lazily,
// for sessions too large to hold parsed: Facts is the Context without its
// messages, and Next returns the messages in order, a chunk at a time. A
// goroutine parses the next chunk while the caller works on the current
// one, so at most a few chunks are in memory at once.
type ContextStream struct {
	// Facts is the context with Messages empty.
	Facts  *Context
	chunks chan streamChunk
	stop   chan struct{}
	closed sync.Once

	// pool holds the member blocks of released chunks for the producer's
	// parser to carve from again.
	pool jsonl.BlockPool
	// held are the blocks of the chunks Next returned and Release has not
	// let go, oldest first (only after KeepForRelease).
	mu        sync.Mutex
	releasing bool
	held      []heldChunk
	returned  int // messages Next has returned
}

// streamChunk is one chunk of messages, or the error that ends the stream.
// blocks are the member blocks the chunk's values were carved from.
type streamChunk struct {
	msgs   []ContextMessage
	blocks jsonl.Blocks
	err    error
}

// heldChunk is a returned chunk's blocks and the count of messages Next
// had returned once it returned the chunk.
type heldChunk struct {
	end    int
	blocks jsonl.Blocks
}

// streamChunkBytes is about how many line bytes one chunk of the stream
// parses: large enough that the hand-over between goroutines costs nothing,
// small enough that a few chunks in flight stay small next to the file.
var streamChunkBytes int64 = 1 << 20 // a variable for tests

// SetStreamChunkBytes sets about how many line bytes a chunk of the streams
// opened from now on parses, for tests that need many chunks of a small
// session, and returns the function that restores the previous size.
func SetStreamChunkBytes(n int64) (restore func()) {
	prev := streamChunkBytes
	streamChunkBytes = n
	return func() { streamChunkBytes = prev }
}

// OpenContext loads a transcript from r and opens a stream of its active
// branch's context. Like ReadContext it reads r twice: the envelopes first,
// then, as the stream is read, the lines the context needs. The caller must
// read the stream to its end (io.EOF) or Close it.
func OpenContext(r io.ReaderAt) (*ContextStream, error) {
	t, err := load(io.NewSectionReader(r, 0, math.MaxInt64), readerSize(r))
	if err != nil {
		return nil, err
	}
	b, facts, err := t.contextFacts(r, true)
	if err != nil {
		return nil, err
	}
	w, err := b.window()
	if err != nil {
		return nil, err
	}
	// From here on the builder reads nodes only: let the transcript (its
	// records, tree and index, most of the memory a large session takes) go.
	b.t, b.path, b.want, b.extra = nil, Path{}, nil, nil
	s := &ContextStream{Facts: facts, chunks: make(chan streamChunk, 2), stop: make(chan struct{})}
	go s.produce(b, r, w)
	return s, nil
}

// Next returns the next chunk of messages (never empty), or io.EOF after
// the last one. Another error (a line that changed while it was read, or
// one OpenClaw's loader throws on) ends the stream.
func (s *ContextStream) Next() ([]ContextMessage, error) {
	c, ok := <-s.chunks
	if !ok {
		return nil, io.EOF
	}
	s.mu.Lock()
	s.returned += len(c.msgs)
	if s.releasing {
		s.held = append(s.held, heldChunk{end: s.returned, blocks: c.blocks})
	}
	s.mu.Unlock()
	return c.msgs, c.err
}

// KeepForRelease makes the stream keep the memory of the chunks Next
// returns from now on until Release lets it go, then reuse it for the
// messages it has yet to parse. Without it (or without Release) the
// messages' memory is the collector's, as any value's. Call it before the
// first Next.
func (s *ContextStream) KeepForRelease() {
	s.mu.Lock()
	s.releasing = true
	s.mu.Unlock()
}

// Release tells the stream that the first n messages Next returned (the
// head, if any, included) and everything reached through their values are
// no longer in use, by the caller or anything it handed them to: the
// stream may overwrite them. Only whole chunks are let go, so the messages
// from n on stay valid. Release may be called from any goroutine, also
// after Close; a Release of fewer messages than an earlier one does
// nothing.
func (s *ContextStream) Release(n int) {
	s.mu.Lock()
	k := 0
	for k < len(s.held) && s.held[k].end <= n {
		k++
	}
	done := s.held[:k:k]
	s.held = s.held[k:]
	s.mu.Unlock()
	for _, c := range done {
		s.pool.Put(c.blocks)
	}
}

// Close stops the stream early. It may be called at any time, more than
// once, and after io.EOF.
func (s *ContextStream) Close() {
	s.closed.Do(func() {
		close(s.stop)
		for range s.chunks { // let the producer see stop and finish
		}
	})
}

// produce parses and projects the window chunk by chunk and sends the
// chunks in order; it closes s.chunks when done.
func (s *ContextStream) produce(b *contextBuilder, r io.ReaderAt, w contextWindow) {
	defer close(s.chunks)
	send := func(c streamChunk) bool {
		select {
		case s.chunks <- c:
			return true
		case <-s.stop:
			return false
		}
	}
	if len(w.head) > 0 && !send(streamChunk{msgs: w.head}) {
		return
	}
	n := len(b.nodes)
	var p parsePart
	p.st.p.UsePool(&s.pool)
	for start := w.start; start < n; {
		end := b.chunkEnd(start)
		if err := p.parse(b, r, start, end); err != nil {
			send(streamChunk{err: err})
			return
		}
		msgs := make([]ContextMessage, 0, end-start)
		for i := start; i < end; i++ {
			var err error
			if msgs, err = b.appendMessage(msgs, &w, i); err != nil {
				send(streamChunk{err: err})
				return
			}
			b.vals[i] = jsonl.Value{} // the message holds what it needs
		}
		// A chunk without messages keeps its blocks for the next one (the
		// values parsed for it are dropped).
		if len(msgs) > 0 && !send(streamChunk{msgs: msgs, blocks: p.st.p.TakeBlocks()}) {
			return
		}
		start = end
	}
}

// chunkEnd is the end of the chunk of path entries starting at start: about
// streamChunkBytes of lines.
func (b *contextBuilder) chunkEnd(start int) int {
	var size int64
	i := start
	for ; i < len(b.nodes) && size < streamChunkBytes; i++ {
		size += int64(b.rec(i).n)
	}
	return i
}

// parsePart is the reusable state of the stream's parsing.
type parsePart struct {
	want []wanted
	st   readState
}

// parse parses the not yet parsed message, custom message and branch
// summary entries among path entries [start, end).
func (p *parsePart) parse(b *contextBuilder, r io.ReaderAt, start, end int) error {
	p.want = p.want[:0]
	for i := start; i < end; i++ {
		switch r := b.rec(i); r.typ {
		case TypeMessage, TypeCustomMessage, TypeBranchSummary:
			if b.vals[i].Kind() == jsonl.Null {
				p.want = append(p.want, wanted{rec: int32(i), loc: r.lineLoc, dst: &b.vals[i]})
			}
		}
	}
	if len(p.want) == 0 {
		return nil
	}
	// Lines are read in file order; a branch may go back in the file.
	sort.Slice(p.want, func(i, j int) bool { return p.want[i].loc.off < p.want[j].loc.off })
	return p.st.read(r, p.want)
}
