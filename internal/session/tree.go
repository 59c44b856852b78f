package session

import (
	"hash/maphash"
	"slices"
	"unsafe"
)

// NodeKind says how a line takes part in navigation.
type NodeKind uint8

// Node kinds.
const (
	// NodeInert takes no part: the header, malformed shapes, non-objects,
	// opaque records without a usable id and parentId.
	NodeInert NodeKind = iota
	// NodeEntry is a canonical entry the entry codec accepts: it is indexed
	// by id and, unless it is a side entry, becomes the leaf.
	NodeEntry
	// NodeLeaf is a leaf control row (type "leaf" with id, parentId and
	// targetId of the right types).
	NodeLeaf
	// NodeLink is any other record with a non-empty string id and a string
	// or null parentId: it moves only the append cursor.
	NodeLink
)

// Node is the navigation envelope of one line, all [Tree] needs. Once
// added it costs about 40 bytes with an 8-byte id (see [Tree]), so a caller
// can stream huge files.
type Node struct {
	Line     int // physical line number, for reports
	Kind     NodeKind
	Type     EntryType
	ID       string
	ParentID Ref  // RefAbsent: a legacy entry without parentId (linked to the leaf)
	Side     bool // appendMode "side" on a canonical entry
	// TargetID: a label's targetId or a leaf row's targetId.
	TargetID Ref
	// AppendParentID: a leaf row's appendParentId (RefAbsent = targetId).
	AppendParentID Ref
	// FirstKeptID: a compaction's or reset's firstKeptEntryId.
	FirstKeptID Ref
}

// nid is a JavaScript value that is a string or null.
type nid struct {
	s  string
	ok bool // false: null
}

func some(s string) nid { return nid{s: s, ok: true} }

var none = nid{}

// truthy is JavaScript truthiness: null and "" are falsy.
func (n nid) truthy() bool { return n.ok && n.s != "" }

func nidOf(r Ref) nid {
	if r.State == RefString {
		return some(r.ID)
	}
	return none
}

// node is a stored Node: 16 bytes. Its id is a reference to the tree's
// text, where each id is kept once. The parent id is not stored at all:
// most parents are ids of earlier nodes, so a reference to such a node (or
// to the tree's list of other names) stands for the text. The small
// fields share one word (nodeMeta).
type node struct {
	id     textRef
	parent int32 // the parentId's text: a nameRef
	line   int32
	meta   nodeMeta
}

// nodeMeta packs a node's type (bits 0-3), kind (4-5), parentId's state
// (6-7), its flags (8-9) and how many nodes back the leaf was when it was
// added (10-31: 0 = no leaf, farBack = further, see Tree.farLeaves).
type nodeMeta uint32

const (
	// nodeSide: appendMode "side" on a canonical entry.
	nodeSide nodeMeta = 1 << 8
	// nodeIndexed: the id index names this node for its id (no later entry
	// took the id over), so a walk can follow a parent reference to it
	// without looking the id up.
	nodeIndexed nodeMeta = 1 << 9

	leafBackShift = 10
	farBack       = 1<<(32-leafBackShift) - 1
)

func packMeta(typ EntryType, kind NodeKind, state RefState) nodeMeta {
	return nodeMeta(typ)&15 | nodeMeta(kind)&3<<4 | nodeMeta(state)&3<<6
}

func (m nodeMeta) typ() EntryType        { return EntryType(m & 15) }
func (m nodeMeta) kind() NodeKind        { return NodeKind(m >> 4 & 3) }
func (m nodeMeta) parentState() RefState { return RefState(m >> 6 & 3) }
func (m nodeMeta) leafBack() int32       { return int32(m >> leafBackShift) }
func (m nodeMeta) withLeafBack(d int32) nodeMeta {
	return m&(1<<leafBackShift-1) | nodeMeta(d)<<leafBackShift
}

// nameRef names a string the tree keeps: a node index n >= 0 for
// nodes[n].id, or -1-k for names[k].
type nameRef = int32

// nodeExtra holds the rarely present references of a node.
type nodeExtra struct {
	target, appendParent, firstKept Ref
}

// opaqueRef is an opaque parent link: the parent, and the node that set it.
type opaqueRef struct {
	parent nid
	node   int32
}

