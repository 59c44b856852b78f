package session

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// entry, side, link and leafRow build nodes for the tree tests.
func entry(id string, parent Ref) Node {
	return Node{Kind: NodeEntry, Type: TypeMessage, ID: id, ParentID: parent}
}

func side(id string, parent Ref) Node {
	n := entry(id, parent)
	n.Side = true
	return n
}

func link(id string, parent Ref) Node {
	return Node{Kind: NodeLink, Type: TypeOther, ID: id, ParentID: parent}
}

func leafRow(id string, target, appendParent Ref) Node {
	return Node{Kind: NodeLeaf, Type: TypeLeaf, ID: id, ParentID: Null, TargetID: target, AppendParentID: appendParent}
}

func typed(n Node, t EntryType) Node { n.Type = t; return n }

// branchIDs returns the ids of the active branch, root first.
func branchIDs(t *Tree) []string {
	var ids []string
	for _, i := range t.Branch().Nodes {
		ids = append(ids, t.Node(i).ID)
	}
	return ids
}

func buildTree(nodes ...Node) *Tree {
	t := NewTree(len(nodes))
	for i, n := range nodes {
		n.Line = i + 1
		t.Add(n)
	}
	return t
}

func TestTreeLeafAndBranch(t *testing.T) {
	tests := []struct {
		name   string
		nodes  []Node
		leaf   string // "" = no leaf
		branch []string
	}{
		{"linear chain", []Node{entry("a", Null), entry("b", Str("a")), entry("c", Str("b"))}, "c", []string{"a", "b", "c"}},
		{"later sibling becomes the leaf", []Node{entry("a", Null), entry("b", Str("a")), entry("c", Str("a"))}, "c", []string{"a", "c"}},
		{"side entry never becomes the leaf", []Node{entry("a", Null), side("s", Str("a"))}, "a", []string{"a"}},
		{"child of the cursor is re-parented onto the leaf",
			[]Node{entry("a", Null), entry("b", Str("a")), side("s", Str("b")), entry("c", Str("s"))}, "c", []string{"a", "b", "c"}},
		{"opaque record moves only the cursor",
			[]Node{entry("a", Null), link("o", Str("a")), entry("b", Str("o"))}, "b", []string{"a", "b"}},
		{"opaque parent not at the cursor is walked through",
			[]Node{entry("a", Null), link("o", Str("a")), entry("x", Str("a")), entry("b", Str("o"))}, "b", []string{"a", "b"}},
		{"entry without parentId joins the leaf", []Node{entry("a", Null), entry("b", Ref{})}, "b", []string{"a", "b"}},
		{"leaf row selects its target",
			[]Node{entry("a", Null), entry("b", Str("a")), entry("c", Str("a")), leafRow("L", Str("b"), Ref{})}, "b", []string{"a", "b"}},
		{"leaf row to unknown ids is ignored",
			[]Node{entry("a", Null), entry("b", Str("a")), leafRow("L", Str("zz"), Ref{})}, "b", []string{"a", "b"}},
		{"leaf row to null clears the leaf", []Node{entry("a", Null), leafRow("L", Null, Ref{})}, "", nil},
		{"leaf row's append parent gets the next entry re-parented",
			[]Node{entry("a", Null), entry("b", Str("a")), entry("c", Str("a")), leafRow("L", Str("b"), Str("c")), entry("d", Str("c"))},
			"d", []string{"a", "b", "d"}},
		{"missing parent truncates the branch",
			[]Node{entry("a", Null), entry("c", Str("gone")), entry("d", Str("c"))}, "d", []string{"c", "d"}},
		{"parent cycle stops the walk", []Node{entry("a", Str("b")), entry("b", Str("a"))}, "b", []string{"a", "b"}},
		{"own parent is a root", []Node{entry("a", Null), entry("b", Str("b"))}, "b", []string{"b"}},
		{"duplicate id: the later entry wins",
			[]Node{entry("a", Null), entry("b", Str("a")), entry("a", Str("b")), entry("c", Str("a"))}, "c", []string{"b", "a", "c"}}, // the walk stops at the first "a" again
		{"label with an unknown target is not indexed",
			[]Node{entry("a", Null), typed(Node{Kind: NodeEntry, ID: "l", ParentID: Str("a"), TargetID: Str("zz")}, TypeLabel)}, "a", []string{"a"}},
		{"reset: later entries outside its subtree join the leaf",
			[]Node{entry("a", Null), entry("b", Str("a")), typed(entry("r", Str("b")), TypeReset), entry("c", Str("a"))},
			"c", []string{"a", "b", "r", "c"}},
		{"reset: a leaf row outside the reset subtree is overridden",
			[]Node{entry("a", Null), typed(entry("r", Str("a")), TypeReset), entry("b", Str("r")), leafRow("L", Str("a"), Ref{})},
			"b", []string{"a", "r", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := buildTree(tc.nodes...)
			leaf := ""
			if i, ok := tr.Leaf(); ok {
				leaf = tr.Node(i).ID
			}
			if leaf != tc.leaf {
				t.Errorf("leaf = %q, want %q", leaf, tc.leaf)
			}
			if got := branchIDs(tr); !slices.Equal(got, tc.branch) {
				t.Errorf("branch = %v, want %v", got, tc.branch)
			}
		})
	}
}

