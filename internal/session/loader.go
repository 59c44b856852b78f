package session

import (
	"fmt"
	"io"
	"io/fs"
	"math"
	"runtime"
	"strconv"
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// LoaderError is an exception OpenClaw's own loader raises on a file, so
// that OpenClaw cannot build any context from it (for example a v1 file
// holding a bare number line: the migration cannot give a number an id).
type LoaderError struct {
	Line int    // physical line of the entry that triggers it
	Msg  string // the JavaScript error OpenClaw throws
}

func (e *LoaderError) Error() string {
	return fmt.Sprintf("line %d: OpenClaw's session loader throws %s", e.Line, e.Msg)
}

// recFlags are per-record verdicts.
type recFlags uint16

const (
	fTimestampOK  recFlags = 1 << iota // timestamp absent or a string
	fSide                              // appendMode "side"
	fAppendMode                        // appendMode present
	fFieldsOK                          // Envelope.FieldsOK
	fMsgOKHook                         // Envelope.MessageOKAfterHookMigration
	fLegacy                            // Envelope.LegacyReadable
	fLegacyHook                        // Envelope.LegacyReadableAfterHookMigration
	fSnapshot                          // Envelope.ModelSnapshot
	fBoundaryOK                        // compaction/reset members besides firstKeptEntryId
	fHookMigrated                      // the v2→v3 migration renamed role hookMessage
	fRecognized                        // a file entry (not opaque) after partitioning
	fIndexed                           // a canonical entry in the navigation index
	fMessageText                       // off and n bound the message member's value, not the line
)

// record is one line JSON.parse accepted: where it is, and its envelope
// after OpenClaw's migrations. About 80 bytes.
type record struct {
	off        int64 // byte offset of the parsed text (after any trim), or of its message (fMessageText)
	n          int32 // its length
	line       int32 // physical line number
	typ        EntryType
	shape      Shape
	role       roleKind
	flags      recFlags
	id, parent Ref
	x          *recExtra // rarely present members
}

type recExtra struct {
	target, appendParent, firstKept Ref
	firstKeptIndex                  string
	hasFirstKeptIndex               bool
	version                         []byte
	primitive                       string // text of a number/string/boolean line, for error messages
}

func (r *record) has(f recFlags) bool { return r.flags&f != 0 }

func (r *record) extra() *recExtra {
	if r.x == nil {
		r.x = &recExtra{}
	}
	return r.x
}

func (r *record) firstKept() Ref {
	if r.x == nil {
		return Ref{}
	}
	return r.x.firstKept
}

// fieldsOK applies the entry codec's type-specific schema to the record as
// it stands after migration.
func (r *record) fieldsOK() bool {
	switch r.typ {
	case TypeCompaction:
		return r.has(fBoundaryOK) && r.firstKept().IsID()
	case TypeReset:
		fk := r.firstKept().State
		return r.has(fBoundaryOK) && (fk == RefAbsent || fk == RefString)
	case TypeMessage:
		if r.has(fHookMigrated) {
			return r.has(fMsgOKHook)
		}
	}
	return r.has(fFieldsOK)
}

// indexed is isIndexedSessionEntry.
func (r *record) indexed() bool {
	return r.shape == ShapeObject && r.typ.Canonical() && r.id.IsID() &&
		r.parent.State != RefOther && r.has(fTimestampOK) && r.fieldsOK()
}

// legacyReadable is isReadableLegacySessionEntry.
func (r *record) legacyReadable() bool {
	if r.has(fHookMigrated) {
		return r.has(fLegacyHook)
	}
	return r.has(fLegacy)
}

// leafRow is parseOpaqueLeafEntry.
func (r *record) leafRow() bool {
	if r.shape != ShapeObject || r.typ != TypeLeaf || !r.id.IsID() || !r.parent.StrOrNull() || r.x == nil {
		return false
	}
	ap := r.x.appendParent.State
	return r.x.target.StrOrNull() && (ap == RefAbsent || ap == RefString || ap == RefNull) &&
		(!r.has(fAppendMode) || r.has(fSide))
}

// parentLinked is parseParentLinkedOpaqueEntry.
func (r *record) parentLinked() bool {
	return r.shape == ShapeObject && r.typ != TypeSession && r.typ != TypeLeaf &&
		r.id.IsID() && r.parent.StrOrNull()
}

// loader holds the state of one Load.
type loader struct {
	recs      []record
	ids       *arena
	lines     int
	malformed int
	ids0      int   // counter for ids the migrations generate
	migrated  bool  // SessionManager's own migration ran (it then skips rejected entries)
	legacy    bool  // any migration ran
	header    int   // record index of the header (partition's), -1 none
	size      int64 // input size if known, else 0 (sizes the record list)
	early     earlyTree
}

// Transcript is a loaded session file as OpenClaw 2026.9.6 holds it for
// replay (parseSessionEntries, migrateSessionEntries, then
// SessionManager.fromEntries): every line JSON.parse accepted, migrated,
// partitioned into entries and opaque records, and navigated.
type Transcript struct {
	recs []record
	tree *Tree
	// Lines is the number of physical lines; MalformedLines those that
	// were not blank and that JSON.parse rejected (OpenClaw skips them).
	Lines, MalformedLines int
	// Migrated reports that OpenClaw treated the file as a v1/v2 session
	// (no header, or header version < 3) and migrated it.
	Migrated bool
	header   int
}

// load reads a transcript the way OpenClaw's replay loads it. It keeps only
// envelopes (no message is decoded); the context reads the lines it needs
// again. A *[LoaderError] reports a file OpenClaw itself throws on. size is
// the input's size when known (0 if not), which sizes the record list and
// chooses the parallel first pass.
func load(r io.Reader, size int64) (*Transcript, error) {
	l := loader{ids: newArena(64 << 10), header: -1, size: size}
	if err := l.read(r); err != nil {
		return nil, err
	}
	if l.early.tree != nil { // nothing to migrate, and navigated while read
		return &Transcript{recs: l.recs, Lines: l.lines, MalformedLines: l.malformed, header: l.header,
			tree: l.early.tree}, nil
	}
	if err := l.migrateLoaded(); err != nil {
		return nil, err
	}
	l.partition()
	l.migrateFileEntries()
	t := &Transcript{recs: l.recs, Lines: l.lines, MalformedLines: l.malformed, Migrated: l.legacy, header: l.header}
	t.tree = l.navigate()
	return t, nil
}

// read is parseSessionEntries: the file is trimmed as a whole (so the first
// line loses leading and the last line trailing JavaScript whitespace, a
// byte order mark included), split on "\n", blank lines are skipped and the
// others go through JSON.parse; failures are counted. Large inputs are
// judged on several CPUs (jsonl's batch pipeline), with the same result:
// the verdicts are applied in file order.
func (l *loader) read(r io.Reader) error {
	workers := 1
	if l.size >= minParallelBytes {
		workers = firstPassWorkers()
	}
	return l.readWith(r, workers)
}

// readWith is read with workers goroutines judging lines.
func (l *loader) readWith(r io.Reader, workers int) error {
	var acc verdicts
	acc.recs.size = l.size
	first := true
	err := jsonl.RunBatches(r, jsonl.Pipeline[judgedLines]{
		Workers:   workers,
		SizeHint:  l.size,
		BatchSize: firstPassBatch,
		NewWorker: func() func(*jsonl.Batch[judgedLines]) {
			ids := newArena(64 << 10) // records keep strings from here
			var s jsonl.Scanner
			return func(b *jsonl.Batch[judgedLines]) { b.Out.judge(b, &s, ids) }
		},
		Consume: func(b *jsonl.Batch[judgedLines]) error {
			if first && len(b.Out.verdicts) > 0 {
				first = false
				l.judgeFirst(b)
			}
			for _, v := range b.Out.verdicts {
				acc.apply(&l.malformed, v)
			}
			if b.Out.last > 0 {
				l.lines = b.Out.last
			}
			l.navigateEarly(acc.recs.recs)
			return nil
		},
	})
	l.recs = acc.finish()
	if err != nil {
		return fmt.Errorf("reading line %d: %w", l.lines+1, err)
	}
	l.navigateEarly(l.recs)
	return nil
}

// firstPassWorkers is how many goroutines judge the lines of a large
// input (a test seam).
var firstPassWorkers = func() int { return min(runtime.GOMAXPROCS(0), 4) }

// firstPassBatch is the input the first pass reads per batch (0: jsonl's
// default; a variable for tests).
var firstPassBatch = 0

// judgedLines is a batch's verdicts: one per non-blank line.
type judgedLines struct {
	verdicts []lineVerdict
	last     int // number of the batch's last line (0: the batch has none)
}

// judge judges the non-blank lines of b as lines other than the file's
// first (see [loader.judgeFirst]).
func (o *judgedLines) judge(b *jsonl.Batch[judgedLines], s *jsonl.Scanner, ids *arena) {
	clear(o.verdicts) // drop the records' strings
	o.verdicts, o.last = o.verdicts[:0], 0
	for ln := range b.Lines {
		o.last = ln.Num
		if !ln.Blank {
			o.verdicts = append(o.verdicts, judgeLine(s, ln.Bytes, ln.Offset, ln.Num, false, ids))
		}
	}
}

// judgeFirst judges again the first non-blank line of b, the file's first,
// whose leading JavaScript whitespace the file's trim removes; a worker
// could not know it was the first.
func (l *loader) judgeFirst(b *jsonl.Batch[judgedLines]) {
	for ln := range b.Lines {
		if ln.Blank {
			continue
		}
		if leadingJSSpace(ln.Bytes) > 0 {
			var s jsonl.Scanner
			b.Out.verdicts[0] = judgeLine(&s, ln.Bytes, ln.Offset, ln.Num, true, l.ids)
		}
		return
	}
}

// verdictKind is what JSON.parse makes of a non-blank line.
type verdictKind uint8

const (
	lineInvalid verdictKind = iota
	lineValid
	lineValidTrimmed // valid only without its trailing whitespace: good as the last line only
)

// lineVerdict is the first pass's judgement of one non-blank line.
type lineVerdict struct {
	kind verdictKind
	rec  record
}

// judgeLine judges one non-blank line with s (the file's first when
// first: its leading whitespace is trimmed) and scans its envelope,
// keeping strings in ids. One validating scan gives JSON.parse's verdict
// and the envelope.
func judgeLine(s *jsonl.Scanner, b []byte, off int64, num int, first bool, ids *arena) lineVerdict {
	if first {
		k := leadingJSSpace(b)
		b, off = b[k:], off+int64(k)
	}
	if e, err := scanEnvelope(s, b, ids); err == nil {
		return lineVerdict{kind: lineValid, rec: recordOf(e, b, off, num)}
	}
	if k := trailingJSSpace(b); k > 0 {
		b = b[:len(b)-k]
		if e, err := scanEnvelope(s, b, ids); err == nil {
			return lineVerdict{kind: lineValidTrimmed, rec: recordOf(e, b, off, num)}
		}
	}
	return lineVerdict{kind: lineInvalid}
}

// verdicts applies line verdicts in file order.
type verdicts struct {
	recs    recordList
	pending *record // a last-line candidate that parses only once trimmed
}

func (a *verdicts) apply(malformed *int, v lineVerdict) {
	if a.pending != nil { // it was not the last line after all
		a.pending = nil
		*malformed++
	}
	switch v.kind {
	case lineValid:
		a.recs.add(v.rec, v.rec.off)
	case lineValidTrimmed:
		rec := v.rec
		a.pending = &rec
	default:
		*malformed++
	}
}

// finish returns the records, the last line's included.
func (a *verdicts) finish() []record {
	if a.pending != nil {
		a.recs.add(*a.pending, a.pending.off)
		a.pending = nil
	}
	return a.recs.recs
}

// recordList grows the record list. Once the first lines are read, it
// reserves room for as many records as their average length predicts for
// the whole input (when its size is known): half a million records then
// cost one copy of a few hundred instead of the dozens a growing slice
// makes, each into memory the process has not touched yet.
type recordList struct {
	recs []record
	size int64 // input size, 0 when unknown
}

// firstEstimate is when the list estimates the total.
const firstEstimate = 256

func (c *recordList) add(r record, offset int64) {
	if len(c.recs) == cap(c.recs) {
		c.grow(offset)
	}
	c.recs = append(c.recs, r)
}

// grow makes room: the estimate at the first growth, then doubling.
func (c *recordList) grow(offset int64) {
	n := len(c.recs)
	newCap := max(2*n, firstEstimate)
	if n == firstEstimate && c.size > 0 && offset > 0 {
		// 10% to spare; never more than one record per 32 bytes of input.
		est := int64(float64(c.size)/float64(offset)*float64(n)*1.1) + 64
		newCap = max(newCap, int(min(est, c.size/32+64)))
	}
	next := make([]record, n, newCap)
	copy(next, c.recs)
	c.recs = next
}

// inputSize is r's size when r tells it (a regular file, an
// io.SectionReader of known size, a bytes.Reader...), else 0. It only
// sizes buffers and chooses the parallel first pass: reading goes to the
// end of the input whatever it says.
func inputSize(r io.Reader) int64 {
	switch s := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	case interface{ Size() int64 }:
		if n := s.Size(); n > 0 && n < math.MaxInt64 {
			return n
		}
	}
	return 0
}