// Tree replays OpenClaw's session navigation (2026.9.6
// SessionEntryNavigation, used by SessionManager for replay) over nodes
// added in file order, and answers what the active leaf and branch are.
//
// Rules, as OpenClaw applies them:
//   - A canonical entry is indexed by id (a later duplicate replaces the
//     earlier one) and becomes the leaf unless it is a side entry; either
//     way it becomes the append cursor.
//   - A canonical entry without parentId, or whose parentId is the append
//     cursor while the leaf differs, is logically re-parented onto the
//     leaf; after a reset, so is any non-side entry whose parent lies
//     outside the reset's subtree.
//   - A label whose target is unknown is not indexed (it only records a
//     parent link).
//   - A leaf row selects its target as leaf and appendParentId (default:
//     the target) as cursor; a row naming unknown ids is invalid and only
//     records a parent link.
//   - Other records with id and parentId only move the append cursor.
//
// Memory: 16 bytes a node, 11 to 21 bytes an indexed entry for the id
// index, each distinct id's bytes once (plus a byte or two of length),
// the ids of the latest reset's subtree (in a second id index), and maps
// for the rare records (opaque links, leaf rows, labels, re-parented
// entries). BenchmarkTreeMemory measures it.
type Tree struct {
	nodes  []node
	extras map[int32]*nodeExtra
	text   treeText // the nodes' ids, and the strings the tree owns
	names  []string // parent ids no node had when they were added
	own    bool     // copy the strings Add keeps

	byID           idIndex // indexed entries (the later of a duplicate)
	opaqueParents  map[string]opaqueRef
	logicalParents map[string]nid
	invalidLeaf    map[string]struct{}
	resetDesc      idIndex // ids of the latest reset's subtree
	latestReset    bool
	leaf           nid
	leafIdx        int32           // byID's node for leaf, -1 = none
	farLeaves      map[int32]int32 // prevLeaf of the nodes whose leaf was farBack nodes back or more
	warm           uint64          // what Prefetch read (kept, so that the reads are made)
	appendParent   nid
	dups           []Duplicate
}

// Duplicate is an id used by two lines; the later one wins.
type Duplicate struct {
	ID                  string
	FirstLine, LastLine int
}

// NewTree returns an empty tree; sizeHint is the expected number of nodes.
func NewTree(sizeHint int) *Tree {
	t := &Tree{
		nodes:          make([]node, 0, sizeHint),
		extras:         map[int32]*nodeExtra{},
		opaqueParents:  map[string]opaqueRef{},
		logicalParents: map[string]nid{},
		invalidLeaf:    map[string]struct{}{},
		leafIdx:        -1,
	}
	t.byID.init(sizeHint)
	t.resetDesc.init(0)
	return t
}

// OwnStrings makes Add copy every string it keeps into memory the tree
// owns, so that a caller may pass strings that alias a buffer it reuses:
// the references (parent ids no node has, targets) as well as the ids,
// which the tree always keeps in its own text. Call it before the first
// Add.
func (t *Tree) OwnStrings() { t.own = true }

// Grow reserves room for n more nodes (and their ids in the index), so
// that a caller who can estimate the node count (from a file's size)
// spares the tree the copies and the fresh memory of growing step by step.
func (t *Tree) Grow(n int) {
	if n <= 0 {
		return
	}
	if cap(t.nodes)-len(t.nodes) < n {
		// make, not slices.Grow: a large allocation from fresh memory is
		// not cleared (and one that is, is cleared in preemptible
		// pieces), where growing clears the room in one call the
		// collector cannot interrupt, page faults and all. The nodes are
		// copied in pieces for the same reason.
		nodes := make([]node, len(t.nodes), len(t.nodes)+n)
		for i := 0; i < len(nodes); i += copyPieceNodes {
			copy(nodes[i:], t.nodes[i:min(i+copyPieceNodes, len(nodes))])
		}
		t.nodes = nodes
	}
	t.byID.reserve(len(t.nodes) + n)
}

// copyPieceNodes is how many nodes Grow copies in one call (64 KiB): the
// collector can stop the goroutine between two calls, not within one,
// and on a machine where each fresh page faults slowly a call copying
// megabytes into fresh memory would keep it waiting.
const copyPieceNodes = 64 << 10 / int(unsafe.Sizeof(node{}))

// ID returns the id of the i-th added node ("" for an inert node).
func (t *Tree) ID(i int) string { return t.idOf(int32(i)) }

// idOf is the id of node i.
func (t *Tree) idOf(i int32) string { return t.text.str(t.nodes[i].id) }

