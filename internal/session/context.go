package session

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// ContextMessage is one message of the context, in OpenClaw's in-memory
// shape, with the line it came from.
type ContextMessage struct {
	V       jsonl.Value
	Line    int    // physical line of the entry
	EntryID string // the entry's id (after migration)
}

// Model is the model the branch last used.
type Model struct {
	// Provider and ModelID come from the last model_change (provider,
	// modelId) or the last assistant message (provider, model) on the
	// branch, whichever is later; "" when the member is not a string.
	Provider, ModelID string
}

// CustomEntry is a "custom" entry as provider replay hooks see it
// (OpenClaw's createProviderReplaySessionState().getCustomEntries()).
type CustomEntry struct {
	CustomType string       // trimmed, never empty
	Data       *jsonl.Value // nil when the entry has no data member
	Line       int
}

// Context is what OpenClaw 2026.9.6 builds from a session before replay
// (SessionManager.buildSessionContext()), plus the branch facts replay's
// steps read from the session manager.
type Context struct {
	// Messages are the context messages of the active branch: message
	// entries as stored (after the loader's normalisation), and the
	// compactionSummary, branchSummary and custom messages built from
	// compaction, branch_summary and custom_message entries.
	Messages []ContextMessage
	// ThinkingLevel is the last thinking_level_change on the branch, "off"
	// without one.
	ThinkingLevel string
	// Model is nil when the branch has no model_change and no assistant.
	Model *Model
	// ModelAPI is the api of the last assistant message on the branch ("" if
	// none or not a string).
	ModelAPI string
	// ModelSnapshot is the data of the last "model-snapshot" custom entry on
	// the branch whose data is an object (or array); nil if none.
	ModelSnapshot *jsonl.Value
	// ModelSwitchTimestamp is set when a later snapshot on the branch names
	// another model than the one before it and carries a finite timestamp:
	// the last such timestamp (readModelSnapshotState's latestSwitchTimestamp).
	ModelSwitchTimestamp    float64
	HasModelSwitchTimestamp bool
	// CustomEntries are all indexed custom entries of the file, on the
	// branch or not, in file order.
	CustomEntries []CustomEntry
	// LeafID is the active leaf's id ("" when there is none).
	LeafID string
	// Lines and MalformedLines are as in [Transcript].
	Lines, MalformedLines int
}

// ReadContext loads a transcript from r and builds the context of its
// active branch. It reads r twice: once sequentially for the envelopes,
// then only the lines the context needs.
func ReadContext(r io.ReaderAt) (*Context, error) {
	t, err := load(io.NewSectionReader(r, 0, math.MaxInt64), readerSize(r))
	if err != nil {
		return nil, err
	}
	return t.Context(r)
}

// readerSize is r's size when r can tell it (a file, a bytes.Reader...),
// else 0.
func readerSize(r io.ReaderAt) int64 {
	if rd, ok := r.(io.Reader); ok {
		return inputSize(rd)
	}
	if s, ok := r.(interface{ Size() int64 }); ok {
		return max(s.Size(), 0)
	}
	return 0
}

// Context builds the active branch's context; r must hold the bytes Load
// read.
func (t *Transcript) Context(r io.ReaderAt) (*Context, error) {
	b, ctx, err := t.contextFacts(r, false)
	if err != nil {
		return nil, err
	}
	if err := b.messages(ctx); err != nil {
		return nil, err
	}
	return ctx, nil
}

// contextFacts plans the active branch's context, reads the lines the plan
// needs (with lazy, not the messages), and returns the builder and the
// context without its messages.
func (t *Transcript) contextFacts(r io.ReaderAt, lazy bool) (*contextBuilder, *Context, error) {
	b := &contextBuilder{t: t, path: t.tree.branchNodes(), lazy: lazy}
	b.plan()
	if err := b.read(r); err != nil {
		return nil, nil, err
	}
	ctx := &Context{ThinkingLevel: "off", Lines: t.Lines, MalformedLines: t.MalformedLines}
	if i, ok := t.tree.Leaf(); ok {
		ctx.LeafID = t.tree.ID(i)
	}
	b.branchFacts(ctx)
	b.customEntries(ctx)
	return b, ctx, nil
}

