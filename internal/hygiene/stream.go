package hygiene

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"sort"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// Segmented replay: the replay of a large session, a segment at a time, so
// that memory stays bounded by the segment, not the session.
//
// Every rule works on the whole message list, but what most of them decide
// for a message depends only on its neighbours up to the next assistant
// turn. A segment ends between a finished answer (no tool call) and a user
// message with text. There, no tool-call frame, turn merge or result
// look-ahead crosses the cut, so the rules give each segment what the
// whole-list replay gives it, given the few things carried from segment to
// segment (the ids the id rewriter has handed out, the latest compaction's
// time) and the one thing that only the last segment knows (which turn is
// the latest). What the rules know of a tool id (its calls, its results,
// the signed-thinking turns that keep it) is carried nowhere: a tool id on
// both sides of a cut is a hazard (below).
//
// Where that reasoning could fail on an unusual session (a segment that no
// longer starts with a user message or ends with an assistant turn, a tool
// result or a tool-call id that reaches back over a cut, a compaction
// summary after the first segment, a reserved id an earlier segment already
// handed out, a last segment without its latest turns, a history OpenClaw
// refuses), the replay stops with a *segmentHazard: ReplaySession
// (session_replay.go) then discards what the attempt emitted and tries
// again without the cut, or replays the whole list with ReplayContext.
// Segmenting is an optimisation; it never changes the result.

// segmentHazard reports that a segmented replay cannot be trusted to equal
// the whole-list replay of the session.
type segmentHazard struct {
	Reason string
	// Cut is the context index (of the first message after it) of the cut
	// that failed, when a segmented replay that avoids that cut may well
	// succeed; -1 when it cannot help.
	Cut int
}

func (h *segmentHazard) Error() string { return "segmented replay not exact: " + h.Reason }

// minSegmentMessages is the least number of messages a segment (but the
// last) holds: per-segment costs are then negligible, and memory stays a
// few megabytes.
var minSegmentMessages = 4096 // a variable for tests

// replayStreamAll replays, for each run's target, the context of a
// session's active branch given as facts (the context without its
// messages) and next, which returns the messages in order, a chunk at a
// time, and io.EOF after the last. The session is read and parsed once:
// each segment is replayed for every run (on a copy for all runs but the
// last), and emit gets each run's replayed messages with the run's index,
// in order, a segment at a time; the messages it gets are not used again.
// No segment ends before a context index of avoid.
//
// errs[k] is run k's *segmentHazard, or nil when run k's result equals
// ReplayContext's; a run with a hazard is left out of the following
// segments, and emit may have had some of its messages. When OpenClaw would
// refuse the history (the Responses invariant), the run reports a
// *segmentHazard too: the whole-list replay then gives the refusal with
// every change it records. err is next's, emit's or changes', which end the
// replay of every run.
//
// With changes set, each run's change log is handed over to it after each
// segment (after emit) and emptied: the runs then keep no log, and the
// whole log is the stable sort of what changes got by the step keys.
func replayStreamAll(runs []*Run, facts *session.Context, avoid map[int]bool, next func() ([]session.ContextMessage, error), emit func(k int, msgs []Message) error, changes changeSink) (errs []error, err error) {
	errs = make([]error, len(runs))
	ids := newIDTable() // the ids the runs' id rewriters hand out, each stored once
	lanes := newLanes(runs)
	for _, l := range lanes {
		for _, k := range l.runs {
			r := runs[k]
			r.pairing = l.room // the lane's runs take turns
			ApplyModelSnapshot(r, facts.ModelSnapshot, facts.ModelSwitchTimestamp, facts.HasModelSwitchTimestamp)
			r.seg = newSegment(ids)
		}
	}
	emit, changes = serialized(lanes, emit, changes)
	defer func() {
		for _, r := range runs {
			r.seg, r.pairing = nil, nil
		}
	}()
	c := cutter{avoid: avoid}
	input := newSegmentInput()
	eof := false
	for {
		cut := c.find()
		if cut < 0 && !eof {
			chunk, err := next()
			if errors.Is(err, io.EOF) {
				eof = true
				continue
			}
			if err != nil {
				return errs, err
			}
			c.add(chunk)
			continue
		}
		final := cut < 0
		if final {
			cut = len(c.msgs)
			if cut == 0 { // an empty context replays to nothing
				return errs, nil
			}
		}
		if err := replaySegmentAll(runs, errs, input, lanes, c.msgs[:cut], c.base, final, emit, changes); err != nil {
			return errs, err
		}
		if !slices.ContainsFunc(errs, func(e error) bool { return e == nil }) {
			return errs, nil // every run needs the whole-list replay: stop reading
		}
		if final {
			for _, r := range runs {
				r.orderChanges()
			}
			return errs, nil
		}
		c.drop(cut)
	}
}