// recordOf keeps what the loader needs of an envelope.
func recordOf(e Envelope, b []byte, off int64, num int) record {
	r := record{off: off, n: int32(len(b)), line: int32(num), typ: e.Type, shape: e.Shape,
		role: e.role, id: e.ID, parent: e.ParentID}
	set := func(f recFlags, on bool) {
		if on {
			r.flags |= f
		}
	}
	set(fTimestampOK, e.Timestamp == RefAbsent || e.Timestamp == RefString)
	set(fSide, e.Side)
	set(fAppendMode, e.AppendModeSet)
	set(fFieldsOK, e.FieldsOK)
	set(fMsgOKHook, e.MessageOKAfterHookMigration)
	set(fLegacy, e.LegacyReadable)
	set(fLegacyHook, e.LegacyReadableAfterHookMigration)
	set(fSnapshot, e.ModelSnapshot)
	set(fBoundaryOK, e.boundaryOK)
	if e.TargetID.State != RefAbsent || e.AppendParentID.State != RefAbsent || e.FirstKeptID.State != RefAbsent ||
		e.HasFirstKeptIndex || e.Version != nil {
		r.x = &recExtra{target: e.TargetID, appendParent: e.AppendParentID, firstKept: e.FirstKeptID,
			firstKeptIndex: e.FirstKeptIndex, hasFirstKeptIndex: e.HasFirstKeptIndex, version: e.Version}
	}
	if e.Shape == ShapePrimitive {
		r.extra().primitive = string(b)
	}
	if e.Type == TypeMessage && e.msgEnd > 0 {
		// All the context reads of a message entry is its message: the
		// second pass parses only that value's text.
		r.off, r.n = off+int64(e.msgStart), int32(e.msgEnd-e.msgStart)
		r.flags |= fMessageText
	}
	return r
}

