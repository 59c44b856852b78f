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
// too), then [Classifier.Finish]. The work splits in two for callers that
// spread lines over goroutines: [LineJudge.Judge] is the per-line part (any
// goroutine, any order) and [Classifier.Apply] the ordered part; Line is
// the two in sequence.
//
// Memory is bounded by the longest line plus 16 bytes per tool result and
// the tool calls still waiting for a result (the synthetic tool-result
// rules of docs/fix.md need to know every result id in the file); it
// never holds the file. Result ids are kept as 128-bit hashes: two distinct
// ids collide with odds far below one in 2^64 for any real file.
type Classifier struct {
	judge     LineJudge
	plan      Plan
	seen      bool // a surviving entry was seen
	header    bool // the first surviving entry is a valid session header
	irregular bool // a line whose output form is not its bytes plus "\n"

	results  idList           // every tool-result id, hashed
	calls    []pendingCall    // code-mode and message-tool calls without a later result yet
	waiting  []pendingCall    // message-tool calls of the last Responses assistant, until its next message entry
	byID     map[idHash][]int // call id -> indexes in calls of the unresolved calls with it
	resolved int              // pending calls resolved since the last compaction

	end int64 // input offset after the last line
}

// pendingCall is a tool call that may get a synthetic result.
type pendingCall struct {
	Insert
	id       idHash
	pass     int  // 0: code-mode (pass A), 1: message tool before a mirror (pass B)
	resolved bool // a tool result with its id was seen
}

// NewClassifier returns a Classifier for one file.
func NewClassifier() *Classifier {
	return &Classifier{byID: map[idHash][]int{}}
}

// Line classifies one physical line. l.Bytes is not retained; the verdict's
// Value (Rewrite only) does not alias it.
func (c *Classifier) Line(l jsonl.Line) Verdict {
	var f LineFacts
	c.judge.judge(l, &f)
	return c.Apply(&f)
}

// LineFacts is what one line says on its own, before the state of the
// file (header, pending calls) is applied: the part of the work that can
// run on any goroutine. It never aliases the line.
type LineFacts struct {
	v            Verdict
	offset, size int64
	irregular    bool // output form differs from the bytes plus "\n"
	entry        bool // a surviving entry
	header       bool // a valid session header
	isMsg        bool // a message entry
	mirror       bool // a delivery mirror
	hasResult    bool
	result       idHash        // the tool-result id, when hasResult
	calls        []pendingCall // candidate calls of a code-mode or Responses assistant
}

// End is the input offset just after the line (its terminator included).
func (f *LineFacts) End() int64 { return f.offset + f.size }

// LineJudge computes [LineFacts]. It owns an envelope reader, so use one per
// goroutine; its zero value is ready to use.
type LineJudge struct {
	sc      envelopeReader
	scanned bool // sc holds the scan of the last line
}

// Judge judges one physical line. Afterwards [LineJudge.Envelope] holds
// what the scan noted, until the next call.
func (j *LineJudge) Judge(l jsonl.Line) LineFacts {
	var f LineFacts
	j.judge(l, &f)
	return f
}

// Envelope is the scan of the last judged line; nil when that line was
// blank or not valid JSON. It aliases the line and is overwritten by the
// next Judge.
func (j *LineJudge) Envelope() *Envelope {
	if !j.scanned {
		return nil
	}
	return &j.sc.env
}

// Normalised reports whether JSON.stringify may write the last judged
// line (valid JSON) with values other than the line's: a number it writes
// in another form or as null (jsonl.Scanner's Overflow and NumberForms),
// or invalid UTF-8, which becomes U+FFFD. Everything else it changes
// (white space, escapes, repeated keys, key order) the scan reads as
// JSON.parse does.
func (j *LineJudge) Normalised() bool {
	s := &j.sc.s
	return s.Overflow() || s.BadUTF8() || s.NumberForms()
}

func (j *LineJudge) judge(l jsonl.Line, f *LineFacts) {
	*f = LineFacts{v: Verdict{Line: l.Num}, offset: l.Offset, size: l.Size()}
	j.scanned = false
	if l.Blank {
		f.v.Action, f.irregular = Blank, true
		return
	}
	f.irregular = l.CR || !l.Newline
	if err := j.sc.scan(l.Bytes); err != nil {
		f.irregular = f.irregular || !utf8.Valid(l.Bytes)
		f.v.Action, f.v.Rules, f.v.Err = Drop, RuleMalformedLine, jsonl.Validate(l.Bytes)
		return
	}
	f.irregular = f.irregular || j.sc.s.BadUTF8() // only strings can hold non-ASCII bytes
	j.scanned = true
	if j.sc.needsExact() {
		j.exact(l, f)
		return
	}
	f.v.Reserialize = j.sc.s.Overflow()
	f.entry, f.header, f.isMsg = true, j.sc.isHeader(), j.sc.isMessageEntry()
	if id := j.sc.resultID(); id != "" {
		f.hasResult, f.result = true, hashID(id)
	}
	f.calls = j.sc.candidateCalls(l)
}