// replaySegmentAll replays one segment for every run without a hazard.
// What the segment may not hold (input's check) is the same for every
// run, which have all replayed the same segments before: it is checked
// once, on msgs before any rule edits them. Runs share the prefix steps
// their policies agree on (prefixFrom; from step 4 on, within their
// lane), the id rewrite (idRewrites) and the stages of steps 11–18
// (tailShare) with the runs of their lane, and each goes on to the
// segment's end as soon as it has been through them, so that only one
// run's copies of the segment are live at once in each lane (lanes.go).
func replaySegmentAll(runs []*Run, errs []error, input *segmentInput, lanes []*lane, msgs []Message, start int, final bool, emit func(k int, msgs []Message) error, changes changeSink) error {
	hazard := input.check(msgs)
	var active []int
	for k, r := range runs {
		if errs[k] != nil {
			continue
		}
		active = append(active, k)
		r.seg.start, r.seg.end, r.seg.last = start, start+len(msgs), final
		if hazard != "" {
			r.seg.fail(hazard)
		}
	}
	beginSegment(lanes, runs, active)
	return prefixFrom(runs, active, 0, sharedFrom, msgs, func(group []int, msgs []Message) error {
		return runLanes(lanes, group, msgs, func(l *lane, part []int, msgs []Message) error {
			return prefixFrom(runs, part, sharedFrom, len(prefixSteps), msgs, eachRun(func(k int, msgs []Message) error {
				return finishRun(runs, errs, k, l.step.rewrite(runs[k], msgs), l.tail, emit, changes)
			}))
		})
	})
}

// finishRun replays steps 11–18 of one segment for run k, which has been
// through the steps before (msgs), sharing what tail allows, and hands the
// output and changes on.
func finishRun(runs []*Run, errs []error, k int, msgs []Message, tail *tailShare, emit func(k int, msgs []Message) error, changes changeSink) error {
	r := runs[k]
	out, err := r.finishSegment(msgs, tail)
	if err != nil {
		errs[k] = err
		return nil
	}
	if err := emit(k, out); err != nil {
		return err
	}
	if changes != nil {
		if err := changes(k, r.Changes, r.changeSteps); err != nil {
			return err
		}
		clear(r.Changes) // let their strings go
		r.Changes, r.changeSteps = r.Changes[:0], r.changeSteps[:0]
	}
	return nil
}

// changeSink receives run k's changes of one segment, in the order the
// rules recorded them, and each change's step key (Run.changeSteps); the
// slices' room is reused once it returns.
type changeSink func(k int, changes []Change, steps []int) error

// cutter collects messages and finds where the next segment ends.
type cutter struct {
	msgs  []Message
	from  int          // cut candidates before from have been looked at
	base  int          // the context index of msgs[0]
	avoid map[int]bool // context indexes not to cut before
}

func (c *cutter) add(chunk []session.ContextMessage) {
	if c.msgs == nil {
		c.msgs = make([]Message, 0, 2*minSegmentMessages)
	}
	for _, cm := range chunk {
		c.msgs = append(c.msgs, Message{V: cm.V, Line: cm.Line, EntryID: cm.EntryID})
	}
}

// drop removes the first n messages (a replayed segment, which the rules
// have copied what they keep from: the room is reused).
func (c *cutter) drop(n int) {
	rest := copy(c.msgs, c.msgs[n:])
	clear(c.msgs[rest:]) // let the replayed messages go
	c.msgs, c.from, c.base = c.msgs[:rest], 0, c.base+n
}

