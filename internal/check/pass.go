package check

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/media"
	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// pass is the ordered part of a check: it sees every line in file order,
// feeds the repair classifier (what fix would do), the navigation tree
// (ids and parents) and the tool-call pairing, and collects findings.
type pass struct {
	path     string
	sel      Selection
	maxDim   int
	cls      *repair.Classifier
	tree     *session.Tree
	pairs    pairing
	findings []Finding
	// fixable are the per-line findings of checks fix repairs: whether fix
	// will act on them is known only at the end (the header check).
	fixable []Finding

	lines int
	bytes int64
	warm  uint64 // what batch's first loop read
	// size is the input's length when known (-1 otherwise); grown reports
	// that the tree was sized from it.
	size  int64
	grown bool

	// imageCount counts the image blocks of user and toolResult messages;
	// bigImages are those over the many-image side (2000 px), which is a
	// limit only when a request holds more than 20 images.
	imageCount int
	bigImages  []bigImage

	// bomLine is the first line with content when it starts with a UTF-8
	// byte order mark (0 otherwise): the header behind a BOM, which
	// JSON.parse rejects; seenContent reports a line with content read.
	bomLine     int
	seenContent bool

	// limit is Options.Limit; kept counts the findings kept per id and
	// omitted those left out (see [pass.keep]); finishing reports that the
	// end-of-file findings are being added (they are not limited).
	limit     int
	kept      map[ID]int
	omitted   map[ID]int
	finishing bool

	// spillAbove is Options.SpillAbove; spill holds the findings moved out
	// of memory (nil until the first move), spilled counts those of
	// findings (the index of findings[0] in the order found), and
	// fixableStart is where the fixable list starts in findings once the
	// end of the file appended it (see spill.go).
	spillAbove   int
	spill        *spill
	spilled      int
	fixableStart int

	// rows is Options.Rows; ended reports that a row JSON.parse rejects
	// ended the input (the lines after it are not judged).
	rows  Rows
	ended bool
}

// bigImage is an image over 2000 px a side, kept until the end of the file
// decides whether the many-image limit applies.
type bigImage struct {
	line    int
	entryID string
	side    int
	finding int // index of its OversizedImage finding in the order found, or -1
}

// maxBigImages bounds the images remembered for the many-image check.
const maxBigImages = 4096

func newPass(path string, size int64, sel Selection, opts Options) *pass {
	p := &pass{path: path, size: size, sel: sel, maxDim: maxDimension(opts), cls: repair.NewClassifier(), tree: session.NewTree(1024),
		limit: opts.Limit, kept: map[ID]int{}, spillAbove: opts.SpillAbove, rows: opts.Rows}
	p.tree.OwnStrings()
	p.pairs.init()
	return p
}

// batch processes the lines of a batch, in order.
func (p *pass) batch(o *lineFacts) {
	if p.ended {
		return
	}
	// The lines' id lookups miss the caches (the index outgrows them, and
	// the workers' scans sweep them): made first, all at once, they
	// overlap.
	for i := range o.facts {
		if f := &o.facts[i]; f.valid {
			p.tree.Prefetch(f.idHash)
			if id := f.node.ID; id != "" {
				p.warm += uint64(id[0])
			}
			if f.resultID != "" {
				p.warm += p.pairs.seen.prefetch(f.resultHash)
			}
		}
	}
	for i := range o.calls {
		if id := o.calls[i].id; id != "" {
			p.warm += uint64(id[0]) + p.pairs.seen.prefetch(o.calls[i].hash)
		}
	}
	for i := range o.facts {
		if p.rows != nil && !p.storedRow(o, i) {
			break
		}
		p.line(&o.rep[i], &o.facts[i], o)
	}
	p.sizeTree()
}

