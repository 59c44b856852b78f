package session

import "io"

// Test views of the loader and the tree: production code reads them
// through ReadContext and the tree's own walks.

// Load is load with the input's size taken from r.
func Load(r io.Reader) (*Transcript, error) { return load(r, inputSize(r)) }

// Tree returns the navigation tree; node i is the i-th parsed line.
func (t *Transcript) Tree() *Tree { return t.tree }

// Branch is getBranch(): the path from the active leaf to its root, with
// the parent ids.
func (t *Tree) Branch() Path {
	if !t.leaf.ok {
		return Path{}
	}
	return t.walk(t.leaf.s, true)
}