// find returns where the collected messages can be cut, or -1: the first
// cut point after minSegmentMessages messages whose next segment starts
// clean as far as the messages collected show (no tool result before its
// first tool call: in the whole list such a result would belong to a turn
// before the cut) and that has another cut point after it. The later cut point guarantees the rest holds an
// assistant turn as well as a user message (the latest turns the last
// segment must see).
func (c *cutter) find() int {
	first := -1
	n := len(c.msgs)
	nextCall, nextResult := -1, -1 // the next tool-calling turn and tool result at or after p (n: none yet)
	for p := max(c.from, minSegmentMessages, 1); p < n; p++ {
		if !isCutPoint(c.msgs, p) || c.avoid[c.base+p] {
			continue
		}
		if first >= 0 {
			return first
		}
		if nextCall < p {
			nextCall = c.next(p, isToolCallTurn)
		}
		if nextResult < p {
			nextResult = c.next(p, isResultMessage)
		}
		if nextResult < nextCall {
			continue // a result would reach back over the cut
		}
		// (Neither seen yet is fine: should a result come before the next
		// tool call after all, the replay finds it a hazard.)
		first = p
	}
	if first >= 0 {
		c.from = first // look again from there when more messages come
	} else {
		c.from = max(n, 1)
	}
	return -1
}

// next is the index of the first message at or after i that is, or
// len(c.msgs).
func (c *cutter) next(i int, is func(*jsonl.Value) bool) int {
	for ; i < len(c.msgs) && !is(&c.msgs[i].V); i++ {
	}
	return i
}

// isToolCallTurn reports an assistant turn with a tool call.
func isToolCallTurn(v *jsonl.Value) bool {
	return session.Role(v) == session.RoleAssistant && len(session.ToolCalls(v)) > 0
}

// isResultMessage reports what pairing treats as a result, or drops before
// any tool call: a toolResult or tool message, or a value that is not an
// object.
func isResultMessage(v *jsonl.Value) bool {
	if !v.IsObject() {
		return true
	}
	role := session.Role(v)
	return role == session.RoleToolResult || role == "tool"
}

// isCutPoint reports a possible cut before msgs[p]: a plain answer (see
// isPlainAnswer), then a user message with some text. Neither is one the
// rules remove or merge in an ordinary session (an interrupted turn with
// empty content before a user's next message, common in real sessions, is
// not a cut point: the rules remove it). The replay checks that both
// survived all the same.
func isCutPoint(msgs []Message, p int) bool {
	return isPlainAnswer(&msgs[p-1].V) && hasUserText(&msgs[p].V)
}

// isPlainAnswer reports a finished assistant turn (stopReason "stop") with
// array content, no tool call, and a text block with some text that is not
// a silent reply, from no OpenClaw delivery mirror.
func isPlainAnswer(v *jsonl.Value) bool {
	if session.Role(v) != session.RoleAssistant || !isAssistantWithArrayContent(v) ||
		v.Get("stopReason").StrOr("") != "stop" || len(session.ToolCalls(v)) > 0 ||
		hasContinuationToolCall(v) || isTranscriptOnlyArtifact(v) {
		return false
	}
	for _, it := range v.Get("content").Items() {
		b := &it.Value
		if text, ok := b.GetStr("text"); ok && session.BlockType(b) == "text" && !jsonl.IsBlankJS(text) && !mentionsSilentToken(text) {
			return true
		}
	}
	return false
}

// hasUserText reports a user message whose content is a string or holds a
// text block, with some text.
func hasUserText(v *jsonl.Value) bool {
	if session.Role(v) != session.RoleUser {
		return false
	}
	c := v.Get("content")
	if s, ok := c.Str(); ok {
		return !jsonl.IsBlankJS(s)
	}
	for _, it := range c.Items() {
		if text, ok := it.Value.GetStr("text"); ok && session.BlockType(&it.Value) == "text" && !jsonl.IsBlankJS(text) {
			return true
		}
	}
	return false
}