// Node returns the i-th added node.
func (t *Tree) Node(i int) Node {
	n := &t.nodes[i]
	out := Node{Line: int(n.line), Kind: n.meta.kind(), Type: n.meta.typ(), ID: t.text.str(n.id),
		ParentID: Ref{ID: t.parentText(n), State: n.meta.parentState()}, Side: n.meta&nodeSide != 0}
	if x := t.extras[int32(i)]; x != nil {
		out.TargetID, out.AppendParentID, out.FirstKeptID = x.target, x.appendParent, x.firstKept
	}
	return out
}

// parentText is the node's parentId ("" unless it is a string).
func (t *Tree) parentText(n *node) string {
	if n.meta.parentState() != RefString {
		return ""
	}
	return t.name(n.parent)
}

// parentNid is the node's parentId as a string-or-null value.
func (t *Tree) parentNid(n *node) nid {
	return nid{s: t.parentText(n), ok: n.meta.parentState() == RefString}
}

func (t *Tree) name(r nameRef) string {
	if r >= 0 {
		return t.idOf(r)
	}
	return t.names[-1-r]
}

// nameOf returns a reference to s and the tree's copy of it: the id of a
// node that has it, else a new entry of names.
func (t *Tree) nameOf(s string) (nameRef, string) {
	// Most parents are the previous line or the leaf: no hashing for them.
	if n := int32(len(t.nodes)); n > 0 && s != "" {
		if id := t.idOf(n - 1); id == s {
			return n - 1, id
		}
	}
	if t.leafIdx >= 0 {
		if id := t.idOf(t.leafIdx); id == s {
			return t.leafIdx, id
		}
	}
	h := hashID(s)
	if i, ok := t.nodeWithID(s, h); ok {
		return i, t.idOf(i)
	}
	s = t.keep(s, h)
	t.names = append(t.names, s)
	return -int32(len(t.names)), s
}

// nodeWithID is a node whose id is s (h is its hashID): the indexed entry,
// else the opaque record.
func (t *Tree) nodeWithID(s string, h uint64) (int32, bool) {
	if i, ok := t.byID.getHashed(t, s, h); ok {
		return i, true
	}
	if o, ok := t.opaqueParents[s]; ok {
		return o.node, true
	}
	return 0, false
}

// keep returns s, or its copy when the tree owns its strings. A string an
// existing node has as id is shared instead of copied. h is s's hashID.
func (t *Tree) keep(s string, h uint64) string {
	if !t.own || s == "" {
		return s
	}
	if i, ok := t.nodeWithID(s, h); ok {
		return t.idOf(i)
	}
	return t.text.str(t.text.add(s))
}

func (t *Tree) keepRef(r Ref) Ref {
	r.ID = t.keep(r.ID, hashID(r.ID))
	return r
}

// Add adds the next node in file order and returns its index.
func (t *Tree) Add(n Node) int { return t.AddHashed(n, hashID(n.ID)) }

// HashID is the hash the tree files an id under, for [Tree.AddHashed] and
// [Tree.Prefetch]: a caller can compute it on another goroutine.
func HashID(id string) uint64 { return hashID(id) }

// Prefetch reads the part of the id index where the id whose [HashID] is h
// would be, so that a coming AddHashed of it finds it in the cache: the
// index of a large session is larger than the caches, and a caller that
// knows the next ids can have their lookups overlap rather than wait for
// memory one after the other.
func (t *Tree) Prefetch(h uint64) {
	t.warm ^= t.byID.slots[t.byID.start(h&0xFFFFFFFF)]
}

// AddHashed is Add with the node's id's [HashID].
func (t *Tree) AddHashed(n Node, h uint64) int {
	idx := int32(len(t.nodes))
	// The node's id is looked up once: the earlier node with it (a
	// duplicate) is all the adding needs to know before indexing it.
	var prior earlier
	prior.node, prior.ok = t.nodeWithID(n.ID, h)
	var id textRef
	if prior.ok {
		id = t.nodes[prior.node].id
	} else {
		id = t.text.add(n.ID)
	}
	n.ID = t.text.str(id)
	parent := int32(0)
	if n.ParentID.State == RefString {
		parent, n.ParentID.ID = t.nameOf(n.ParentID.ID)
	}
	meta := packMeta(n.Type, n.Kind, n.ParentID.State)
	if n.Side {
		meta |= nodeSide
	}
	t.nodes = append(t.nodes, node{id: id, parent: parent, line: int32(n.Line), meta: t.withPrevLeaf(meta, idx)})
	if n.TargetID.State != RefAbsent || n.AppendParentID.State != RefAbsent || n.FirstKeptID.State != RefAbsent {
		n.TargetID, n.AppendParentID, n.FirstKeptID = t.keepRef(n.TargetID), t.keepRef(n.AppendParentID), t.keepRef(n.FirstKeptID)
		t.extras[idx] = &nodeExtra{target: n.TargetID, appendParent: n.AppendParentID, firstKept: n.FirstKeptID}
	}
	switch n.Kind {
	case NodeEntry:
		t.addEntry(idx, &n, h, prior)
	case NodeLeaf:
		t.addLeafRow(idx, &n, prior)
	case NodeLink:
		t.noteDuplicate(idx, n.ID, prior)
		parent := nidOf(n.ParentID)
		t.opaqueParents[n.ID] = opaqueRef{parent: parent, node: idx}
		if t.latestReset && parent.ok && t.inReset(parent.s) {
			t.resetDesc.put(t, n.ID, idx)
		}
		t.appendParent = some(n.ID)
	}
	return int(idx)
}