// leadingJSSpace counts the bytes of leading JavaScript whitespace.
func leadingJSSpace(b []byte) int {
	i := 0
	for i < len(b) {
		c, n := utf8.DecodeRune(b[i:])
		if !jsonl.IsJSSpace(c) {
			break
		}
		i += n
	}
	return i
}

// trailingJSSpace counts the bytes of trailing JavaScript whitespace.
func trailingJSSpace(b []byte) int {
	end := len(b)
	for end > 0 {
		c, n := utf8.DecodeLastRune(b[:end])
		if !jsonl.IsJSSpace(c) {
			break
		}
		end -= n
	}
	return len(b) - end
}

// newID returns an id for an entry a migration numbers. OpenClaw draws a
// random UUID; these are deterministic and UUID-shaped.
func (l *loader) newID() string {
	l.ids0++
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", l.ids0)
}

// migrateLoaded is migrateSessionEntries on every parsed line: the header is
// the first line whose type is "session"; below version 3 the migration
// runs, and JavaScript's property accesses on null (and, below version 2,
// property writes on numbers, strings and booleans) throw.
func (l *loader) migrateLoaded() error {
	h := -1
	for i := range l.recs {
		r := &l.recs[i]
		if r.shape == ShapeNull {
			return nullError(r)
		}
		if r.shape == ShapeObject && r.typ == TypeSession {
			h = i
			break
		}
	}
	version := 1.0
	if h >= 0 {
		version = versionNumber(l.recs[h].extraVersion())
	}
	if !(version < 3) { // a NaN version also leaves every entry alone
		return nil
	}
	l.legacy = true
	for i := range l.recs {
		r := &l.recs[i]
		if r.shape == ShapeNull {
			return nullError(r)
		}
		if version < 2 && r.shape == ShapePrimitive {
			return &LoaderError{Line: int(r.line), Msg: primitiveWriteError(r.x.primitive)}
		}
	}
	l.renumber(version, func(idx int) *record {
		if idx >= 0 && idx < len(l.recs) {
			return &l.recs[idx]
		}
		return nil
	}, func(r *record) bool { return true })
	return nil
}