// sizeTree reserves the tree's nodes and the pairing's ids once, after the
// first batch, from the lines (and ids) per byte seen so far: growing step
// by step would copy them some twenty times into fresh memory on a large
// file. The estimate is capped at a node per minLineBytes of input, and
// waits for sizeSampleBytes of lines: a header followed by one huge line
// would otherwise reserve a node per 64 bytes of that line (61 MB for a
// 100 MB line).
func (p *pass) sizeTree() {
	if p.grown || p.size <= p.bytes || p.bytes < sizeSampleBytes {
		return
	}
	p.grown = true
	rest := p.size - p.bytes
	estimate := min(float64(rest)*float64(p.lines)/float64(p.bytes)*1.1, float64(rest/minLineBytes))
	p.tree.Grow(int(estimate))
	p.pairs.reserve(p.pairs.seen.used + int(float64(p.pairs.seen.used)*estimate/float64(p.lines)))
}

// sizeSampleBytes is the input sizeTree's estimate needs: the first
// lines of a session (its header, short early turns) are a poor sample of
// the rest, and an estimate short of the real count makes the tree's
// nodes grow by copying at the end, when they are largest.
const sizeSampleBytes = 4 << 20

// minLineBytes bounds sizeTree's estimate: transcript lines are rarely
// this short.
const minLineBytes = 64

// line processes one physical line whose facts the workers computed.
func (p *pass) line(rf *repair.LineFacts, f *facts, o *lineFacts) {
	v := p.cls.Apply(rf)
	p.lines, p.bytes = f.line, rf.End()
	p.verdict(v, f)
	if f.length > LongLineBytes {
		p.add(LongLine, f.line, "", fmt.Sprintf("line is %s long (over %s); it dominates load time and memory", sizeText(f.length), sizeText(LongLineBytes)))
	}
	if !f.valid {
		return
	}
	entryID := p.node(f)
	if !f.isMessage {
		return
	}
	switch f.role {
	case roleAssistant:
		p.assistant(f.line, entryID, f, o)
	case roleToolResult:
		p.pairs.result(p, f.line, entryID, f)
	default:
		p.pairs.closeTurn(p)
	}
	p.imageCount += f.imageN
	for _, im := range o.images[f.images.lo:f.images.hi] {
		p.image(im, f.line, entryID)
	}
}

// node adds the line to the navigation tree and returns its entry id (the
// tree's copy: the tree owns the strings it keeps).
func (p *pass) node(f *facts) string {
	return p.tree.ID(p.tree.AddHashed(f.node, f.idHash))
}

func (p *pass) assistant(line int, entryID string, f *facts, o *lineFacts) {
	calls := o.calls[f.calls.lo:f.calls.hi]
	for _, c := range calls {
		if c.missingInput {
			p.add(ToolCallMissingInput, line, entryID, fmt.Sprintf("tool call %s (%s) has neither arguments nor input", quote(c.id), nameOr(c.name)))
		}
	}
	p.pairs.assistant(p, line, entryID, calls)
	p.duplicateCallIDs(line, entryID)
	if f.unsigned > 0 {
		p.add(UnsignedThinking, line, entryID, fmt.Sprintf("%d thinking block(s) without a signature in an Anthropic/Bedrock turn", f.unsigned))
	}
}

// duplicateCallIDs reports each tool-call id the turn's calls share: the
// Responses replay pairs the first result with the id and finds the second
// one answering nothing, so OpenClaw refuses the history for OpenAI
// Responses, Codex and xAI. It reads the chains of repeated ids the pairing
// has just built for the turn (pairing.assistant runs first).
func (p *pass) duplicateCallIDs(line int, entryID string) {
	if !p.sel.Enabled(DuplicateToolCallID) {
		return
	}
	turn := p.pairs.turn
	for k := range turn {
		c := &turn[k]
		if c.id == "" || c.last == int32(k) { // no repeat, or not the first call of its id
			continue
		}
		n := 1
		for j := c.next; j >= 0; j = turn[j].next {
			n++
		}
		p.add(DuplicateToolCallID, line, entryID, fmt.Sprintf("%d tool calls in this turn share the id %s; OpenAI Responses, Codex and xAI refuse the history (the second result answers no pending call)", n, quote(c.id)))
	}
}