// exact classifies a line with a full parse and the reference rules.
func (j *LineJudge) exact(l jsonl.Line, f *LineFacts) {
	val, err := jsonl.Parse(l.Bytes)
	if err != nil { // unreachable: the scanner accepted the line
		f.v.Action, f.v.Rules, f.v.Err = Drop, RuleMalformedLine, err
		return
	}
	res := classifyEntry(val)
	f.v.Action, f.v.Rules, f.v.CorruptedImages = res.action, res.rules, res.images
	switch res.action {
	case Drop:
		return
	case Rewrite:
		f.v.Value = &res.value
	default:
		f.v.Reserialize = j.sc.s.Overflow()
	}
	e := &res.value
	msg := e.Get("message")
	f.entry, f.header, f.isMsg = true, isSessionHeader(e), isMessageEntry(e)
	if !f.isMsg {
		return
	}
	f.mirror = isDeliveryMirror(msg)
	switch session.Role(msg) {
	case session.RoleToolResult:
		if id := session.ToolResultID(msg); id != "" {
			f.hasResult, f.result = true, hashID(id)
		}
	case session.RoleAssistant:
		f.calls = candidateCalls(l, e, msg)
	}
}

// candidateCalls lists the calls of an assistant that may need a synthetic
// result: every call of a code-mode turn (pass A) and the message-tool
// calls of a Responses turn (pass B, pending its next message entry).
func candidateCalls(l jsonl.Line, e, msg *jsonl.Value) []pendingCall {
	pass := 0
	switch {
	case isCodeModeCandidate(msg):
	case isResponsesCandidate(msg):
		pass = 1
	default:
		return nil
	}
	var out []pendingCall
	for _, tc := range session.ToolCalls(msg) {
		if pass == 1 && session.TrimLower(tc.Name) != "message" {
			continue
		}
		in := Insert{AfterLine: l.Num, AfterOffset: l.Offset + l.Size(), ToolCallID: tc.ID, ToolName: tc.Name}
		if !tc.HasName {
			in.ToolName = "unknown"
		}
		in.ParentID, in.HasParentID = e.GetStr("id")
		out = append(out, pendingCall{Insert: in, id: hashID(tc.ID), pass: pass})
	}
	return out
}

// Apply adds one line's facts to the file's state and returns the line's
// verdict. Call it for every line, in line order.
func (c *Classifier) Apply(f *LineFacts) Verdict {
	v := f.v
	c.plan.Lines, c.end = v.Line, f.offset+f.size
	c.irregular = c.irregular || f.irregular
	switch v.Action {
	case Blank:
		c.plan.BlankLines++
	case Drop:
		c.plan.Counts.DroppedLines++
	case Rewrite:
		c.plan.Counts.add(v.Rules, v.CorruptedImages)
	}
	if v.Changed() {
		c.edit(v, f)
	}
	if !f.entry {
		return v
	}
	c.entry(v.Line, f.header, f.isMsg, f.mirror)
	if f.hasResult {
		c.addResult(f.result)
	}
	for _, p := range f.calls {
		if p.pass == 0 {
			c.addPending(p)
		} else {
			c.waiting = append(c.waiting, p)
		}
	}
	return v
}

// edit records a changed line, extending the previous edit when both are
// malformed lines, one right after the other.
func (c *Classifier) edit(v Verdict, f *LineFacts) {
	if n := len(c.plan.Edits); n > 0 && v.Rules == RuleMalformedLine {
		last := &c.plan.Edits[n-1]
		if last.Rules == RuleMalformedLine && last.Line+last.Lines == v.Line && last.Offset+last.Size == f.offset {
			last.Lines++
			last.Size += f.size
			return
		}
	}
	c.plan.Edits = append(c.plan.Edits, LineEdit{Line: v.Line, Lines: 1, Offset: f.offset, Size: f.size, Action: v.Action, Rules: v.Rules, CorruptedImages: v.CorruptedImages, Reserialize: v.Reserialize})
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

// addPending queues a call; a later result with its id resolves it.
func (c *Classifier) addPending(p pendingCall) {
	c.byID[p.id] = append(c.byID[p.id], len(c.calls))
	c.calls = append(c.calls, p)
}

// addResult records a tool-result id and resolves the calls waiting for it.
func (c *Classifier) addResult(h idHash) {
	c.results.add(h)
	if len(c.byID) == 0 {
		return
	}
	idx, ok := c.byID[h]
	if !ok {
		return
	}
	delete(c.byID, h)
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
		c.byID[p.id] = append(c.byID[p.id], i)
	}
}

// Finish completes the plan: the early exits of docs/fix.md and the
// synthetic tool results (docs/fix.md).
func (c *Classifier) Finish() Plan {
	p := c.plan
	p.Verbatim = !c.irregular
	p.Bytes = c.end
	switch {
	case !c.seen:
		p.Reason = ReasonEmpty
		return p
	case !c.header:
		p.Reason = ReasonInvalidHeader
		return p
	}
	known := newIDSet(&c.results, len(c.calls) > 0)
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

// newIDSet builds the set; the sort is skipped when no call is pending
// (the set is then never asked).
func newIDSet(results *idList, needed bool) *idSet {
	s := &idSet{inserted: map[string]bool{}}
	if needed {
		s.sorted = results.all()
		slices.SortFunc(s.sorted, compareIDHash)
	}
	return s
}

// idList is an append-only list of hashes in fixed-size chunks, so that
// growing it never copies what it holds.
type idList struct{ chunks [][]idHash }

const idChunk = 4096

func (l *idList) add(h idHash) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1]) == idChunk {
		l.chunks = append(l.chunks, make([]idHash, 0, idChunk))
		n++
	}
	l.chunks[n-1] = append(l.chunks[n-1], h)
}

func (l *idList) all() []idHash {
	var out []idHash
	for _, c := range l.chunks {
		out = append(out, c...)
	}
	return out
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

// The early-exit reasons (docs/fix.md).
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