// contextBuilder carries one Context call.
type contextBuilder struct {
	t    *Transcript
	path Path
	// nodes[i] is what the context needs of path node i's line; once the
	// plan is made, the builder reads the branch from nodes and ids alone (a
	// stream lets the transcript go).
	nodes []pathRec
	ids   []byte // the nodes' ids, one after the other
	// boundary is the path index of the last compaction or reset (-1: none);
	// firstKept the path index the kept window starts at.
	boundary, firstKept int
	// vals[i] is the parsed entry of path node i when needed.
	vals []jsonl.Value
	// extra holds parsed entries off the window (custom entries).
	extra map[int32]*jsonl.Value
	want  []wanted
	// lazy leaves the window's messages out of the plan: a ContextStream
	// parses them a chunk at a time.
	lazy bool
}

// lineLoc is where a line is and what kind of entry it holds.
type lineLoc struct {
	off  int64 // byte offset of the parsed text
	n    int32 // its length
	line int32 // physical line number
	typ  EntryType
	// message: the text is a message entry's message member alone.
	message bool
}

// pathRec is a path node's line and the facts of its envelope the context
// reads: 32 bytes and no pointer, so the collector never scans a branch's
// worth of them.
type pathRec struct {
	lineLoc
	role         roleKind
	flags        recFlags
	idOff, idLen uint32 // the entry's id in contextBuilder.ids
}

func (r *pathRec) has(f recFlags) bool { return r.flags&f != 0 }

// wanted is one line to parse and where its value goes; rec is the line's
// record index (the order lines are read in).
type wanted struct {
	rec int32
	loc lineLoc
	dst *jsonl.Value
}

func (b *contextBuilder) rec(pathIdx int) *pathRec { return &b.nodes[pathIdx] }

// locOf is record i's lineLoc.
func (b *contextBuilder) locOf(i int) lineLoc {
	r := &b.t.recs[i]
	return lineLoc{off: r.off, n: r.n, line: r.line, typ: r.typ, message: r.has(fMessageText)}
}

// pathRecs builds nodes and ids from the transcript.
func (b *contextBuilder) pathRecs() {
	b.nodes = make([]pathRec, len(b.path.Nodes))
	size := 0
	for _, k := range b.path.Nodes {
		size += len(b.t.tree.ID(k))
	}
	b.ids = make([]byte, 0, size)
	for i, k := range b.path.Nodes {
		r := &b.t.recs[k]
		id := b.t.tree.ID(k)
		b.nodes[i] = pathRec{lineLoc: b.locOf(k), role: r.role, flags: r.flags, idOff: uint32(len(b.ids)), idLen: uint32(len(id))}
		b.ids = append(b.ids, id...)
	}
}

// id is path node i's entry id (sharing the memory of b.ids, which is
// never written again).
func (b *contextBuilder) id(i int) string {
	n := &b.nodes[i]
	if n.idLen == 0 {
		return ""
	}
	return unsafe.String(&b.ids[n.idOff], n.idLen)
}

