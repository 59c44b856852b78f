package sessiontest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// WriteToolTurn writes a session whose one assistant turn makes n tool
// calls, each followed (when results is true) by its result, then a closing
// answer: the shape that makes a check or a replay quadratic in the calls
// of a turn if it looks a call up by scanning the turn.
func WriteToolTurn(w io.Writer, n int, results bool) error {
	b := bufio.NewWriterSize(w, 1<<16)
	const ts = `"timestamp":"2026-01-01T00:00:00.000Z"`
	const tail = `"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"timestamp":1767225600000,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5"`
	fmt.Fprintf(b, `{"type":"session","version":3,"id":"turn","%s,"cwd":"/w"}`+"\n", ts[1:])
	fmt.Fprintf(b, `{"type":"message","id":"u1","parentId":null,%s,"message":{"role":"user","content":"go","timestamp":1767225600000}}`+"\n", ts)
	fmt.Fprintf(b, `{"type":"message","id":"a1","parentId":"u1",%s,"message":{"role":"assistant","content":[`, ts)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `{"type":"toolCall","id":"call_%08d","name":"exec","arguments":{"command":"echo %d"}}`, i, i)
	}
	fmt.Fprintf(b, `],"stopReason":"toolUse",%s}}`+"\n", tail)
	parent := "a1"
	if results {
		for i := range n {
			id := fmt.Sprintf("r%08d", i)
			fmt.Fprintf(b, `{"type":"message","id":"%s","parentId":"%s",%s,"message":{"role":"toolResult","toolCallId":"call_%08d","toolName":"exec","content":[{"type":"text","text":"%d"}],"isError":false,"timestamp":1767225600000}}`+"\n", id, parent, ts, i, i)
			parent = id
		}
	}
	fmt.Fprintf(b, `{"type":"message","id":"a2","parentId":"%s",%s,"message":{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop",%s}}`+"\n", parent, ts, tail)
	return b.Flush()
}

// WriteDropped writes a valid session header, n malformed lines (a few
// bytes each, every one dropped by fix and reported by check) and a closing
// user message: the shape that makes memory grow with dropped lines if
// their numbers are kept one by one.
func WriteDropped(w io.Writer, n int) error {
	b := bufio.NewWriterSize(w, 1<<16)
	b.WriteString(`{"type":"session","version":3,"id":"dropped","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n")
	for range n {
		b.WriteString("not json\n")
	}
	b.WriteString(`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1767225600000}}` + "\n")
	return b.Flush()
}

// WriteHugeLine writes a valid session header, one user message whose text
// is n bytes long and a closing assistant answer: the shape that measures
// how many copies of its longest line a command keeps. When broken is true
// the huge line's JSON is cut short before its closing quote, so every
// command judges (and drops or reports) a malformed line of n bytes.
func WriteHugeLine(w io.Writer, n int, broken bool) error {
	b := bufio.NewWriterSize(w, 1<<16)
	const ts = `"timestamp":"2026-01-01T00:00:00.000Z"`
	fmt.Fprintf(b, `{"type":"session","version":3,"id":"huge",%s,"cwd":"/w"}`+"\n", ts)
	fmt.Fprintf(b, `{"type":"message","id":"u1","parentId":null,%s,"message":{"role":"user","content":[{"type":"text","text":"`, ts)
	chunk := bytes.Repeat([]byte("lorem ipsum "), 1<<12)
	for left := n; left > 0; {
		k := min(left, len(chunk))
		b.Write(chunk[:k])
		left -= k
	}
	if !broken {
		b.WriteString(`"}],"timestamp":1767225600000}}`)
	}
	b.WriteString("\n")
	fmt.Fprintf(b, `{"type":"message","id":"a1","parentId":"u1",%s,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15},"timestamp":1767225600000,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5"}}`+"\n", ts)
	return b.Flush()
}