func TestTreeDuplicatesAndMissingParents(t *testing.T) {
	tr := buildTree(entry("a", Null), entry("b", Str("a")), link("o", Str("b")), // lines 1-3
		entry("e", Str("d")), entry("a", Str("e")), link("o", Str("a")), entry("f", Str("a"))) // d is missing
	want := []Duplicate{{ID: "a", FirstLine: 1, LastLine: 5}, {ID: "o", FirstLine: 3, LastLine: 6}}
	if got := tr.Duplicates(); !slices.Equal(got, want) {
		t.Errorf("Duplicates = %v, want %v", got, want)
	}
	if got, want := tr.MissingParents(), []MissingParent{{Node: 3, Line: 4, ParentID: "d"}}; !slices.Equal(got, want) {
		t.Errorf("MissingParents = %v, want %v", got, want)
	}
}

func TestTreeBranchCut(t *testing.T) {
	tr := buildTree(entry("a", Null), entry("b", Str("a")), entry("c", Str("b")), // lines 1-3
		entry("e", Str("d")), entry("f", Str("e"))) // line 4's parent d is missing
	cut, ok := tr.BranchCut()
	if want := (Cut{MissingID: "d", FirstLine: 4, Lost: 3}); !ok || cut != want {
		t.Errorf("BranchCut = %+v %v, want %+v", cut, ok, want)
	}
	p := tr.Branch()
	if p.MissingID != "d" || p.Cycle || !slices.Equal(branchIDs(tr), []string{"e", "f"}) {
		t.Errorf("path %v ends at %q (cycle %v)", branchIDs(tr), p.MissingID, p.Cycle)
	}
	whole := buildTree(entry("a", Null), entry("b", Str("a")))
	if _, ok := whole.BranchCut(); ok {
		t.Error("a branch reaching its root is not cut")
	}
}

func TestTreeCycleFlag(t *testing.T) {
	tr := buildTree(entry("a", Str("b")), entry("b", Str("a")))
	p := tr.Branch()
	if !p.Cycle || p.MissingID != "" {
		t.Errorf("cycle = %v missing = %q", p.Cycle, p.MissingID)
	}
	if _, ok := tr.BranchCut(); ok {
		t.Error("a cycle is not a missing-parent cut")
	}
}

// TestTreeOwnStrings: a tree that owns its strings gives the same answers
// when the caller reuses the memory of the strings it passed.
func TestTreeOwnStrings(t *testing.T) {
	nodes := []Node{entry("a", Null), entry("b", Str("a")), link("o", Str("b")), entry("c", Str("o")),
		typed(Node{Kind: NodeEntry, ID: "l", ParentID: Str("c"), TargetID: Str("b")}, TypeLabel),
		leafRow("L", Str("b"), Str("c")), entry("d", Str("gone")), entry("a", Str("d")), side("s", Str("a")),
		typed(entry("r", Str("a")), TypeReset), entry("e", Str("zz"))}
	plain := buildTree(nodes...)
	owned := NewTree(0)
	owned.OwnStrings()
	buf := make([]byte, 0, 64)
	alias := func(s string) string { // s in buf, which the next call overwrites
		buf = append(buf[:0], s...)
		return unsafe.String(unsafe.SliceData(buf), len(buf))
	}
	for i, n := range nodes {
		n.Line = i + 1
		n.ID = alias(n.ID)
		n.ParentID.ID = strings.Clone(n.ParentID.ID)
		owned.Add(n)
		buf = append(buf[:0], "XXXXXXXX"...)
	}
	if got, want := branchIDs(owned), branchIDs(plain); !slices.Equal(got, want) {
		t.Errorf("branch %v, want %v", got, want)
	}
	if got, want := owned.Duplicates(), plain.Duplicates(); !slices.Equal(got, want) {
		t.Errorf("duplicates %v, want %v", got, want)
	}
	if got, want := owned.MissingParents(), plain.MissingParents(); !slices.Equal(got, want) {
		t.Errorf("missing parents %v, want %v", got, want)
	}
	for i := range nodes {
		if owned.Node(i) != plain.Node(i) || owned.ID(i) != plain.Node(i).ID {
			t.Errorf("node %d: %+v, want %+v", i, owned.Node(i), plain.Node(i))
		}
	}
}