// plan finds the window and lists every line to parse.
func (b *contextBuilder) plan() {
	b.pathRecs()
	n := len(b.path.Nodes)
	b.vals = make([]jsonl.Value, n)
	if b.lazy {
		b.want = make([]wanted, 0, 64) // a handful of entries besides the messages
	} else {
		b.want = make([]wanted, 0, n+8) // every node at most, and a few repeats
	}
	b.extra = map[int32]*jsonl.Value{}
	b.boundary, b.firstKept = -1, -1
	for i := n - 1; i >= 0; i-- {
		if typ := b.rec(i).typ; typ == TypeCompaction || typ == TypeReset {
			b.boundary = i
			break
		}
	}
	if b.boundary >= 0 {
		b.firstKept = b.boundary
		if fk, ok := b.boundaryFirstKept(); ok {
			for i := 0; i < b.boundary; i++ {
				if b.id(i) == fk {
					b.firstKept = i
					break
				}
			}
		}
	}
	lastModel, lastAssistant, lastThinking := -1, -1, -1
	for i := 0; i < n; i++ {
		r := b.rec(i)
		switch r.typ {
		case TypeMessage, TypeCustomMessage, TypeBranchSummary:
			if i >= b.firstKept && (!b.lazy || b.inResetWindow(i)) {
				b.need(i)
			}
			if r.typ == TypeMessage && r.role == roleAssistant {
				lastModel, lastAssistant = i, i
			}
		case TypeModelChange:
			lastModel = i
		case TypeThinkingLevelChange:
			lastThinking = i
		case TypeCustom:
			if r.has(fSnapshot) {
				b.need(i)
			}
		}
	}
	for _, i := range []int{b.boundary, lastModel, lastAssistant, lastThinking} {
		if i >= 0 {
			b.need(i)
		}
	}
	for i := range b.t.recs {
		if r := &b.t.recs[i]; r.typ == TypeCustom && r.has(fIndexed) {
			v := new(jsonl.Value)
			b.extra[int32(i)] = v
			b.want = append(b.want, wanted{rec: int32(i), loc: b.locOf(i), dst: v})
		}
	}
	sort.Slice(b.want, func(i, j int) bool { return b.want[i].rec < b.want[j].rec })
}

// inResetWindow reports a path index between a reset boundary's first kept
// entry and the reset: resetKept reads those messages all at once.
func (b *contextBuilder) inResetWindow(i int) bool {
	return b.boundary >= 0 && b.rec(b.boundary).typ == TypeReset && i >= b.firstKept && i < b.boundary
}

// need marks path node i for parsing.
func (b *contextBuilder) need(i int) {
	b.want = append(b.want, wanted{rec: int32(b.path.Nodes[i]), loc: b.nodes[i].lineLoc, dst: &b.vals[i]})
}

// boundaryFirstKept is the boundary's firstKeptEntryId as getBranch
// normalises it.
func (b *contextBuilder) boundaryFirstKept() (string, bool) {
	i := b.boundary
	node := int32(b.path.Nodes[i])
	onPath, _ := b.t.tree.entryParent(node) // the parent the walk followed from it
	parent := none
	if i > 0 || onPath.s != "" {
		parent = some(onPath.s)
	}
	return b.t.tree.resolveFirstKept(node, parent)
}

