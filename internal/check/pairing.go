package check

import (
	"fmt"
	"hash/maphash"
	"strings"
	"unsafe"
)

var idSeed = maphash.MakeSeed()

func idHash(id string) uint64 { return maphash.String(idSeed, id) }

// pairing follows tool calls and their results in file order, with the
// rule strict providers apply (Anthropic, Bedrock, OpenAI Responses): the
// results of an assistant's tool calls come right after it, before any
// other message.
type pairing struct {
	turn []pendingCall // calls of the latest assistant turn
	// open maps a call id of turn to its first unanswered call (an index
	// in turn); calls with the same id are chained by pendingCall.next, in
	// order, so that a result finds its call without scanning the turn.
	open map[string]int32
	// text holds the ids and names of turn's calls (copied out of the batch
	// the line lives in); it is reused from turn to turn.
	text []byte
	// seen maps every call id and result id seen (hashed: 16 bytes an id
	// instead of the id itself) to the line of its first assistant and of
	// its latest result. A collision could only change the wording of a
	// finding.
	seen idTable
	// missing are the calls left without a result, reported at the end
	// unless fix inserts their result (code-mode calls).
	missing []missingCall
}

type pendingCall struct {
	id, name, entryID string
	line              int
	answered          bool
	next              int32 // the next call of the turn with the same id, or -1
	last              int32 // on the first call of an id's chain: its last call
}

type missingCall struct {
	Finding
	callID string
}

// idLines are the lines an id was seen on (0: not seen).
type idLines struct{ call, answered int32 }

func (pr *pairing) init() {
	pr.seen.init(0)
	pr.open = map[string]int32{}
}

// reserve makes room for n ids in all.
func (pr *pairing) reserve(n int) { pr.seen.reserve(n) }

// assistant starts a new tool turn with the assistant's calls.
func (pr *pairing) assistant(p *pass, line int, entryID string, calls []callFact) {
	pr.closeTurn(p)
	for _, c := range calls {
		// The same id twice in one turn makes two calls, each answered by
		// its own result in order, as OpenClaw's pairing has it.
		id := pr.keep(c.id)
		k := int32(len(pr.turn))
		pr.turn = append(pr.turn, pendingCall{id: id, name: pr.keep(c.name), entryID: entryID, line: line, next: -1, last: k})
		if first, ok := pr.open[id]; ok {
			pr.turn[pr.turn[first].last].next = k
			pr.turn[first].last = k
		} else {
			pr.open[id] = k
		}
		if l := pr.seen.at(c.hash); l.call == 0 {
			l.call = int32(line)
		}
	}
}

// keep copies s into the turn's text. A copy stays valid until the turn
// closes: growing text moves later copies to a new buffer and leaves the
// earlier ones in the old one.
func (pr *pairing) keep(s string) string {
	if s == "" {
		return ""
	}
	if len(pr.text)+len(s) > cap(pr.text) {
		pr.text = make([]byte, 0, max(2*cap(pr.text), len(s), 1024))
	}
	start := len(pr.text)
	pr.text = append(pr.text, s...)
	return unsafe.String(unsafe.SliceData(pr.text[start:]), len(s))
}

// result matches a tool result against the open turn.
func (pr *pairing) result(p *pass, line int, entryID string, f *facts) {
	if f.resultID == "" {
		if f.aliasKey != "" {
			p.add(OrphanToolResult, line, entryID, fmt.Sprintf("tool result carries its call id only in %q, not toolCallId; OpenClaw 2026.9 does not load it", f.aliasKey))
		}
		return
	}
	if i, ok := pr.open[f.resultID]; ok {
		c := &pr.turn[i]
		c.answered = true
		if c.next < 0 {
			delete(pr.open, f.resultID)
		} else {
			pr.turn[c.next].last = c.last
			pr.open[f.resultID] = c.next
		}
		pr.seen.at(f.resultHash).answered = int32(line) // c.id is f.resultID
		return
	}
	id := f.resultID
	l := pr.seen.at(f.resultHash)
	var msg string
	if l.answered != 0 {
		msg = fmt.Sprintf("duplicate tool result for call %s (first answered at line %d)", quote(id), l.answered)
	} else if l.call != 0 {
		msg = fmt.Sprintf("tool result for call %s (line %d) is not right after its assistant turn: other messages come between", quote(id), l.call)
	} else {
		msg = fmt.Sprintf("no tool call with id %s comes before this result", quote(id))
	}
	l.answered = int32(line)
	p.add(OrphanToolResult, line, entryID, msg)
}