// verdict turns the repair classifier's verdict on a line into findings.
func (p *pass) verdict(v repair.Verdict, f *facts) {
	if !p.seenContent && f.bom {
		p.bomLine = f.line
	}
	p.seenContent = p.seenContent || f.valid || v.Rules&repair.RuleMalformedLine != 0
	switch {
	case v.Rules&repair.RuleMalformedLine != 0:
		p.addFixable(MalformedLine, v.Line, "", malformedMessage(v.Err, f.bom))
	case v.Rules&repair.RuleInvalidMessageRole != 0:
		p.addFixable(InvalidMessageRole, v.Line, f.node.ID, "message entry without a message object or a non-blank string role; OpenClaw cannot replay it")
	}
	if v.Action != repair.Rewrite {
		return
	}
	id := f.node.ID
	if v.Rules&repair.RuleEmptyErrorTurn != 0 {
		p.addFixable(EmptyErrorTurn, v.Line, id, "assistant turn failed before producing content (content [], stopReason \"error\"); Bedrock rejects empty content")
	}
	if v.Rules&repair.RuleCorruptedImage != 0 {
		p.addFixable(CorruptedImage, v.Line, id, fmt.Sprintf("%d image block(s) with corrupted base64 data", v.CorruptedImages))
	}
	if v.Rules&repair.RuleBlankUserText != 0 {
		p.addFixable(BlankUserText, v.Line, id, "user turn with blank text; Bedrock and Anthropic reject blank text blocks")
	}
}

func malformedMessage(err error, bom bool) string {
	var se *jsonl.SyntaxError
	switch {
	case bom:
		return "not valid JSON: the line starts with a UTF-8 byte order mark; OpenClaw skips the line"
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON: %s at byte %d; OpenClaw skips the line", se.Msg, se.Offset)
	}
	return "not valid JSON; OpenClaw skips the line"
}

// finish completes the file: the repair plan (early exits and synthetic
// tool results), the open tool turn and the tree.
func (p *pass) finish() []Finding {
	p.finishing = true
	plan := p.cls.Finish()
	p.pairs.closeTurn(p)
	inserted := map[string]bool{}
	for _, in := range plan.Inserts {
		inserted[pairKey(in.AfterLine, in.ToolCallID)] = true
		p.addFixable(MissingCodeModeRes, in.AfterLine, in.ParentID, fmt.Sprintf("tool call %s (%s) has no tool result; fix inserts OpenClaw's synthetic \"aborted\" result", quote(in.ToolCallID), in.ToolName))
	}
	p.earlyExit(plan)
	for _, m := range p.pairs.missing {
		if !inserted[pairKey(m.Line, m.callID)] {
			p.addFinding(m.Finding)
		}
	}
	p.treeFindings()
	p.manyImageFindings()
	return p.findings
}

func pairKey(line int, id string) string { return fmt.Sprint(line, "\x00", id) }

// earlyExit reports fix's early exits and settles the per-line fix
// findings: fix acts on them only when the file has a valid header.
func (p *pass) earlyExit(plan repair.Plan) {
	hint := ""
	switch plan.Reason {
	case repair.ReasonEmpty:
		p.addFileFinding(EmptySession, 0, emptyMessage(plan))
		hint = "fix skips this file because no line survives; repair it by hand"
	case repair.ReasonInvalidHeader:
		if p.bomLine > 0 {
			hint = fmt.Sprintf("strip the 3-byte UTF-8 byte order mark (EF BB BF) from the start of line %d by hand (fix skips this file until then), then run %q", p.bomLine, FixCommand)
			c := mustLookup(InvalidHeader)
			p.addFinding(Finding{ID: InvalidHeader, Severity: c.Severity, Path: p.path, Line: plan.FirstEntryLine, Hint: hint,
				Message: fmt.Sprintf("the first entry is not a session header: line %d starts with a UTF-8 byte order mark, which JSON.parse rejects, so OpenClaw never reads it; OpenClaw 2026.7 loads the file as an empty session and fix skips it", p.bomLine)})
			break
		}
		p.addFileFinding(InvalidHeader, plan.FirstEntryLine, "the first entry is not a session header ({\"type\":\"session\",\"id\":…}); OpenClaw 2026.7 loads the file as an empty session and fix skips it")
		hint = "repair the session header first (fix skips this file until then), then run \"" + FixCommand + "\""
	}
	p.findings = slices.Grow(p.findings, len(p.fixable)) // one allocation: a file can hold millions
	p.fixableStart = len(p.findings)
	if p.spill != nil {
		p.spill.fixableHint = hint
	}
	for _, f := range p.fixable {
		if hint != "" {
			f.Fixable, f.Hint = false, hint
		}
		p.addFinding(f)
	}
	p.fixable = nil
}