// TestTreeManyIDs grows the id index far past its first size: every id is
// found, later duplicates win, parents resolve to their text.
func TestTreeManyIDs(t *testing.T) {
	const n = 50000
	for _, reserve := range []int{0, 10, n} {
		tr := NewTree(0)
		tr.OwnStrings()
		prev := Null
		for i := range n {
			if i == 10 {
				tr.Grow(reserve) // after some nodes, as check does
			}
			id := strconv.Itoa(i)
			tr.Add(Node{Line: i + 1, Kind: NodeEntry, Type: TypeMessage, ID: id, ParentID: prev})
			prev = Str(id)
		}
		tr.Add(Node{Line: n + 1, Kind: NodeEntry, Type: TypeMessage, ID: "7", ParentID: Str("6"), Side: true})
		checkManyIDs(t, tr, n)
	}
}

func checkManyIDs(t *testing.T, tr *Tree, n int) {
	t.Helper()
	p := tr.Branch()
	if len(p.Nodes) != n || p.Nodes[len(p.Nodes)-1] != n-1 || p.Nodes[7] != n { // the later "7" replaced the first
		t.Fatalf("branch of %d nodes, want %d", len(p.Nodes), n)
	}
	if d := tr.Duplicates(); len(d) != 1 || d[0] != (Duplicate{ID: "7", FirstLine: 8, LastLine: n + 1}) {
		t.Errorf("duplicates %v", d)
	}
	for _, i := range []int{0, 1, 4095, 4096, n - 1} {
		if nd := tr.Node(i); nd.ID != strconv.Itoa(i) || (i > 0 && nd.ParentID != Str(strconv.Itoa(i-1))) {
			t.Errorf("node %d: %+v", i, nd)
		}
	}
	if len(tr.MissingParents()) != 0 {
		t.Errorf("missing parents %v", tr.MissingParents())
	}
}

// BenchmarkTreeMemory reports what a streamed tree keeps per entry (ids of
// 8 bytes, as OpenClaw's, chained by parentId), the figure check's memory
// budget counts on.
func BenchmarkTreeMemory(b *testing.B) {
	const n = 200000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08x", uint32(i)*2654435761)
	}
	b.ReportAllocs()
	var kept float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		tr := NewTree(1024)
		tr.OwnStrings()
		prev := Null
		for i, id := range ids {
			tr.Add(Node{Line: i + 1, Kind: NodeEntry, Type: TypeMessage, ID: id, ParentID: prev})
			prev = Str(id)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(tr)
	}
	b.ReportMetric(kept, "B/entry")
}

// TestTreeFarLeaf: a node added more than a node word can count after the
// leaf keeps where the leaf was (BranchCut counts the entries its cut
// branch loses from it).
func TestTreeFarLeaf(t *testing.T) {
	tr := NewTree(farBack + 8)
	tr.Add(Node{Line: 1, Kind: NodeEntry, Type: TypeMessage, ID: "a", ParentID: Null})
	for i := range farBack {
		tr.Add(Node{Line: i + 2})
	}
	tr.Add(Node{Line: farBack + 2, Kind: NodeEntry, Type: TypeMessage, ID: "b", ParentID: Str("gone")})
	if len(tr.farLeaves) != 2 { // the last inert node's and b's
		t.Fatalf("%d far leaves, want 2", len(tr.farLeaves))
	}
	c, ok := tr.BranchCut()
	if want := (Cut{MissingID: "gone", FirstLine: farBack + 2, Lost: 1}); !ok || c != want {
		t.Errorf("cut %+v %v, want %+v", c, ok, want)
	}
}