// withPrevLeaf notes in meta, node idx's, where the leaf is now.
func (t *Tree) withPrevLeaf(meta nodeMeta, idx int32) nodeMeta {
	if t.leafIdx < 0 {
		return meta
	}
	back := idx - t.leafIdx
	if back >= farBack {
		if t.farLeaves == nil {
			t.farLeaves = map[int32]int32{}
		}
		t.farLeaves[idx], back = t.leafIdx, farBack
	}
	return meta.withLeafBack(back)
}

// prevLeaf is the node of the leaf when node i was added, -1 = none.
func (t *Tree) prevLeaf(i int32) int32 {
	switch back := t.nodes[i].meta.leafBack(); back {
	case 0:
		return -1
	case farBack:
		return t.farLeaves[i]
	default:
		return i - back
	}
}

// setLeaf moves the leaf and finds its indexed node.
func (t *Tree) setLeaf(leaf nid) {
	t.leaf, t.leafIdx = leaf, -1
	if !leaf.ok {
		return
	}
	if i, ok := t.byID.get(t, leaf.s); ok {
		t.leafIdx = i
	}
}

// addEntry is appendCanonicalNavigationEntry.
func (t *Tree) addEntry(idx int32, n *Node, h uint64, prior earlier) {
	if n.Type == TypeLabel && !t.has(n.TargetID) {
		t.noteDuplicate(idx, n.ID, prior)
		t.opaqueParents[n.ID] = opaqueRef{parent: t.canonicalParent(nidOf(n.ParentID)), node: idx}
		return
	}
	if t.reparentsOntoLeaf(n) {
		t.logicalParents[n.ID] = t.leaf
	}
	t.noteDuplicate(idx, n.ID, prior)
	t.byID.putHashed(t, n.ID, idx, h)
	if prior.ok {
		t.nodes[prior.node].meta &^= nodeIndexed // the index names idx now
	}
	t.nodes[idx].meta |= nodeIndexed
	if t.leaf.ok && t.leaf.s == n.ID {
		t.leafIdx = idx // the leaf's id now names this entry
	}
	if n.Type == TypeReset {
		t.latestReset = true
		t.resetDesc.reset()
		t.resetDesc.put(t, n.ID, idx)
	} else if t.latestReset {
		logical := nidOf(n.ParentID)
		if lp, ok := t.logicalParents[n.ID]; ok {
			logical = lp
		}
		if logical.ok && t.inReset(logical.s) {
			t.resetDesc.put(t, n.ID, idx)
		}
	}
	t.appendParent = some(n.ID)
	if !n.Side {
		t.leaf, t.leafIdx = some(n.ID), idx
	}
}

// reparentsOntoLeaf decides whether the entry's logical parent is the leaf.
func (t *Tree) reparentsOntoLeaf(n *Node) bool {
	parent := nidOf(n.ParentID)
	switch {
	case n.ParentID.State == RefAbsent:
		return true
	case t.latestReset && !n.Side && (!parent.ok || !t.inReset(parent.s)):
		return true
	}
	return !n.Side && parent == t.appendParent && t.leaf != t.appendParent
}