func emptyMessage(plan repair.Plan) string {
	switch {
	case plan.Lines == 0:
		return "the file is empty; OpenClaw starts a new session in its place"
	case plan.Counts.DroppedLines == 0:
		return "the file holds only blank lines; OpenClaw starts a new session in its place"
	}
	return fmt.Sprintf("no line survives (%d dropped); OpenClaw starts a new session in its place", plan.Counts.DroppedLines)
}

// treeFindings reports duplicate ids and missing parents, and what the
// active branch loses where it is cut.
func (p *pass) treeFindings() {
	for _, d := range p.tree.Duplicates() {
		p.add(DuplicateEntryID, d.LastLine, d.ID, fmt.Sprintf("id %s is also used by line %d; OpenClaw indexes only this later entry", quote(d.ID), d.FirstLine))
	}
	cut, cutOK := p.tree.BranchCut()
	for _, m := range p.tree.MissingParents() {
		msg := fmt.Sprintf("parentId %s names no entry; the branch is cut here", quote(m.ParentID))
		if cutOK && m.Line == cut.FirstLine && cut.Lost == 0 {
			msg = fmt.Sprintf("parentId %s names no entry; the active branch starts here", quote(m.ParentID))
		} else if cutOK && m.Line == cut.FirstLine {
			msg = fmt.Sprintf("parentId %s names no entry; the active branch starts here and loses %d earlier entr%s", quote(m.ParentID), cut.Lost, plural(cut.Lost, "y", "ies"))
		}
		p.add(MissingParent, m.Line, p.tree.Node(m.Node).ID, msg)
	}
}

// add records a finding of check id if it is enabled.
func (p *pass) add(id ID, line int, entryID, msg string) {
	c := mustLookup(id)
	p.addFinding(Finding{ID: id, Severity: c.Severity, Path: p.path, Line: line, EntryID: entryID, Message: msg, Hint: c.Hint})
}

func (p *pass) addFinding(f Finding) {
	if p.sel.Enabled(f.ID) && p.keep(f.ID) {
		p.findings = append(p.findings, f)
		p.spillIfOver()
	}
}

// spillIfOver moves the findings held to the spill file once there are
// more than spillAbove of them, until the end of the file (whose findings
// are merged in memory). A spill file that cannot be made leaves them in
// memory, as without the bound.
func (p *pass) spillIfOver() {
	if p.spillAbove <= 0 || p.finishing || len(p.findings)+len(p.fixable) <= p.spillAbove {
		return
	}
	if p.spill == nil {
		s, err := newSpill()
		if err != nil {
			p.spillAbove = 0
			return
		}
		p.spill = s
	}
	p.spill.add(p.findings, p.spilled, false)
	p.spilled += len(p.findings)
	clear(p.findings)
	p.findings = p.findings[:0]
	p.spill.add(p.fixable, 0, true)
	clear(p.fixable)
	p.fixable = p.fixable[:0]
}

// keep reports whether a finding of id found line by line is kept under
// the limit, counting it as omitted otherwise. Findings of the end of the
// file, and image findings (the many-image check amends them at the end),
// are always kept: they do not arrive in line order.
func (p *pass) keep(id ID) bool {
	if p.limit <= 0 || p.finishing || id == OversizedImage || id == ImageOverProviderLimit {
		return true
	}
	if p.kept[id] < p.limit {
		p.kept[id]++
		return true
	}
	if p.omitted == nil {
		p.omitted = map[ID]int{}
	}
	p.omitted[id]++
	return false
}