// segment is what a segmented replay carries between segments.
type segment struct {
	first, last bool
	start, end  int // context indexes of the segment's first message and of the one after it
	hazard      string
	hazardCut   int // segmentHazard.Cut
	// cutoff is the latest compaction summary's time (set by the first
	// segment, which holds every compaction summary).
	cutoff    float64
	hasCutoff bool
	// resolver is rewriteToolCallIDs' state: the ids handed out so far,
	// numbered in ids, which every run of the replay shares.
	resolver *toolIDResolver
	ids      *idTable
}

func newSegment(ids *idTable) *segment {
	return &segment{first: true, ids: ids}
}

// finishSegment replays one segment after the tool-call id rewrite (step
// 10), which msgs has been through, sharing what tail allows, and checks
// that the cut held.
func (r *Run) finishSegment(msgs []Message, tail *tailShare) ([]Message, error) {
	s := r.seg
	last := s.last
	out, err := replayTail(r, msgs, tail)
	if err != nil {
		// The whole-list replay records every step's changes over the
		// whole history before it refuses: let it report the refusal.
		return nil, &segmentHazard{Reason: "OpenClaw refuses the history: " + err.Error(), Cut: -1}
	}
	// Turns merge only with turns of their role: an assistant turn ending
	// one segment and a user message starting the next keep the segments
	// apart (which messages they are does not matter: a rule may have
	// merged the user message with the next one, or the assistant turn
	// with the one before).
	switch {
	case s.hazard != "":
	case !s.first && (len(out) == 0 || session.Role(&out[0].V) != session.RoleUser):
		s.failAt("a segment does not start with a user message", s.start)
	case !last && (len(out) == 0 || session.Role(&out[len(out)-1].V) != session.RoleAssistant):
		s.failAt("a segment does not end with an assistant turn", s.end)
	}
	if s.hazard != "" {
		return nil, &segmentHazard{Reason: s.hazard, Cut: s.hazardCut}
	}
	s.first = false
	return out, nil
}

// segmentInput is what the segments of a segmented replay may not hold,
// checked once for every run of the replay: a compaction summary after the
// first segment (the rules measure earlier turns against it) and a
// tool-call or tool-result id an earlier segment holds (pairing and the id
// rewriter look for them across the whole history).
type segmentInput struct {
	first bool
	// ids are the hashes of the tool-call and tool-result ids of earlier
	// segments (a map without pointers, which the collector skips; two ids
	// with one hash only make a false hazard, never a wrong replay).
	ids map[uint64]struct{}
}

func newSegmentInput() *segmentInput {
	return &segmentInput{first: true, ids: map[uint64]struct{}{}}
}

// check returns why the next segment, msgs, may not be replayed on its
// own, or "" when it may, and then counts its ids in.
func (in *segmentInput) check(msgs []Message) string {
	first := in.first
	in.first = false
	var ids []string
	for i := range msgs {
		v := &msgs[i].V
		if !first && session.Role(v) == session.RoleCompactionSummary {
			return "a compaction summary after the first segment"
		}
		ids = appendMessageIDs(ids, v)
	}
	// A call's id comes again in its result, mostly the next message's:
	// an id equal to the one before is neither looked up nor added again
	// (the map is as large as the session's ids, so each lookup is likely
	// a cache miss).
	hashes := make([]uint64, 0, len(ids))
	for i, id := range ids {
		if i > 0 && id == ids[i-1] {
			continue
		}
		h := idHash(id)
		if _, ok := in.ids[h]; ok && !first {
			return fmt.Sprintf("tool id %q appears on both sides of a cut", id)
		}
		hashes = append(hashes, h)
	}
	for _, h := range hashes {
		in.ids[h] = struct{}{}
	}
	return ""
}

// appendMessageIDs appends every id a tool call or tool result of the
// message may be matched by, as given and trimmed: the id fields of the
// message and of its content blocks.
func appendMessageIDs(ids []string, v *jsonl.Value) []string {
	add := func(b *jsonl.Value) {
		if !b.IsObject() {
			return
		}
		for _, m := range b.Items() { // one walk over the members, not a lookup per key
			if !isMessageIDKey(m.Key) {
				continue
			}
			if id, ok := m.Value.Str(); ok {
				ids = append(ids, id)
				if t := jsonl.TrimJS(id); t != id {
					ids = append(ids, t)
				}
			}
		}
	}
	add(v)
	for _, it := range v.Get("content").Items() {
		add(&it.Value)
	}
	return ids
}

