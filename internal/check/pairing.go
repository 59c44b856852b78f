package check

import (
	"fmt"
	"hash/maphash"
)

var idSeed = maphash.MakeSeed()

func idHash(id string) uint64 { return maphash.String(idSeed, id) }

// pairing follows tool calls and their results in file order, with the
// rule strict providers apply (Anthropic, Bedrock, OpenAI Responses): the
// results of an assistant's tool calls come right after it, before any
// other message.
type pairing struct {
	turn []pendingCall // calls of the latest assistant turn
	// calls and answered map every call id and result id seen (hashed: 12
	// bytes an id instead of the id itself) to the line of its assistant or
	// result. A collision could only change the wording of a finding.
	calls    map[uint64]int32
	answered map[uint64]int32
	// missing are the calls left without a result, reported at the end
	// unless fix inserts their result (code-mode calls).
	missing []missingCall
}

type pendingCall struct {
	id, name, entryID string
	line              int
	answered          bool
}

type missingCall struct {
	Finding
	callID string
}

func (pr *pairing) init() {
	pr.calls = map[uint64]int32{}
	pr.answered = map[uint64]int32{}
}

// assistant starts a new tool turn with the assistant's calls.
func (pr *pairing) assistant(p *pass, line int, entryID string, calls []callFact) {
	pr.closeTurn(p)
	for _, c := range calls {
		if pr.inTurn(c.id) {
			continue // the same id twice in one turn: one result answers it
		}
		id := p.ids.str(c.id)
		pr.turn = append(pr.turn, pendingCall{id: id, name: p.ids.str(c.name), entryID: entryID, line: line})
		if _, seen := pr.calls[idHash(id)]; !seen {
			pr.calls[idHash(id)] = int32(line)
		}
	}
}

func (pr *pairing) inTurn(id string) bool {
	for _, c := range pr.turn {
		if c.id == id {
			return true
		}
	}
	return false
}

// result matches a tool result against the open turn.
func (pr *pairing) result(p *pass, line int, entryID string, f *facts) {
	if f.resultID == "" {
		if f.aliasKey != "" {
			p.add(OrphanToolResult, line, entryID, fmt.Sprintf("tool result carries its call id only in %q, not toolCallId; OpenClaw 2026.9 does not load it", f.aliasKey))
		}
		return
	}
	for i := range pr.turn {
		c := &pr.turn[i]
		if c.id == f.resultID && !c.answered {
			c.answered = true
			pr.answered[idHash(c.id)] = int32(line)
			return
		}
	}
	id, h := f.resultID, idHash(f.resultID)
	var msg string
	if first, dup := pr.answered[h]; dup {
		msg = fmt.Sprintf("duplicate tool result for call %s (first answered at line %d)", quote(id), first)
	} else if callLine, ok := pr.calls[h]; ok {
		msg = fmt.Sprintf("tool result for call %s (line %d) is not right after its assistant turn: other messages come between", quote(id), callLine)
	} else {
		msg = fmt.Sprintf("no tool call with id %s comes before this result", quote(id))
	}
	pr.answered[h] = int32(line)
	p.add(OrphanToolResult, line, entryID, msg)
}

// closeTurn ends the open turn: its unanswered calls are missing results.
func (pr *pairing) closeTurn(p *pass) {
	for _, c := range pr.turn {
		if c.answered || !p.sel.Enabled(MissingToolResult) {
			continue
		}
		check := mustLookup(MissingToolResult)
		pr.missing = append(pr.missing, missingCall{callID: c.id, Finding: Finding{
			ID: MissingToolResult, Severity: check.Severity, Path: p.path, Line: c.line, EntryID: c.entryID,
			Message: fmt.Sprintf("tool call %s (%s) has no tool result right after it", quote(c.id), nameOr(c.name)),
			Hint:    check.Hint,
		}})
	}
	pr.turn = pr.turn[:0]
}