// extraVersion is a header's raw version text.
func (r *record) extraVersion() []byte {
	if r.x == nil {
		return nil
	}
	return r.x.version
}

// renumber is migrateToCurrentVersion's loop over entries selected by in:
// below version 2 every non-header entry gets a new id and the previous
// entry as parent, and a compaction's firstKeptEntryIndex becomes the id of
// the entry at that index (byIndex); below version 3 role hookMessage
// becomes custom, and headers get version 3.
func (l *loader) renumber(version float64, byIndex func(int) *record, in func(*record) bool) {
	prev := Null
	for i := range l.recs {
		r := &l.recs[i]
		if !in(r) {
			continue
		}
		isHeader := r.shape == ShapeObject && r.typ == TypeSession
		if version < 2 && !isHeader {
			r.id, r.parent = Str(l.newID()), prev
			prev = r.id
			if r.typ == TypeCompaction && r.x != nil && r.x.hasFirstKeptIndex {
				if id, ok := l.firstKeptFromIndex(r.x.firstKeptIndex, byIndex); ok {
					r.x.firstKept = id
				}
				r.x.hasFirstKeptIndex = false
			}
		}
		if version < 3 {
			if isHeader {
				r.extra().version = []byte("3")
			} else if r.typ == TypeMessage && r.role == roleHook {
				r.flags |= fHookMigrated
			}
		}
	}
}