// addFixable records a finding of a check fix repairs; see earlyExit.
func (p *pass) addFixable(id ID, line int, entryID, msg string) {
	if !p.sel.Enabled(id) || !p.keep(id) {
		return
	}
	c := mustLookup(id)
	p.fixable = append(p.fixable, Finding{ID: id, Severity: c.Severity, Path: p.path, Line: line,
		EntryID: strings.Clone(entryID), Message: msg, Hint: c.Hint, Fixable: true})
	p.spillIfOver()
}

func (p *pass) addFileFinding(id ID, line int, msg string) { p.add(id, line, "", msg) }

// image reports one image over a limit: over the configured side or 5 MiB
// (replay resizes it), and over 8000 px even after replay's resize (a
// provider rejects it; possible only with imageMaxDimensionPx above 8000).
func (p *pass) image(im imageFact, line int, entryID string) {
	side := max(im.width, im.height)
	finding := -1
	if e := media.CheckSize(im.width, im.height, im.bytes, p.maxDim, 0); e&(media.OverMaxSide|media.OverMaxBytes) != 0 {
		if p.sel.Enabled(OversizedImage) {
			finding = p.spilled + len(p.findings)
		}
		p.add(OversizedImage, line, entryID, imageMessage(im, e, p.maxDim))
	}
	if sent := min(side, p.maxDim); sent > media.ProviderMaxSidePx {
		p.add(ImageOverProviderLimit, line, entryID, fmt.Sprintf("image in content block %d is %s; replay keeps %d px a side (imageMaxDimensionPx %d), over Anthropic's %d px limit", im.block, dimensions(im), sent, p.maxDim, media.ProviderMaxSidePx))
	}
	if side > media.ManyImagesMaxSidePx && len(p.bigImages) < maxBigImages {
		p.bigImages = append(p.bigImages, bigImage{line: line, entryID: strings.Clone(entryID), side: side, finding: finding})
	}
}

// manyImageFindings applies the many-image limit once the file's image
// count is known: with more than 20 images, a side over 2000 px is
// rejected unless replay's resize brings it under.
func (p *pass) manyImageFindings() {
	if p.imageCount <= media.ManyImagesCount {
		return
	}
	for _, b := range p.bigImages {
		if sent := min(b.side, p.maxDim); sent > media.ManyImagesMaxSidePx {
			p.add(ImageOverProviderLimit, b.line, b.entryID, fmt.Sprintf("the session holds %d images and replay keeps this one at %d px a side (imageMaxDimensionPx %d), over the %d px many-image limit", p.imageCount, sent, p.maxDim, media.ManyImagesMaxSidePx))
			continue
		}
		if b.finding >= 0 {
			p.note(b.finding, fmt.Sprintf("; it is also over the %d px many-image limit (the session holds %d images)", media.ManyImagesMaxSidePx, p.imageCount))
		}
	}
}

func dimensions(im imageFact) string {
	if !im.headerKnown {
		return "of unknown size"
	}
	return fmt.Sprintf("%d×%d px", im.width, im.height)
}

func imageMessage(im imageFact, e media.Exceeded, maxDim int) string {
	return fmt.Sprintf("image in content block %d is %s, %s decoded: %s; replay resizes or omits it on every turn", im.block, dimensions(im), sizeText(im.bytes), e.Describe(maxDim))
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// quote shows an id from the file, escaped and shortened.
func quote(s string) string {
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return fmt.Sprintf("%q", s)
}

func nameOr(name string) string {
	if name == "" {
		return "no name"
	}
	return quote(name)
}

// note appends text to the message of the finding at index i in the order
// found, in memory or spilled.
func (p *pass) note(i int, text string) {
	if i >= p.spilled {
		p.findings[i-p.spilled].Message += text
		return
	}
	if p.spill.notes == nil {
		p.spill.notes = map[int]string{}
	}
	p.spill.notes[i] += text
}