// closeTurn ends the open turn: its unanswered calls are missing results.
func (pr *pairing) closeTurn(p *pass) {
	for _, c := range pr.turn {
		if c.answered || !p.sel.Enabled(MissingToolResult) {
			continue
		}
		check := mustLookup(MissingToolResult)
		pr.missing = append(pr.missing, missingCall{callID: strings.Clone(c.id), Finding: Finding{
			ID: MissingToolResult, Severity: check.Severity, Path: p.path, Line: c.line, EntryID: c.entryID,
			Message: fmt.Sprintf("tool call %s (%s) has no tool result right after it", quote(c.id), nameOr(c.name)),
			Hint:    check.Hint,
		}})
	}
	// A map keeps its size: a large turn's is replaced, so that clearing
	// it after every later turn does not cost that size each time.
	if len(pr.turn) > 1024 {
		pr.open = map[string]int32{}
	} else if len(pr.open) > 0 {
		clear(pr.open)
	}
	clear(pr.turn)
	pr.turn, pr.text = pr.turn[:0], pr.text[:0]
}

// idTable is pairing's map of id hashes to lines, by open addressing: a
// 16-byte slot an id, at most three quarters of the slots used, sized to
// what reserve expects (a power of two is not needed: the hash is scaled
// to the slot count). Unlike a map, its slot for an id can be read ahead
// (prefetch), so that the lookups of a batch overlap.
type idTable struct {
	slots []idSlot
	used  int
}

// idSlot is a slot: key 0 is empty (a hash of 0 is filed as 1).
type idSlot struct {
	key uint64
	idLines
}

func (x *idTable) init(n int) {
	x.slots, x.used = make([]idSlot, max(8, n+n/3+1)), 0
}

// reserve grows the table to hold n ids without growing again.
func (x *idTable) reserve(n int) {
	if n*4 > len(x.slots)*3 {
		x.rehash(n + n/3 + 1)
	}
}

func tableKey(h uint64) uint64 { return max(h, 1) }

// start is the first slot a probe for key looks at.
func (x *idTable) start(key uint64) int { return int(key >> 32 * uint64(len(x.slots)) >> 32) }

// at returns the lines of the id whose hash is h, adding it (not seen:
// zero lines) when it is new. The pointer is valid until the next at.
func (x *idTable) at(h uint64) *idLines {
	if (x.used+1)*4 > len(x.slots)*3 {
		x.rehash(2 * len(x.slots))
	}
	key := tableKey(h)
	i := x.start(key)
	for x.slots[i].key != key {
		if x.slots[i].key == 0 {
			x.slots[i].key = key
			x.used++
			break
		}
		if i++; i == len(x.slots) {
			i = 0
		}
	}
	return &x.slots[i].idLines
}

// prefetch reads the slot where a probe for h starts.
func (x *idTable) prefetch(h uint64) uint64 { return x.slots[x.start(tableKey(h))].key }

func (x *idTable) rehash(size int) {
	old := x.slots
	x.slots = make([]idSlot, size)
	for _, s := range old {
		if s.key == 0 {
			continue
		}
		i := x.start(s.key)
		for x.slots[i].key != 0 {
			if i++; i == len(x.slots) {
				i = 0
			}
		}
		x.slots[i] = s
	}
}