var idSeed = maphash.MakeSeed()

func idHash(id string) uint64 { return maphash.String(idSeed, id) }

// isMessageIDKey reports a field tool calls and results carry ids in.
func isMessageIDKey(k string) bool {
	switch k { // the fields tool calls and results carry ids in
	case "id", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id":
		return true
	}
	return false
}

// fail records the first hazard, which avoiding a single cut cannot help.
func (s *segment) fail(reason string) { s.failAt(reason, -1) }

// failAt records the first hazard and the cut it comes from.
func (s *segment) failAt(reason string, cut int) {
	if s != nil && s.hazard == "" {
		s.hazard, s.hazardCut = reason, cut
	}
}

// beforeLast reports a segment other than the last of a segmented replay.
func (s *segment) beforeLast() bool { return s != nil && !s.last }

// latestMissing is called when the last segment lacks a latest turn of the
// kind the rules look for: the whole list may have one before the segment.
func (s *segment) latestMissing(what string) {
	if s != nil && !s.first {
		s.failAt("the last segment has no "+what, s.start)
	}
}

// checkHead fails a segment after the first when a tool result comes before
// its first tool-calling assistant: in the whole list it would belong to a
// turn of the segment before.
func (s *segment) checkHead(msgs []Message, rule string) {
	if s == nil || s.first {
		return
	}
	for i := range msgs {
		v := &msgs[i].V
		switch role := session.Role(v); {
		case role == session.RoleAssistant && len(session.ToolCalls(v)) > 0:
			return
		case role == session.RoleToolResult || role == "tool" || !v.IsObject():
			s.failAt(rule+": a tool result before the segment's first tool call", s.start)
			return
		}
	}
}

// idResolver returns the id rewriter of earlier segments (nil for the first
// segment, or without segments).
func (s *segment) idResolver() *toolIDResolver {
	if s == nil {
		return nil
	}
	return s.resolver
}

// idTable returns the table the id rewriter numbers its ids in: the
// replay's, or without segments a fresh one.
func (s *segment) idTable() *idTable {
	if s == nil {
		return newIDTable()
	}
	return s.ids
}

// keepResolver keeps the id rewriter for the next segments.
func (s *segment) keepResolver(res *toolIDResolver) {
	if s != nil {
		s.resolver = res
	}
}

// reserveIDs reserves ids a later segment's signed-thinking turns keep. The
// whole-list replay reserves them before any rewrite: an id an earlier
// segment already handed out is a hazard.
func (s *segment) reserveIDs(res *toolIDResolver, ids []string) {
	for _, id := range ids {
		if !res.claim(id) {
			s.fail(fmt.Sprintf("reserved tool-call id %q already handed out", id))
		}
	}
}

// compactionCutoff is latestCompactionTimestamp(msgs), or in a segmented
// replay the first segment's.
func (r *Run) compactionCutoff(msgs []Message) (float64, bool) {
	s := r.seg
	if s == nil {
		return latestCompactionTimestamp(msgs)
	}
	if s.first {
		s.cutoff, s.hasCutoff = latestCompactionTimestamp(msgs)
	}
	return s.cutoff, s.hasCutoff
}

// orderChanges orders the change log by pipeline step and pass, and
// otherwise keeps the order the rules recorded the changes in: a no-op for
// the whole-list replay, and its order for a segmented one.
func (r *Run) orderChanges() {
	idx := make([]int, len(r.Changes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.changeSteps[idx[a]] < r.changeSteps[idx[b]] })
	changes, steps := make([]Change, len(idx)), make([]int, len(idx))
	for i, k := range idx {
		changes[i], steps[i] = r.Changes[k], r.changeSteps[k]
	}
	r.Changes, r.changeSteps = changes, steps
}