// firstKeptFromIndex resolves a v1 firstKeptEntryIndex: the id of the
// entry at that position, when it is there, is not a header and has a
// truthy id.
func (l *loader) firstKeptFromIndex(text string, byIndex func(int) *record) (Ref, bool) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return Ref{}, false
	}
	t := byIndex(int(f))
	if t == nil || t.shape == ShapeNull || t.shape == ShapeObject && t.typ == TypeSession {
		return Ref{}, false
	}
	switch {
	case t.id.State == RefString && t.id.ID != "":
		return t.id, true
	case t.id.State == RefOther: // a truthy non-string id is copied; the schema then rejects it
		return Ref{State: RefOther}, true
	}
	return Ref{}, false
}

// nullError is the TypeError of reading a property of a null line.
func nullError(r *record) error {
	return &LoaderError{Line: int(r.line), Msg: "TypeError: Cannot read properties of null (reading 'type')"}
}

// primitiveWriteError is the strict-mode TypeError of giving a primitive an id.
func primitiveWriteError(text string) string {
	kind := "number"
	switch {
	case text == "true" || text == "false":
		kind = "boolean"
	case len(text) > 0 && text[0] == '"':
		kind = "string"
		if v, err := jsonl.Parse([]byte(text)); err == nil {
			text = v.StrOr("")
		}
	default:
		if v, err := jsonl.Parse([]byte(text)); err == nil {
			text = string(jsonl.AppendJSON(nil, &v))
		}
	}
	return fmt.Sprintf("TypeError: Cannot create property 'id' on %s '%s'", kind, text)
}

// partition is partitionSessionFileEntries: the header is the first
// "session" object with a string id; entries the schemas accept are file
// entries, every other line an opaque record.
func (l *loader) partition() {
	for i := range l.recs {
		r := &l.recs[i]
		if r.shape == ShapeObject && r.typ == TypeSession && r.id.State == RefString {
			l.header = i
			break
		}
	}
	source := 1.0
	if l.header >= 0 {
		source = versionNumber(l.recs[l.header].extraVersion())
	}
	for i := range l.recs {
		l.recognize(i, &l.recs[i], source)
	}
}

// recognize marks record i a file entry when the partition takes it for
// one, source being the header's version.
func (l *loader) recognize(i int, r *record, source float64) {
	if i == l.header || source < 3 && r.legacyReadable() || r.indexed() {
		r.flags |= fRecognized
	}
}

// migrateFileEntries is SessionManager's own migrateToCurrentVersion over
// the file entries, which runs again when the partition found no header
// (or one below version 3): ids are drawn a second time.
func (l *loader) migrateFileEntries() {
	version := 1.0
	if l.header >= 0 {
		version = versionNumber(l.recs[l.header].extraVersion())
	}
	if version >= 3 {
		return
	}
	l.migrated, l.legacy = true, true
	l.renumber(version, func(idx int) *record {
		if idx >= 0 && idx < len(l.recs) && l.recs[idx].has(fRecognized) {
			return &l.recs[idx]
		}
		return nil
	}, func(r *record) bool { return r.has(fRecognized) })
}