// read parses every wanted line. Large reads are split into contiguous
// parts parsed in parallel (parsing dominates the cost of a replay).
func (b *contextBuilder) read(r io.ReaderAt) error {
	parts := b.split(parseWorkers())
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = b.readPart(r, parts[p])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// parseWorkers is how many goroutines the second pass may use (a test seam).
var parseWorkers = func() int { return runtime.GOMAXPROCS(0) }

// minParallelBytes is the least input worth a second parsing goroutine.
const minParallelBytes = 8 << 20

// split cuts the sorted wanted list into at most n parts of similar byte
// size, never between two entries for the same line.
func (b *contextBuilder) split(n int) [][]wanted {
	var total int64
	for _, w := range b.want {
		total += int64(w.loc.n)
	}
	if n > 4 {
		n = 4
	}
	if n <= 1 || total < minParallelBytes {
		return [][]wanted{b.want}
	}
	var parts [][]wanted
	start, acc := 0, int64(0)
	for k, w := range b.want {
		if acc >= total/int64(n) && len(parts) < n-1 && b.want[k-1].rec != w.rec {
			parts = append(parts, b.want[start:k])
			start, acc = k, 0
		}
		acc += int64(w.loc.n)
	}
	return append(parts, b.want[start:])
}

// Blocks of the second pass: wanted lines closer than maxBlockGap are read
// with one ReadAt into one buffer of at most maxBlockBytes (a longer line
// gets a block of its own). The buffer is reused from block to block: the
// parsed values hold copies of their strings, not the lines.
const (
	maxBlockGap   = 64 << 10
	maxBlockBytes = 4 << 20
)

// readPart parses the lines of one part, block by block.
func (b *contextBuilder) readPart(r io.ReaderAt, want []wanted) error {
	var st readState
	return st.read(r, want)
}

// readState is the parser and buffers of reading parts, kept from one part
// to the next.
type readState struct {
	p    jsonl.Parser
	slim slimEntries
	buf  []byte
}

// read parses the lines of want (sorted by record), block by block.
func (st *readState) read(r io.ReaderAt, want []wanted) error {
	for start := 0; start < len(want); {
		end, from, to := block(want, start)
		if int64(cap(st.buf)) < to-from {
			st.buf = jsonl.AllocLine(int(to - from))
		}
		buf := st.buf[:to-from]
		if _, err := r.ReadAt(buf, from); err != nil && !(errors.Is(err, io.EOF) && len(buf) > 0) {
			return fmt.Errorf("line %d: %w", want[start].loc.line, err)
		}
		for k := start; k < end; k++ {
			w := want[k]
			if k > 0 && want[k-1].rec == w.rec { // listed twice: parse once
				*w.dst = *want[k-1].dst
				continue
			}
			loc := &w.loc
			line := buf[loc.off-from : loc.off-from+int64(loc.n) : loc.off-from+int64(loc.n)]
			v, err := st.slim.parse(&st.p, line, loc)
			if err != nil {
				return fmt.Errorf("line %d changed while reading: %w", loc.line, err)
			}
			*w.dst = v
		}
		start = end
		if cap(st.buf) > maxBlockBytes {
			st.buf = nil // only a huge line grows it past a block: do not keep it for the next
		}
	}
	return nil
}

// slimEntries parses the wanted lines. A message entry is kept as an
// object holding only its message member, all the context reads of it: only
// the message's text is parsed (the envelope scan found where it is), and
// the one-member lists are carved from shared blocks.
type slimEntries struct {
	free []jsonl.Member
}

func (s *slimEntries) parse(p *jsonl.Parser, text []byte, loc *lineLoc) (jsonl.Value, error) {
	if !loc.message {
		return p.Parse(text)
	}
	msg, err := p.ParseMember(text)
	if err != nil {
		return msg, err
	}
	if len(s.free) == 0 {
		s.free = make([]jsonl.Member, 4096)
	}
	s.free[0] = jsonl.Member{Key: "message", Value: msg}
	e := jsonl.ObjectValue()
	e.SetItems(s.free[:1:1])
	s.free = s.free[1:]
	return e, nil
}

// block extends a block from want[start]: it returns the end index and the
// byte range to read.
func block(want []wanted, start int) (end int, from, to int64) {
	first := &want[start].loc
	from, to = first.off, first.off+int64(first.n)
	end = start + 1
	for ; end < len(want); end++ {
		rec := &want[end].loc
		next := rec.off + int64(rec.n)
		if rec.off-to > maxBlockGap || next-from > maxBlockBytes {
			if rec.off >= from && next <= to { // a repeat of a line already inside
				continue
			}
			break
		}
		to = max(to, next)
	}
	return end, from, to
}

// messages is iterateSessionContextMessages.
func (b *contextBuilder) messages(ctx *Context) error {
	w, err := b.window()
	if err != nil {
		return err
	}
	ctx.Messages = append(ctx.Messages, w.head...)
	ctx.Messages = growMessages(ctx.Messages, len(b.nodes))
	for i := w.start; i < len(b.nodes); i++ {
		if ctx.Messages, err = b.appendMessage(ctx.Messages, &w, i); err != nil {
			return err
		}
	}
	return nil
}

// contextWindow is where the context's messages come from: head (the
// compaction summary, if any) and then the path entries from start on that
// appendMessage keeps.
type contextWindow struct {
	head      []ContextMessage
	start     int
	resetKept map[int]bool
}

// window finds the context window; the boundary entry (and, after a reset,
// the retained messages) must be parsed.
func (b *contextBuilder) window() (contextWindow, error) {
	var w contextWindow
	if b.boundary >= 0 {
		r := b.rec(b.boundary)
		if r.typ == TypeCompaction {
			v, err := b.compactionSummary(b.boundary)
			if err != nil {
				return w, err
			}
			w.head = []ContextMessage{b.message(b.boundary, v)}
		} else {
			w.resetKept = b.resetKept()
		}
		w.start = max(b.firstKept, 0)
	}
	return w, nil
}

// appendMessage appends path entry i's context message, if it has one, to
// msgs; the entry must be parsed when it is of a type that has one.
func (b *contextBuilder) appendMessage(msgs []ContextMessage, w *contextWindow, i int) ([]ContextMessage, error) {
	retained := i < b.boundary
	if i == b.boundary || retained && (i < b.firstKept || w.resetKept != nil && !w.resetKept[i]) {
		return msgs, nil
	}
	v, ok, err := b.project(i, retained, w.resetKept != nil && w.resetKept[i])
	if err != nil || !ok {
		return msgs, err
	}
	return append(msgs, b.message(i, v)), nil
}

func growMessages(m []ContextMessage, n int) []ContextMessage {
	if cap(m)-len(m) >= n {
		return m
	}
	out := make([]ContextMessage, len(m), len(m)+n)
	copy(out, m)
	return out
}

func (b *contextBuilder) message(i int, v jsonl.Value) ContextMessage {
	n := &b.nodes[i]
	return ContextMessage{V: v, Line: int(n.line), EntryID: b.id(i)}
}

// project turns path entry i into its context message, if it has one.
func (b *contextBuilder) project(i int, retained, resetRetained bool) (jsonl.Value, bool, error) {
	r := b.rec(i)
	entry := &b.vals[i]
	switch r.typ {
	case TypeMessage:
		msg := b.loadedMessage(i)
		if !resetRetained && msg.Get("excludeFromContext").IsTrue() {
			return jsonl.Value{}, false, nil
		}
		if retained && Role(&msg) == RoleAssistant {
			msg = withoutCheckpoint(msg)
		}
		return msg, true, nil
	case TypeCustomMessage:
		v, err := b.customMessage(i)
		return v, err == nil, err
	case TypeBranchSummary:
		if s, _ := entry.GetStr("summary"); s == "" {
			return jsonl.Value{}, false, nil
		}
		v, err := b.branchSummary(i)
		return v, err == nil, err
	}
	return jsonl.Value{}, false, nil
}

// loadedMessage is entry.message as the loader leaves it.
func (b *contextBuilder) loadedMessage(i int) jsonl.Value {
	msg := *b.vals[i].Get("message")
	normalizeLoadedMessage(&msg, b.rec(i).has(fHookMigrated))
	return msg
}

// normalizeLoadedMessage applies, in order, normalizeLoadedFileEntry (text
// content of assistant and tool results becomes a text block and drops a
// compaction replay checkpoint; an object tool result content becomes a
// one-element array), the v2→v3 rename of role hookMessage, and
// normalizePersistedLegacyHookMessage.
func normalizeLoadedMessage(msg *jsonl.Value, hookMigrated bool) {
	role := Role(msg)
	content := msg.Get("content")
	switch {
	case (role == RoleAssistant || role == RoleToolResult) && content.IsString():
		text := *content
		msg.Set("content", jsonl.ArrayValue(jsonl.ObjectOf(
			jsonl.Member{Key: "type", Value: jsonl.StringValue("text")},
			jsonl.Member{Key: "text", Value: text})))
		if isCheckpoint(msg.Get("providerReplay")) {
			msg.Delete("providerReplay")
		}
	case role == RoleToolResult && content.IsObject():
		msg.Set("content", jsonl.ArrayValue(*content))
	}
	if hookMigrated && role == "hookMessage" {
		msg.Set("role", jsonl.StringValue(RoleCustom))
		if !msg.Get("customType").Truthy() {
			msg.Set("customType", jsonl.StringValue("hook"))
		}
		role = RoleCustom
	}
	if role == RoleCustom && !msg.Has("customType") && readableContent(msg.Get("content")) {
		msg.Set("customType", jsonl.StringValue("hook"))
	}
}

// readableContent is the codec's readableContentSchema.
func readableContent(c *jsonl.Value) bool {
	if c.IsString() {
		return true
	}
	if !c.IsArray() {
		return false
	}
	for _, it := range c.Items() {
		if !it.Value.IsObject() || !it.Value.Get("type").IsString() {
			return false
		}
	}
	return true
}

// isCheckpoint is isCompactionReplayCheckpoint.
func isCheckpoint(replay *jsonl.Value) bool {
	if !replay.IsObject() {
		return false
	}
	switch replay.Get("type").StrOr("") {
	case "anthropic-compaction", "openai-responses-compaction", "openai-responses-retained-compaction":
		return true
	}
	return false
}

// withoutCheckpoint is stripCompactionReplayCheckpoint: a copy without a
// checkpoint providerReplay.
func withoutCheckpoint(msg jsonl.Value) jsonl.Value {
	if !isCheckpoint(msg.Get("providerReplay")) {
		return msg
	}
	items := make([]jsonl.Member, 0, msg.Len())
	for _, m := range msg.Items() {
		if m.Key != "providerReplay" {
			items = append(items, m)
		}
	}
	out := jsonl.ObjectValue()
	out.SetItems(items)
	return out
}

// timestamp parses the entry's ISO timestamp; OpenClaw throws when it is
// not a valid date.
func (b *contextBuilder) timestamp(i int, label string) (jsonl.Value, error) {
	s, ok := b.vals[i].GetStr("timestamp")
	if ms, valid := ParseDateMillis(s); ok && valid {
		return jsonl.IntValue(ms), nil
	}
	return jsonl.Value{}, &LoaderError{Line: int(b.rec(i).line), Msg: "Error: " + label + " timestamp must be a valid timestamp"}
}

// member copies a member of the entry (absent → null is never needed: the
// schemas guarantee presence).
func member(e *jsonl.Value, key string) jsonl.Member {
	m := jsonl.Member{Key: key}
	if v := e.Get(key); v != nil {
		m.Value = *v
	}
	return m
}

func (b *contextBuilder) compactionSummary(i int) (jsonl.Value, error) {
	ts, err := b.timestamp(i, "compaction summary")
	if err != nil {
		return ts, err
	}
	e := &b.vals[i]
	return jsonl.ObjectOf(jsonl.Member{Key: "role", Value: jsonl.StringValue(RoleCompactionSummary)},
		member(e, "summary"), member(e, "tokensBefore"), jsonl.Member{Key: "timestamp", Value: ts}), nil
}

func (b *contextBuilder) branchSummary(i int) (jsonl.Value, error) {
	ts, err := b.timestamp(i, "branch summary")
	if err != nil {
		return ts, err
	}
	e := &b.vals[i]
	return jsonl.ObjectOf(jsonl.Member{Key: "role", Value: jsonl.StringValue(RoleBranchSummary)},
		member(e, "summary"), member(e, "fromId"), jsonl.Member{Key: "timestamp", Value: ts}), nil
}

func (b *contextBuilder) customMessage(i int) (jsonl.Value, error) {
	ts, err := b.timestamp(i, "custom message")
	if err != nil {
		return ts, err
	}
	e := &b.vals[i]
	v := jsonl.ObjectOf(jsonl.Member{Key: "role", Value: jsonl.StringValue(RoleCustom)},
		member(e, "customType"), member(e, "content"), member(e, "display"))
	if d := e.Get("details"); d != nil { // undefined details is left out by JSON
		v.Set("details", *d)
	}
	v.Set("timestamp", ts)
	return v, nil
}

// branchFacts fills thinking level, model and model snapshot state.
func (b *contextBuilder) branchFacts(ctx *Context) {
	var last *jsonl.Value
	for i := range b.nodes {
		r := b.rec(i)
		e := &b.vals[i]
		switch r.typ {
		case TypeThinkingLevelChange:
			if e.Kind() != jsonl.Null {
				ctx.ThinkingLevel = e.Get("thinkingLevel").StrOr("")
			}
		case TypeModelChange:
			if e.Kind() != jsonl.Null {
				ctx.Model = &Model{Provider: e.Get("provider").StrOr(""), ModelID: e.Get("modelId").StrOr("")}
			}
		case TypeMessage:
			if r.role == roleAssistant && e.Kind() != jsonl.Null {
				msg := e.Get("message")
				ctx.Model = &Model{Provider: msg.Get("provider").StrOr(""), ModelID: msg.Get("model").StrOr("")}
				ctx.ModelAPI = msg.Get("api").StrOr("")
			}
		case TypeCustom:
			if !r.has(fSnapshot) {
				continue
			}
			data := e.Get("data")
			if !data.IsObject() && !data.IsArray() {
				continue
			}
			if last != nil && !SameModelSnapshot(last, data) {
				if f, ok := data.Get("timestamp").Float(); ok && !math.IsInf(f, 0) && !math.IsNaN(f) {
					ctx.ModelSwitchTimestamp, ctx.HasModelSwitchTimestamp = f, true
				}
			}
			last = data
		}
	}
	ctx.ModelSnapshot = last
}

// customEntries lists the file's custom entries for provider replay hooks.
func (b *contextBuilder) customEntries(ctx *Context) {
	idx := make([]int32, 0, len(b.extra))
	for i := range b.extra {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(i, j int) bool { return idx[i] < idx[j] })
	for _, i := range idx {
		e := b.extra[i]
		ct := jsonl.TrimJS(e.Get("customType").StrOr(""))
		if ct == "" {
			continue
		}
		ctx.CustomEntries = append(ctx.CustomEntries, CustomEntry{CustomType: ct, Data: e.Get("data"), Line: int(b.t.recs[i].line)})
	}
}

// SameModelSnapshot is OpenClaw's isSameModelSnapshot: provider, modelApi
// and modelId strictly equal, a missing or null member counting as "".
func SameModelSnapshot(a, b *jsonl.Value) bool {
	for _, k := range []string{"provider", "modelApi", "modelId"} {
		if !strictEqualOrEmpty(a.Get(k), b.Get(k)) {
			return false
		}
	}
	return true
}

// SnapshotNames reports whether snapshot data names exactly this target
// (the comparison replay makes against the current model).
func SnapshotNames(data *jsonl.Value, provider, modelAPI, modelID string) bool {
	target := jsonl.ObjectOf(
		jsonl.Member{Key: "provider", Value: jsonl.StringValue(provider)},
		jsonl.Member{Key: "modelApi", Value: jsonl.StringValue(modelAPI)},
		jsonl.Member{Key: "modelId", Value: jsonl.StringValue(modelID)})
	return SameModelSnapshot(data, &target)
}

// strictEqualOrEmpty is `(a ?? "") === (b ?? "")`.
func strictEqualOrEmpty(a, b *jsonl.Value) bool {
	empty := jsonl.StringValue("")
	if a.IsNull() {
		a = &empty
	}
	if b.IsNull() {
		b = &empty
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case jsonl.String, jsonl.Bool:
		return jsonl.Equal(a, b)
	case jsonl.Number:
		x, _ := a.Float()
		y, _ := b.Float()
		return x == y
	}
	return false // distinct objects are never === in JavaScript
}
