package repair

import (
	"cmp"
	"hash/maphash"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Classifier classifies the lines of one file, in order, exactly as
// OpenClaw's repairSessionFileIfNeeded does, and plans the repair. Use one
// per file: call [Classifier.Line] for every physical line (blank ones
// too), then [Classifier.Finish].
//
// Memory is bounded by the longest line plus 16 bytes per tool result and
// the tool calls still waiting for a result (the synthetic tool-result
// rules of fix-rules.md §4 need to know every result id in the file); it
// never holds the file. Result ids are kept as 128-bit hashes: two distinct
// ids collide with odds far below one in 2^64 for any real file.
type Classifier struct {
	sc        scanner
	plan      Plan
	seen      bool // a surviving entry was seen
	header    bool // the first surviving entry is a valid session header
	irregular bool // a line whose output form is not its bytes plus "\n"

	results  []idHash         // every tool-result id, hashed
	calls    []pendingCall    // code-mode and message-tool calls without a later result yet
	waiting  []pendingCall    // message-tool calls of the last Responses assistant, until its next message entry
	byID     map[string][]int // call id -> indexes in calls of the unresolved calls with it
	resolved int              // pending calls resolved since the last compaction

	offset, size int64 // the current line's place in the input
}

// pendingCall is a tool call that may get a synthetic result (§4).
type pendingCall struct {
	Insert
	pass     int  // 0: code-mode (pass A), 1: message tool before a mirror (pass B)
	resolved bool // a tool result with its id was seen
}

// NewClassifier returns a Classifier for one file.
func NewClassifier() *Classifier {
	return &Classifier{byID: map[string][]int{}}
}

// Line classifies one physical line. l.Bytes is not retained; the verdict's
// Value (Rewrite only) does not alias it.
func (c *Classifier) Line(l jsonl.Line) Verdict {
	c.plan.Lines = l.Num
	c.offset, c.size = l.Offset, l.Size()
	v := Verdict{Line: l.Num}
	if l.Blank {
		v.Action = Blank
		c.plan.BlankLines++
		c.irregular = true
		return v
	}
	if !c.irregular && (l.CR || !l.Newline || !utf8.Valid(l.Bytes)) {
		c.irregular = true
	}
	if err := c.sc.scan(l.Bytes); err != nil {
		v.Action, v.Rules, v.Err = Drop, RuleMalformedLine, jsonl.Validate(l.Bytes)
		c.plan.Counts.DroppedLines++
		c.record(v)
		return v
	}
	if c.sc.needsExact() {
		return c.exact(l, v)
	}
	v.Reserialize = c.sc.overflow
	c.record(v)
	c.entry(l.Num, c.sc.isHeader(), c.sc.isMessageEntry(), false)
	if id := c.sc.resultID(); id != "" {
		c.addResult(id)
	}
	return v
}

// exact classifies a line with a full parse and the reference rules.
func (c *Classifier) exact(l jsonl.Line, v Verdict) Verdict {
	val, err := jsonl.Parse(l.Bytes)
	if err != nil { // unreachable: the scanner accepted the line
		v.Action, v.Rules, v.Err = Drop, RuleMalformedLine, err
		c.plan.Counts.DroppedLines++
		c.record(v)
		return v
	}
	res := classifyEntry(val)
	v.Action, v.Rules, v.CorruptedImages = res.action, res.rules, res.images
	switch res.action {
	case Drop:
		c.plan.Counts.DroppedLines++
		c.record(v)
		return v
	case Rewrite:
		c.plan.Counts.add(res)
		v.Value = &res.value
	default:
		v.Reserialize = c.sc.overflow
	}
	c.record(v)
	c.track(l.Num, &res.value)
	return v
}

// record notes a line a rewrite does not copy as is.
func (c *Classifier) record(v Verdict) {
	if v.Changed() {
		c.plan.Changes = append(c.plan.Changes, Change{Line: v.Line, Offset: c.offset, Size: c.size, Action: v.Action, Rules: v.Rules, CorruptedImages: v.CorruptedImages, Reserialize: v.Reserialize})
	}
}

// track feeds a surviving, fully parsed entry to the header check and the
// synthetic tool-result rules.
func (c *Classifier) track(line int, e *jsonl.Value) {
	msg := e.Get("message")
	isMsg := isMessageEntry(e)
	c.entry(line, isSessionHeader(e), isMsg, isMsg && isDeliveryMirror(msg))
	if !isMsg {
		return
	}
	switch session.Role(msg) {
	case session.RoleToolResult:
		if id := session.ToolResultID(msg); id != "" {
			c.addResult(id)
		}
	case session.RoleAssistant:
		c.assistant(line, e, msg)
	}
}

// entry notes a surviving entry: the first one must be the header, and a
// message entry ends the wait of the previous Responses assistant for its
// next message entry (pass B confirms its calls only before a mirror).
func (c *Classifier) entry(line int, header, isMsg, mirror bool) {
	if !c.seen {
		c.seen, c.header = true, header
		c.plan.FirstEntryLine = line
	}
	c.plan.Entries++
	if !isMsg {
		return
	}
	if mirror {
		for _, p := range c.waiting {
			c.addPending(p)
		}
	}
	c.waiting = c.waiting[:0]
}

// assistant collects the calls of an assistant that may need a synthetic
// result: every call of a code-mode turn (pass A) and the message-tool
// calls of a Responses turn, pending its next message entry (pass B).
func (c *Classifier) assistant(line int, e, msg *jsonl.Value) {
	switch {
	case isCodeModeCandidate(msg):
		for _, tc := range session.ToolCalls(msg) {
			c.addPending(pendingCall{Insert: c.newInsert(line, e, tc), pass: 0})
		}
	case isResponsesCandidate(msg):
		for _, tc := range session.ToolCalls(msg) {
			if session.TrimLower(tc.Name) == "message" {
				c.waiting = append(c.waiting, pendingCall{Insert: c.newInsert(line, e, tc), pass: 1})
			}
		}
	}
}

func (c *Classifier) newInsert(line int, e *jsonl.Value, tc session.ToolCall) Insert {
	in := Insert{AfterLine: line, AfterOffset: c.offset + c.size, ToolCallID: tc.ID, ToolName: tc.Name}
	if !tc.HasName {
		in.ToolName = "unknown"
	}
	in.ParentID, in.HasParentID = e.GetStr("id")
	return in
}

// addPending queues a call; a later result with its id resolves it.
func (c *Classifier) addPending(p pendingCall) {
	c.byID[p.ToolCallID] = append(c.byID[p.ToolCallID], len(c.calls))
	c.calls = append(c.calls, p)
}

// addResult records a tool-result id and resolves the calls waiting for it.
func (c *Classifier) addResult(id string) {
	c.results = append(c.results, hashID(id))
	if len(c.byID) == 0 {
		return
	}
	idx, ok := c.byID[id]
	if !ok {
		return
	}
	delete(c.byID, id)
	for _, i := range idx {
		c.calls[i].resolved = true
	}
	c.resolved += len(idx)
	if c.resolved > 64 && c.resolved*2 > len(c.calls) {
		c.compact()
	}
}

// compact drops resolved calls so memory follows the unresolved ones.
func (c *Classifier) compact() {
	kept := c.calls[:0]
	for _, p := range c.calls {
		if !p.resolved {
			kept = append(kept, p)
		}
	}
	clear(c.calls[len(kept):])
	c.calls, c.resolved = kept, 0
	clear(c.byID)
	for i, p := range c.calls {
		c.byID[p.ToolCallID] = append(c.byID[p.ToolCallID], i)
	}
}

// Finish completes the plan: the early exits of fix-rules.md §2 and the
// synthetic tool results of §4.
func (c *Classifier) Finish() Plan {
	p := c.plan
	p.Verbatim = !c.irregular
	p.Bytes = c.offset + c.size
	switch {
	case !c.seen:
		p.Reason = ReasonEmpty
		return p
	case !c.header:
		p.Reason = ReasonInvalidHeader
		return p
	}
	known := newIDSet(c.results)
	for pass := 0; pass < 2; pass++ {
		for _, pc := range c.calls {
			if pc.pass != pass || pc.resolved || known.has(pc.ToolCallID) {
				continue
			}
			known.add(pc.ToolCallID)
			p.Inserts = append(p.Inserts, pc.Insert)
		}
	}
	sort.SliceStable(p.Inserts, func(i, j int) bool { return p.Inserts[i].AfterLine < p.Inserts[j].AfterLine })
	p.Counts.InsertedToolResults = len(p.Inserts)
	return p
}

// idHash is a 128-bit hash of a tool-result id.
type idHash [2]uint64

var idSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func hashID(id string) idHash {
	return idHash{maphash.String(idSeeds[0], id), maphash.String(idSeeds[1], id)}
}

// idSet answers "is there a result with this id" at the end of the first
// pass: the sorted hashes of the file's results plus the ids of the
// results inserted so far.
type idSet struct {
	sorted   []idHash
	inserted map[string]bool
}

func newIDSet(results []idHash) *idSet {
	slices.SortFunc(results, compareIDHash)
	return &idSet{sorted: results, inserted: map[string]bool{}}
}

func (s *idSet) has(id string) bool {
	if s.inserted[id] {
		return true
	}
	_, found := slices.BinarySearchFunc(s.sorted, hashID(id), compareIDHash)
	return found
}

func (s *idSet) add(id string) { s.inserted[id] = true }

func compareIDHash(a, b idHash) int {
	if c := cmp.Compare(a[0], b[0]); c != 0 {
		return c
	}
	return cmp.Compare(a[1], b[1])
}

// The early-exit reasons (fix-rules.md §2).
const (
	ReasonMissing       = "missing session file"
	ReasonEmpty         = "empty session file"
	ReasonInvalidHeader = "invalid session header"
)

// isSessionHeader: an object with type "session" and a non-empty string id.
func isSessionHeader(e *jsonl.Value) bool {
	id, ok := e.GetStr("id")
	return e.IsObject() && isString(e.Get("type"), "session") && ok && id != ""
}

// isCodeModeCandidate: pass A's assistant (exact strings, not trimmed).
func isCodeModeCandidate(msg *jsonl.Value) bool {
	return isString(msg.Get("role"), session.RoleAssistant) &&
		isString(msg.Get("api"), "openai-chatgpt-responses") &&
		isString(msg.Get("provider"), "openai") && !stoppedByError(msg)
}

// isResponsesCandidate: pass B's assistant, on an OpenAI Responses api.
func isResponsesCandidate(msg *jsonl.Value) bool {
	return isString(msg.Get("role"), session.RoleAssistant) && isResponsesAPI(trimmedStr(msg.Get("api"))) && !stoppedByError(msg)
}

func isResponsesAPI(api string) bool {
	return api == "openai-responses" || api == "azure-openai-responses" || api == "openai-codex-responses"
}

func stoppedByError(msg *jsonl.Value) bool {
	return isString(msg.Get("stopReason"), "error") || isString(msg.Get("stopReason"), "aborted")
}

// isDeliveryMirror: a transcript-only assistant written by OpenClaw itself.
func isDeliveryMirror(msg *jsonl.Value) bool {
	if !isString(msg.Get("role"), session.RoleAssistant) || trimmedStr(msg.Get("provider")) != "openclaw" {
		return false
	}
	model := trimmedStr(msg.Get("model"))
	return model == "delivery-mirror" || model == "gateway-injected"
}

// trimmedStr is OpenClaw's normalizeTrimmedString: a trimmed string, or "".
func trimmedStr(v *jsonl.Value) string {
	s, ok := v.Str()
	if !ok {
		return ""
	}
	return jsonl.TrimJS(s)
}