// addLeafRow is appendOpaqueNavigationRecord for a leaf control row.
func (t *Tree) addLeafRow(idx int32, n *Node, prior earlier) {
	t.noteDuplicate(idx, n.ID, prior)
	if !t.knownLeafRef(n.TargetID) || n.AppendParentID.State != RefAbsent && !t.knownLeafRef(n.AppendParentID) {
		t.invalidLeaf[n.ID] = struct{}{}
		t.opaqueParents[n.ID] = opaqueRef{parent: t.opaqueAppendParent(nidOf(n.ParentID)), node: idx}
		return
	}
	leaf := t.leafTarget(nidOf(n.TargetID))
	cursor := leaf
	if n.AppendParentID.State != RefAbsent {
		cursor = t.opaqueAppendParent(nidOf(n.AppendParentID))
	}
	if t.latestReset && (!leaf.ok || !t.inReset(leaf.s)) {
		leaf, cursor = t.leaf, t.leaf // a reset keeps the active window
	}
	t.opaqueParents[n.ID] = opaqueRef{parent: leaf, node: idx}
	if t.latestReset && leaf.ok && t.inReset(leaf.s) {
		t.resetDesc.put(t, n.ID, idx)
	}
	t.setLeaf(leaf)
	t.appendParent = cursor
}

func (t *Tree) inReset(id string) bool { _, ok := t.resetDesc.get(t, id); return ok }

// has reports a string reference to an indexed entry.
func (t *Tree) has(r Ref) bool {
	if r.State != RefString {
		return false
	}
	_, ok := t.byID.get(t, r.ID)
	return ok
}

// knownLeafRef is resolveOpaqueLeafControl's isKnownReference.
func (t *Tree) knownLeafRef(r Ref) bool {
	if r.State == RefNull {
		return true
	}
	if _, ok := t.byID.get(t, r.ID); ok {
		return true
	}
	_, opaque := t.opaqueParents[r.ID]
	_, invalid := t.invalidLeaf[r.ID]
	return opaque && !invalid
}

// leafTarget is resolveOpaqueLeafTargetId.
func (t *Tree) leafTarget(id nid) nid {
	if !id.ok {
		return id
	}
	if _, ok := t.byID.get(t, id.s); ok {
		return id
	}
	return t.canonicalParent(id)
}

// opaqueAppendParent is resolveOpaqueAppendParentId.
func (t *Tree) opaqueAppendParent(id nid) nid {
	if !id.ok {
		return id
	}
	if _, ok := t.byID.get(t, id.s); ok {
		return id
	}
	if _, ok := t.opaqueParents[id.s]; ok {
		return id
	}
	return t.canonicalParent(id)
}

// canonicalParent is resolveSessionCanonicalParentId: follow opaque links
// up to an indexed entry; a cycle or a dead end gives null.
func (t *Tree) canonicalParent(id nid) nid {
	p, _ := t.canonicalParentOrMissing(id)
	return p
}

// canonicalParentOrMissing is canonicalParent that also names the id the
// chain ended at when no line has it.
func (t *Tree) canonicalParentOrMissing(id nid) (nid, string) {
	p, missing, _ := t.canonicalParentIndexed(id, -1)
	return p, missing
}

// canonicalParentIndexed is canonicalParentOrMissing that also returns the
// indexed node the parent names (-1 when none). hint is a node that may be
// the one id names (-1: none): when the index still names it for id, it
// is taken without looking id up.
func (t *Tree) canonicalParentIndexed(id nid, hint int32) (p nid, missing string, idx int32) {
	var seen map[string]struct{}
	cur := id
	idx = -1
	if cur.truthy() && hint >= 0 && t.nodes[hint].meta&nodeIndexed != 0 && t.idOf(hint) == cur.s {
		return cur, "", hint
	}
	for cur.truthy() {
		if i, ok := t.byID.get(t, cur.s); ok {
			idx = i
			break
		}
		if _, loop := seen[cur.s]; loop {
			return none, "", -1
		}
		if seen == nil {
			seen = map[string]struct{}{}
		}
		seen[cur.s] = struct{}{}
		o, ok := t.opaqueParents[cur.s]
		if !ok {
			return none, cur.s, -1
		}
		cur = o.parent
	}
	return cur, "", idx
}

// earlier is the node that had a new node's id before it (nodeWithID).
type earlier struct {
	node int32
	ok   bool
}

// noteDuplicate records node idx as a duplicate when an earlier node has
// its id.
func (t *Tree) noteDuplicate(idx int32, id string, prior earlier) {
	if prior.ok {
		t.dups = append(t.dups, Duplicate{ID: id, FirstLine: int(t.nodes[prior.node].line), LastLine: int(t.nodes[idx].line)})
	}
}

// Duplicates lists the ids that two navigating lines share, in file order
// of the later line.
func (t *Tree) Duplicates() []Duplicate { return t.dups }

