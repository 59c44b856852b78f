package hygiene

import (
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Tool-result pairing (docs/replay.md; OpenClaw's pairing repair and
// sanitizeToolUseResultPairingForModel, which always passes
// erroredAssistantResultPolicy "drop").

// Texts of synthetic tool results.
const (
	defaultMissingToolResultText   = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
	responsesMissingToolResultText = "aborted"
	syntheticResultDetailKey       = "openclawSyntheticMissingToolResult"
)

// pairingOptions are the options of one pairing pass.
type pairingOptions struct {
	// SyntheticText is the text of inserted results; "" means OpenClaw's
	// default text. The Responses family uses "aborted".
	SyntheticText string
}

// repairToolResultPairing gives every tool call exactly one result placed
// right after its assistant turn, when the policy repairs pairing (else msgs
// is returned unchanged):
//   - a frame is a tool-calling assistant up to the next one; results in it
//     claim the calls' occurrences first in, first out, and are emitted in
//     call order right after the assistant, followed by the frame's other
//     messages;
//   - a second result for a claimed call is dropped (a real one replaces an
//     earlier synthetic one); a result for no call of its frame moves to the
//     single unresolved earlier call with that id, else it is dropped, as are
//     results before the first frame;
//   - a failed turn (stopReason error or aborted) is dropped with its results;
//   - a call left without a result gets a synthetic error result.
//
// Non-object messages are dropped. Kept messages keep Line and EntryID;
// synthetic results have Line 0.
func repairToolResultPairing(r *Run, msgs []Message, opts pairingOptions) []Message {
	if !r.Policy.RepairToolUseResultPairing {
		return msgs
	}
	r.seg.checkHead(msgs, "tool-result pairing")
	r.phase = 1
	frames := classifyPairing(r, msgs)
	r.phase = 2
	resolveDisplacedResults(r, msgs, frames)
	r.phase = 3
	out := assemblePairing(r, msgs, frames, opts)
	r.pairing.release()
	return out
}

// callOccurrence is one tool call of a frame and the result it got.
type callOccurrence struct {
	call      session.ToolCall
	result    *Message // nil = none yet
	synthetic bool     // result is a synthetic missing-result marker
	source    int      // index in msgs of the result's message, -1 = none
	turnLine  int      // Line of the call's assistant message
	held      Message  // what result points to (kept here: no allocation per result)
}

func (o *callOccurrence) attach(r *Run, res Message, source int) {
	o.held = normalizeToolResultName(r, res, o.call)
	o.result, o.source = &o.held, source
	o.synthetic = isSyntheticMissingToolResult(&o.held.V)
}

// unclaimedResult is a result whose id names no call of its frame.
type unclaimedResult struct {
	result Message
	id     string
	source int
}

// pairingFrame is a tool-calling assistant and the messages up to the next.
type pairingFrame struct {
	start, end int
	calls      []session.ToolCall
	occs       []*callOccurrence
	remainder  []int // indexes of the frame's non-result messages
	unclaimed  []unclaimedResult
	failed     bool
}

// classifyPairing splits msgs into frames and attaches each frame's results
// to its calls (OpenClaw's classifyToolUseResultPairing, first pass). The
// frames live in r's pairing room until the next pairing pass.
func classifyPairing(r *Run, msgs []Message) []*pairingFrame {
	if r.pairing == nil {
		r.pairing = &pairingRoom{}
	}
	p := r.pairing
	p.starts, p.calls, p.callEnds = p.starts[:0], p.calls[:0], p.callEnds[:0]
	for i := range msgs {
		if session.Role(&msgs[i].V) != session.RoleAssistant {
			continue
		}
		n := len(p.calls)
		if p.calls = session.AppendToolCalls(p.calls, &msgs[i].V); len(p.calls) > n {
			p.starts, p.callEnds = append(p.starts, i), append(p.callEnds, len(p.calls))
		}
	}
	p.grow(len(p.starts), len(p.calls))
	frames, store := p.frames[:len(p.starts)], p.store[:len(p.starts)]
	occs, ptrs := p.occs[:len(p.calls)], p.ptrs[:len(p.calls)]
	var q frameQueues
	from := 0
	for k, start := range p.starts {
		end := len(msgs)
		if k+1 < len(p.starts) {
			end = p.starts[k+1]
		}
		to := p.callEnds[k]
		frames[k] = &store[k]
		classifyFrame(r, msgs, frames[k], start, end, p.calls[from:to:to], occs[from:to:to], ptrs[from:to:to], &q)
		from = to
	}
	return frames
}

// pairingRoom is the memory classifyPairing reuses from one pairing pass
// to the next (a segmented replay makes one per segment): the tool-calling
// turns, their calls, the frames and the call occurrences.
type pairingRoom struct {
	starts, callEnds []int // each frame's assistant, and the end of its calls in calls
	calls            []session.ToolCall
	frames           []*pairingFrame
	store            []pairingFrame
	occs             []callOccurrence
	ptrs             []*callOccurrence
}

// grow makes room for frames frames and calls call occurrences.
func (p *pairingRoom) grow(frames, calls int) {
	if cap(p.store) < frames {
		p.frames, p.store = make([]*pairingFrame, frames), make([]pairingFrame, frames)
	}
	if cap(p.occs) < calls {
		p.occs, p.ptrs = make([]callOccurrence, calls), make([]*callOccurrence, calls)
	}
}

// maxPairingRoom is the most call occurrences a pairingRoom keeps room for
// after a pass: a segment's worth, not a whole-list replay's.
const maxPairingRoom = 1 << 16

// release lets go of what the last pass's frames point to (messages,
// results): its frames stay as room, their lists empty; a room grown past
// maxPairingRoom goes.
func (p *pairingRoom) release() {
	if cap(p.occs) > maxPairingRoom || cap(p.store) > maxPairingRoom {
		*p = pairingRoom{}
		return
	}
	for i := range p.store[:len(p.starts)] {
		f := &p.store[i]
		clear(f.unclaimed)
		*f = pairingFrame{remainder: f.remainder[:0], unclaimed: f.unclaimed[:0]}
	}
	clear(p.occs[:len(p.calls)])
	clear(p.ptrs[:len(p.calls)])
	clear(p.frames[:len(p.starts)])
	clear(p.calls) // the calls' ids and names alias the messages
}

// frameQueues are classifyFrame's queues: pending holds the calls without
// a result, synthetic those claimed by a synthetic result (replaceable).
type frameQueues struct {
	pending, synthetic callQueues
}

// reset empties the queues, keeping their room.
func (q *frameQueues) reset() {
	q.pending.reset()
	q.synthetic.reset()
}

// callQueues holds each call id's occurrences, first in first out. A frame
// usually has a handful of calls: a list searched in order costs less than
// a map, which is built only for frames with many distinct ids.
type callQueues struct {
	ids    []string
	queues [][]*callOccurrence
	byID   map[string]int // index of each id, once there are many
}

const callQueuesMapAt = 32

func (c *callQueues) index(id string) int {
	if c.byID != nil {
		if i, ok := c.byID[id]; ok {
			return i
		}
		return -1
	}
	for i := range c.ids {
		if c.ids[i] == id {
			return i
		}
	}
	return -1
}

// get returns id's queue (nil when it has none).
func (c *callQueues) get(id string) []*callOccurrence {
	if i := c.index(id); i >= 0 {
		return c.queues[i]
	}
	return nil
}

// set replaces id's queue.
func (c *callQueues) set(id string, q []*callOccurrence) {
	if i := c.index(id); i >= 0 {
		c.queues[i] = q
		return
	}
	c.ids, c.queues = append(c.ids, id), append(c.queues, q)
	switch {
	case c.byID != nil:
		c.byID[id] = len(c.ids) - 1
	case len(c.ids) == callQueuesMapAt:
		c.byID = make(map[string]int, 2*len(c.ids))
		for i, k := range c.ids {
			c.byID[k] = i
		}
	}
}

func (c *callQueues) push(id string, o *callOccurrence) { c.set(id, append(c.get(id), o)) }

// reset empties c, keeping its room.
func (c *callQueues) reset() {
	clear(c.queues) // drop the references to the last frame's occurrences
	c.ids, c.queues, c.byID = c.ids[:0], c.queues[:0], nil
}

// classifyFrame fills f for the frame msgs[start:end]; store and occs are
// room for its calls' occurrences, q the queues to use.
func classifyFrame(r *Run, msgs []Message, f *pairingFrame, start, end int, calls []session.ToolCall,
	store []callOccurrence, occs []*callOccurrence, q *frameQueues) {
	asst := &msgs[start].V
	*f = pairingFrame{start: start, end: end, calls: calls, remainder: f.remainder[:0], unclaimed: f.unclaimed[:0]}
	stop := asst.Get("stopReason").StrOr("")
	f.failed = stop == "error" || stop == "aborted"
	q.reset()
	pending, synthetic := &q.pending, &q.synthetic
	f.occs = occs
	for k, c := range f.calls {
		o := &store[k]
		*o = callOccurrence{call: c, source: -1, turnLine: msgs[start].Line}
		f.occs[k] = o
		pending.push(c.ID, o)
	}
	for i := start + 1; i < end; i++ {
		m := msgs[i]
		if !m.V.IsObject() {
			r.Record("tool-result-pairing/non-object", &m, "message is %s, not an object: removed", m.V.Kind())
			continue
		}
		if session.Role(&m.V) != session.RoleToolResult {
			f.remainder = append(f.remainder, i)
			continue
		}
		res := normalizeLegacyToolResultID(r, m, f.calls)
		id := session.ToolResultID(&res.V)
		if q := pending.get(id); id != "" && len(q) > 0 {
			o := q[0]
			pending.set(id, q[1:])
			o.attach(r, res, i)
			if o.synthetic {
				synthetic.push(id, o)
			}
			continue
		}
		if id == "" || !f.hasCall(id) {
			f.unclaimed = append(f.unclaimed, unclaimedResult{result: res, id: id, source: i})
			continue
		}
		if q := synthetic.get(id); len(q) > 0 && !isSyntheticMissingToolResult(&res.V) {
			o := q[0]
			synthetic.set(id, q[1:])
			r.Record("tool-result-pairing/duplicate", &msgs[o.source], "synthetic result for %s replaced by a later real result", id)
			o.attach(r, res, i)
			continue
		}
		r.Record("tool-result-pairing/duplicate", &m, "second result for tool call %s: dropped", id)
	}
}

func (f *pairingFrame) hasCall(id string) bool {
	for _, c := range f.calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// resolveDisplacedResults moves each unclaimed result to the single earlier
// unresolved occurrence of its id, or drops it as an orphan (OpenClaw's
// classifyToolUseResultPairing, second pass).
func resolveDisplacedResults(r *Run, msgs []Message, frames []*pairingFrame) {
	unresolved := map[string][]*callOccurrence{}
	for _, f := range frames {
		for _, o := range f.occs {
			if o.result == nil || o.synthetic {
				unresolved[o.call.ID] = append(unresolved[o.call.ID], o)
			}
		}
		for _, u := range f.unclaimed {
			uSynthetic := isSyntheticMissingToolResult(&u.result.V)
			var candidates []*callOccurrence
			if u.id != "" {
				for _, o := range unresolved[u.id] {
					if o.result == nil || o.synthetic && !uSynthetic {
						candidates = append(candidates, o)
					}
				}
			}
			if len(candidates) != 1 {
				r.Record("tool-result-pairing/orphan", &msgs[u.source], "result for %s matches no unresolved tool call: dropped", orUnknownID(u.id))
				continue
			}
			o := candidates[0]
			if o.result != nil {
				r.Record("tool-result-pairing/duplicate", &msgs[o.source], "synthetic result for %s replaced by a later real result", u.id)
			}
			r.Record("tool-result-pairing/displaced", &msgs[u.source], "result for %s moved back to its tool call (line %d)", u.id, o.turnLine)
			o.attach(r, u.result, u.source)
		}
	}
}

// assemblePairing writes the frames out: unframed results dropped; each
// kept frame as assistant, results in call order (synthetic where missing),
// then its other messages; failed frames without assistant and results.
func assemblePairing(r *Run, msgs []Message, frames []*pairingFrame, opts pairingOptions) []Message {
	text := opts.SyntheticText
	if text == "" {
		text = defaultMissingToolResultText
	}
	out := editedList{src: msgs} // usually msgs as it is: no copy then
	cursor := 0
	unframed := func(end int) {
		for ; cursor < end; cursor++ {
			m := msgs[cursor]
			switch {
			case !m.V.IsObject():
				r.Record("tool-result-pairing/non-object", &m, "message is %s, not an object: removed", m.V.Kind())
			case session.Role(&m.V) == session.RoleToolResult:
				r.Record("tool-result-pairing/orphan", &m, "result for %s comes before any tool call: dropped", orUnknownID(session.ToolResultID(&m.V)))
			default:
				out.add(m)
			}
		}
	}
	for _, f := range frames {
		unframed(f.start)
		cursor = f.end
		if f.failed {
			recordFailedFrame(r, msgs, f)
		} else {
			out.add(msgs[f.start])
			mark := out.len()
			for _, o := range f.occs {
				if o.result == nil {
					r.Record("tool-result-pairing/synthetic", &msgs[f.start], "tool call %s has no result: synthetic result %q inserted", o.call.ID, text)
					out.add(syntheticToolResult(r, o.call, text))
					continue
				}
				out.add(*o.result)
			}
			recordReorderedResults(r, f, out.list()[mark:])
		}
		for _, i := range f.remainder {
			out.add(msgs[i])
		}
	}
	unframed(len(msgs))
	return out.list()
}

// recordFailedFrame records the removal of a failed turn and its results.
func recordFailedFrame(r *Run, msgs []Message, f *pairingFrame) {
	results := 0
	for _, o := range f.occs {
		if o.result != nil {
			results++
			r.Record("tool-result-pairing/failed-turn", &msgs[o.source], "result for %s belongs to a failed turn: dropped", o.call.ID)
		}
	}
	stop := msgs[f.start].V.Get("stopReason").StrOr("")
	r.Record("tool-result-pairing/failed-turn", &msgs[f.start], "turn ended with stopReason %q: removed with its %d tool call(s) and %d result(s)", stop, len(f.occs), results)
}

// recordReorderedResults records results of f emitted before a frame
// message that preceded them in the input (results of a later frame
// moved back are recorded when they are moved).
func recordReorderedResults(r *Run, f *pairingFrame, results []Message) {
	// minAfter[i] = smallest input index emitted after results[i] in this frame.
	minAfter := f.end
	for _, i := range f.remainder {
		minAfter = min(minAfter, i)
	}
	for k := len(f.occs) - 1; k >= 0; k-- {
		o := f.occs[k]
		if o.result == nil {
			continue
		}
		if o.source < f.end && o.source > minAfter {
			r.Record("tool-result-pairing/displaced", &results[k], "result for %s moved up to follow its tool call", o.call.ID)
		}
		minAfter = min(minAfter, o.source)
	}
}

// syntheticToolResult is OpenClaw's makeMissingToolResult.
func syntheticToolResult(r *Run, c session.ToolCall, text string) Message {
	name := "unknown"
	if c.HasName {
		name = c.Name
	}
	v := jsonl.ObjectOf(
		jsonl.Member{Key: "role", Value: jsonl.StringValue(session.RoleToolResult)},
		jsonl.Member{Key: "toolCallId", Value: jsonl.StringValue(c.ID)},
		jsonl.Member{Key: "toolName", Value: jsonl.StringValue(name)},
		jsonl.Member{Key: "content", Value: jsonl.ArrayValue(jsonl.ObjectOf(
			jsonl.Member{Key: "type", Value: jsonl.StringValue("text")},
			jsonl.Member{Key: "text", Value: jsonl.StringValue(text)},
		))},
		jsonl.Member{Key: "details", Value: jsonl.ObjectOf(
			jsonl.Member{Key: syntheticResultDetailKey, Value: jsonl.BoolValue(true)},
			jsonl.Member{Key: "reason", Value: jsonl.StringValue("missing_tool_result")},
		)},
		jsonl.Member{Key: "isError", Value: jsonl.BoolValue(true)},
		jsonl.Member{Key: "timestamp", Value: jsonl.IntValue(r.NowMillis())},
	)
	return Message{V: v}
}

// isSyntheticMissingToolResult reports a truthy isError with the synthetic
// details flag or a text block holding the default synthetic text. (A
// result whose text is "aborted" counts only while it keeps its details.)
func isSyntheticMissingToolResult(v *jsonl.Value) bool {
	if !v.Get("isError").Truthy() {
		return false
	}
	if v.Get("details").Get(syntheticResultDetailKey).IsTrue() {
		return true
	}
	for _, it := range v.Get("content").Items() {
		b := &it.Value
		if session.BlockType(b) == "text" && b.Get("text").StrOr("") == defaultMissingToolResultText {
			return true
		}
	}
	return false
}

// normalizeToolResultName trims the result's toolName; a blank or missing
// one becomes the call's trimmed name, or "unknown" when toolName was a
// string and the call has no usable name.
func normalizeToolResultName(r *Run, m Message, c session.ToolCall) Message {
	raw, isStr := m.V.GetStr("toolName")
	name := jsonl.TrimJS(raw)
	switch {
	case isStr && name != "":
		if name == raw {
			return m
		}
	case c.HasName && jsonl.TrimJS(c.Name) != "":
		name = jsonl.TrimJS(c.Name)
	case isStr:
		name = "unknown"
	default:
		return m
	}
	r.Record("tool-result-pairing/tool-name", &m, "result toolName %q → %q", raw, name)
	v := shallowObject(&m.V)
	v.Set("toolName", jsonl.StringValue(name))
	m.V = v
	return m
}

// normalizeLegacyToolResultID attaches a result without any id to the
// frame's only call (when the names do not disagree), marking it isError.
func normalizeLegacyToolResultID(r *Run, m Message, calls []session.ToolCall) Message {
	c := legacyResultCall(&m.V, calls)
	if c == nil {
		return m
	}
	r.Record("tool-result-pairing/legacy-id", &m, "result without an id attached to tool call %s as an error", c.ID)
	v := shallowObject(&m.V)
	v.Set("toolCallId", jsonl.StringValue(c.ID))
	v.Set("isError", jsonl.BoolValue(true))
	m.V = v
	return m
}

// legacyResultCall returns the call a result without any id answers: the
// only call of its turn, unless both name a (trimmed) tool and the names
// differ. It returns nil when the result has an id or does not qualify.
func legacyResultCall(v *jsonl.Value, calls []session.ToolCall) *session.ToolCall {
	if session.ToolResultID(v) != "" || len(calls) != 1 {
		return nil
	}
	resultName := jsonl.TrimJS(v.Get("toolName").StrOr(""))
	callName := jsonl.TrimJS(calls[0].Name)
	if resultName != "" && callName != "" && resultName != callName {
		return nil
	}
	return &calls[0]
}

func orUnknownID(id string) string {
	if id == "" {
		return "(no id)"
	}
	return id
}