// navigate is buildIndex: every line, in file order, becomes a tree node
// (node i = record i).
func (l *loader) navigate() *Tree {
	t := NewTree(len(l.recs))
	for i := range l.recs {
		t.Add(l.nodeOf(i, &l.recs[i]))
	}
	return t
}

// nodeOf is record i as a tree node, once partitioned and migrated.
func (l *loader) nodeOf(i int, r *record) Node {
	switch {
	case i == l.header:
		return r.node(NodeInert)
	case r.has(fRecognized):
		if l.migrated && !r.indexed() {
			return r.node(NodeInert) // SessionManager skips migrated entries the codec rejects
		}
		r.flags |= fIndexed
		return r.node(NodeEntry)
	}
	return r.opaqueNode()
}

// earlyTree is the navigation of a current-version file built while its
// lines are still being judged: the first pass's workers judge the next
// batches meanwhile, so the tree no longer waits for the whole file.
//
// It applies when the first line that is null or a "session" object is a
// header with a string id and version 3 or more: the file then needs no
// migration (neither migrateSessionEntries' nor SessionManager's), that
// header is the partition's, and each record's place in the partition and
// the tree follows from the record alone, in file order. Any other file
// (no header, an older or unreadable version, a null line before the
// header) is partitioned and navigated after reading, as before.
type earlyTree struct {
	decided bool
	tree    *Tree   // nil: the tree is built after reading
	next    int     // the next record to look at for the header, or to navigate
	source  float64 // the header's version
}

// treeRoom is the room for nodes a tree of n nodes gets once full, the
// next at offset off of an input of size bytes (0: unknown). Until a
// sixteenth of the input is read, the room doubles; from there the lines
// read so far predict the rest (10% to spare). The first lines of a
// session (its header, a short prompt) are often much shorter than the
// others, so an earlier estimate could be many times too high, and the
// id index spreads its ids over all the room it has: too much room would
// cost memory, not only address space.
func treeRoom(n int, off, size int64) int {
	room := max(2*n, 1024)
	if size > 0 && off > 0 && off >= size/16 {
		room = max(n+1024, int(float64(n)*float64(size)/float64(off)*1.1))
	}
	return room
}

// navigateWhileReading turns earlyTree on (a test seam: off, every file is
// navigated after reading).
var navigateWhileReading = true

// navigateEarly navigates the records read so far, once the header says
// that the file needs no migration.
func (l *loader) navigateEarly(recs []record) {
	e := &l.early
	for navigateWhileReading && !e.decided && e.next < len(recs) {
		r := &recs[e.next]
		switch {
		case r.shape == ShapeNull:
			e.decided = true // migrateLoaded throws on it
		case r.shape == ShapeObject && r.typ == TypeSession:
			e.decided = true
			if v := versionNumber(r.extraVersion()); r.id.State == RefString && v >= 3 {
				l.header, e.tree, e.next, e.source = e.next, NewTree(0), 0, v
			}
		default:
			e.next++
		}
	}
	if e.tree == nil {
		return
	}
	for ; e.next < len(recs); e.next++ {
		r := &recs[e.next]
		if n := len(e.tree.nodes); n == cap(e.tree.nodes) {
			e.tree.Grow(treeRoom(n, r.off, l.size) - n)
		}
		l.recognize(e.next, r, e.source)
		e.tree.Add(l.nodeOf(e.next, r))
	}
}

// node is the record as a tree node of the given kind.
func (r *record) node(kind NodeKind) Node {
	n := Node{Line: int(r.line), Kind: kind, Type: r.typ}
	if kind == NodeInert {
		return n
	}
	n.ID, n.ParentID = r.id.ID, r.parent
	switch kind {
	case NodeEntry:
		n.Side = r.has(fSide)
		if r.x != nil {
			n.TargetID, n.FirstKeptID = r.x.target, r.x.firstKept
		}
	case NodeLeaf:
		n.TargetID, n.AppendParentID = r.x.target, r.x.appendParent
	}
	return n
}

// opaqueNode classifies a line the codec rejects: a leaf row, a record
// with id and parentId, or nothing.
func (r *record) opaqueNode() Node {
	switch {
	case r.leafRow():
		return r.node(NodeLeaf)
	case r.parentLinked():
		return r.node(NodeLink)
	}
	return r.node(NodeInert)
}