// leafIndex is the node of the current leaf.
func (t *Tree) leafIndex() (int, bool) {
	return int(t.leafIdx), t.leafIdx >= 0
}

// Leaf returns the node index of the active leaf; false when the session
// has no leaf (no entries, or a leaf row selected null).
func (t *Tree) Leaf() (int, bool) { return t.leafIndex() }

// entryParent is normalizeEntryParent's parent: the logical parent when the
// entry was re-parented, else the canonical parent, never the entry itself.
// missing names an id its parent chain led to that no line has.
func (t *Tree) entryParent(i int32) (parent nid, missing string) {
	parent, missing, _ = t.entryParentIndexed(i)
	return parent, missing
}

// entryParentIndexed is entryParent that also returns the indexed node the
// parent names when resolving it found one (-1 otherwise): a walk then
// need not look the id up again.
func (t *Tree) entryParentIndexed(i int32) (parent nid, missing string, idx int32) {
	n := &t.nodes[i]
	id := t.text.str(n.id)
	if lp, ok := t.logicalParents[id]; ok {
		parent, idx = lp, -1
	} else {
		hint := int32(-1)
		if n.meta.parentState() == RefString && n.parent >= 0 {
			hint = n.parent // the node that had the parent's id when n was added
		}
		parent, missing, idx = t.canonicalParentIndexed(t.parentNid(n), hint)
	}
	if parent.ok && parent.s == id {
		return none, "", -1
	}
	return parent, missing, idx
}

// resolvedParent is resolveEntryParentId.
func (t *Tree) resolvedParent(i int32) nid {
	p, _ := t.resolvedParentOrMissing(i)
	return p
}

func (t *Tree) resolvedParentOrMissing(i int32) (nid, string) {
	n := &t.nodes[i]
	if lp, ok := t.logicalParents[t.text.str(n.id)]; ok {
		return lp, ""
	}
	return t.canonicalParentOrMissing(t.parentNid(n))
}

// Path is a branch: indexed entries from the root to the leaf.
type Path struct {
	Nodes []int // node indices, root first
	// Parents[i] is the parent Nodes[i] has on the path (its logical or
	// canonical parent): Parents[0] is "" for a root.
	Parents []string
	// MissingID is the id the walk looked for and found nowhere (the
	// branch was cut there), "" when it ended at a root.
	MissingID string
	// Cycle reports that the walk met an id twice and stopped.
	Cycle bool
}

// branchNodes is getBranch(): the path from the active leaf to its root,
// without Path.Parents.
func (t *Tree) branchNodes() Path {
	if !t.leaf.ok {
		return Path{}
	}
	return t.walk(t.leaf.s, false)
}

// walk walks from id to its root. Unknown ids met on the way end the walk
// (the reachable suffix is kept); a repeated id ends it too. Without
// parents it leaves Path.Parents nil.
func (t *Tree) walk(id string, parents bool) Path {
	// A branch is usually most of the file: room for every node saves the
	// copies of growing the lists (at most 24 bytes a node).
	p := Path{Nodes: make([]int, 0, len(t.nodes))}
	if parents {
		p.Parents = make([]string, 0, len(t.nodes))
	}
	p.MissingID, p.Cycle = t.walkEach(id, func(i int32, parent nid) {
		p.Nodes = append(p.Nodes, int(i))
		if parents {
			p.Parents = append(p.Parents, parent.s)
		}
	})
	slices.Reverse(p.Nodes)
	slices.Reverse(p.Parents)
	return p
}

// walkEach walks from id to its root as walk does, calling each with every
// indexed node met (the leaf first) and the parent it has on the path, and
// returns what walk puts in Path.MissingID and Path.Cycle. It keeps no list:
// a caller that only counts or marks nodes needs none.
func (t *Tree) walkEach(id string, each func(i int32, parent nid)) (missingID string, cycle bool) {
	// An id names one node (the index's or the opaque map's), so a bit per
	// node stands in for OpenClaw's set of seen ids.
	seen := newNodeSet(len(t.nodes))
	visit := func(i int32) bool {
		if seen.has(int(i)) {
			return false
		}
		seen.add(int(i))
		return true
	}
	cur := some(id)
	known := int32(-1) // the indexed node cur names, when resolving it found it
	for cur.truthy() {
		i, ok := known, known >= 0
		if !ok {
			i, ok = t.byID.get(t, cur.s)
		}
		if ok {
			if !visit(i) {
				return missingID, true
			}
			parent, missing, idx := t.entryParentIndexed(i)
			known = idx
			each(i, parent)
			missingID = missing
			cur = parent
			continue
		}
		o, ok := t.opaqueParents[cur.s]
		if !ok {
			return cur.s, false
		}
		if !visit(o.node) {
			return missingID, true
		}
		cur = o.parent
	}
	return missingID, false
}

// MissingParent is a navigating line whose parentId names no line.
type MissingParent struct {
	Node     int
	Line     int
	ParentID string
}

// MissingParents lists lines whose string parentId is neither an indexed
// entry nor an opaque record, in file order.
func (t *Tree) MissingParents() []MissingParent {
	var out []MissingParent
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.meta.kind() == NodeInert || n.meta.parentState() != RefString {
			continue
		}
		if n.parent >= 0 && t.nodes[n.parent].meta.kind() != NodeInert {
			continue // that node had the parent's id when n was added: the index or the opaque map still has the id
		}
		parent := t.parentText(n)
		if parent == "" {
			continue
		}
		if _, ok := t.nodeWithID(parent, hashID(parent)); ok {
			continue
		}
		out = append(out, MissingParent{Node: i, Line: int(n.line), ParentID: parent})
	}
	return out
}

// Cut describes how a missing parent shortens the active branch.
type Cut struct {
	MissingID string
	// FirstLine is the line of the first entry of the cut branch.
	FirstLine int
	// Lost counts the entries of the branch that was active just before
	// that first entry was appended and that the active branch no longer
	// reaches: the history its missing parent most likely led back to.
	Lost int
}

// BranchCut reports whether the active branch ends at a missing parent, and
// what that costs.
func (t *Tree) BranchCut() (Cut, bool) {
	if !t.leaf.ok {
		return Cut{}, false
	}
	// The walks mark and count nodes rather than list them: a branch is
	// most of the file, and its list would take 8 bytes a node.
	active := newNodeSet(len(t.nodes))
	root := int32(-1) // the first entry of the branch: the walk's last
	missing, _ := t.walkEach(t.leaf.s, func(i int32, _ nid) {
		active.add(int(i))
		root = i
	})
	if missing == "" || root < 0 {
		return Cut{}, false
	}
	first := &t.nodes[root]
	c := Cut{MissingID: missing, FirstLine: int(first.line)}
	prevLeaf := t.prevLeaf(root)
	if prevLeaf < 0 {
		return c, true
	}
	t.walkEach(t.idOf(prevLeaf), func(i int32, _ nid) {
		if !active.has(int(i)) {
			c.Lost++
		}
	})
	return c, true
}

// nodeSet is a set of node indexes, a bit each.
type nodeSet []uint64

func newNodeSet(n int) nodeSet   { return make(nodeSet, (n+63)/64) }
func (s nodeSet) add(i int)      { s[i/64] |= 1 << (i % 64) }
func (s nodeSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// firstKept returns the node's firstKeptEntryId reference.
func (t *Tree) firstKept(i int32) Ref {
	if x := t.extras[i]; x != nil {
		return x.firstKept
	}
	return Ref{}
}

// resolveFirstKept is SessionManager.normalizeEntryParent's treatment of a
// compaction or reset whose firstKeptEntryId names an opaque record: the
// id moves to the canonical entry that record stands for
// (resolveOpaqueSessionFirstKeptEntryId). parent is the boundary's parent
// on the path.
func (t *Tree) resolveFirstKept(i int32, parent nid) (string, bool) {
	fk := t.firstKept(i)
	if fk.State != RefString {
		return fk.ID, false
	}
	if _, ok := t.byID.get(t, fk.ID); ok {
		return fk.ID, true
	}
	if _, ok := t.opaqueParents[fk.ID]; !ok {
		return fk.ID, true
	}
	if r := t.opaqueFirstKept(fk.ID, parent, t.resolvedParent(i)); r.truthy() && r.s != fk.ID {
		return r.s, true
	}
	return fk.ID, true
}

// opaqueFirstKept is resolveOpaqueSessionFirstKeptEntryId.
func (t *Tree) opaqueFirstKept(firstKept string, parent, fallback nid) nid {
	if p := t.canonicalParent(some(firstKept)); p.ok {
		return p
	}
	seen := map[string]struct{}{}
	var descendant nid
	for cur := parent; cur.truthy(); {
		if _, loop := seen[cur.s]; loop {
			break
		}
		if cur.s == firstKept {
			if descendant.ok {
				return descendant
			}
			break
		}
		seen[cur.s] = struct{}{}
		if i, ok := t.byID.get(t, cur.s); ok {
			descendant = cur
			n := &t.nodes[i]
			cur = t.parentNid(n)
		} else {
			cur = t.opaqueParents[cur.s].parent
		}
	}
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.meta.kind() != NodeEntry {
			continue // OpenClaw scans every entry the codec accepts, in file order
		}
		ancestors := map[string]struct{}{}
		cur := t.parentNid(n)
		for cur.truthy() {
			o, ok := t.opaqueParents[cur.s]
			if !ok {
				break
			}
			if _, loop := ancestors[cur.s]; loop {
				break
			}
			if cur.s == firstKept {
				return some(t.idOf(int32(i)))
			}
			ancestors[cur.s] = struct{}{}
			cur = o.parent
		}
	}
	return fallback
}

// idIndex maps ids to node indexes by open addressing over the nodes' own
// id strings: an id costs one 8-byte slot (at most three quarters of the
// slots are used) and is never copied. A slot holds 32 bits of the id's
// hash next to the node index, so probing compares ids only when the hash
// bits match: a miss reads the slots alone, not the nodes. The slot count
// need not be a power of two (the hash bits are scaled to it), so a
// reserved index is sized to its ids, not to the next power of two above
// them. Entries are added or replaced, never removed one by one.
type idIndex struct {
	slots []uint64 // hash<<32 | node index+1; 0 is empty
	used  int
}

var idIndexSeed = maphash.MakeSeed()

func (x *idIndex) init(sizeHint int) {
	x.slots, x.used = make([]uint64, slotsFor(sizeHint)), 0
}

// slotsFor is the slot count that holds n entries at the highest load
// allowed (three quarters), at least 8.
func slotsFor(n int) int { return max(8, n+n/3+1) }

// reserve grows the slots to hold n entries without growing again.
func (x *idIndex) reserve(n int) {
	if n*4 > len(x.slots)*3 {
		x.rehash(slotsFor(n))
	}
}

// reset empties the index, keeping its slots.
func (x *idIndex) reset() {
	clear(x.slots)
	x.used = 0
}

func hashID(id string) uint64 { return maphash.String(idIndexSeed, id) }

// find returns the slot of id (whose hashID is h): the one holding it, or
// the empty one where it goes. The probe starts where the hash bits the
// slot keeps scale to, so growing needs no hashing.
func (x *idIndex) find(t *Tree, id string, h uint64) int {
	fp := h & 0xFFFFFFFF
	for i := x.start(fp); ; i = x.nextSlot(i) {
		s := x.slots[i]
		if s == 0 || s>>32 == fp && t.idOf(int32(uint32(s)-1)) == id {
			return i
		}
	}
}

// start is the first slot a probe for hash bits fp looks at.
func (x *idIndex) start(fp uint64) int { return int(fp * uint64(len(x.slots)) >> 32) }

// nextSlot is the slot a probe looks at after i.
func (x *idIndex) nextSlot(i int) int {
	if i++; i == len(x.slots) {
		return 0
	}
	return i
}

// get returns the node indexed under id.
func (x *idIndex) get(t *Tree, id string) (int32, bool) {
	return x.getHashed(t, id, hashID(id))
}

// getHashed is get with id's hashID.
func (x *idIndex) getHashed(t *Tree, id string, h uint64) (int32, bool) {
	s := x.slots[x.find(t, id, h)]
	return int32(uint32(s)) - 1, s != 0
}

// put indexes node idx (whose id is id) under id, replacing an earlier node.
func (x *idIndex) put(t *Tree, id string, idx int32) {
	x.putHashed(t, id, idx, hashID(id))
}

// putHashed is put with id's hashID.
func (x *idIndex) putHashed(t *Tree, id string, idx int32, h uint64) {
	i := x.find(t, id, h)
	if x.slots[i] == 0 {
		x.used++
	}
	x.slots[i] = h<<32 | uint64(uint32(idx+1))
	if x.used*4 > len(x.slots)*3 {
		x.rehash(2 * len(x.slots))
	}
}

// rehash moves every entry to size slots.
func (x *idIndex) rehash(size int) {
	old := x.slots
	x.slots = make([]uint64, size)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := x.start(s >> 32)
		for x.slots[i] != 0 {
			i = x.nextSlot(i)
		}
		x.slots[i] = s
	}
}
