package session

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// TestNavigateWhileReading: the tree built while the first pass reads (and
// the records it marks) equal the partition and navigation after reading,
// on every first-pass input and on headers that allow it or not, in
// batches of any size.
func TestNavigateWhileReading(t *testing.T) {
	savedBatch, savedEarly := firstPassBatch, navigateWhileReading
	defer func() { firstPassBatch, navigateWhileReading = savedBatch, savedEarly }()
	inputs := firstPassInputs(t)
	msg := `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"x"}}` + "\n" +
		`{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":[]}}` + "\n"
	for name, header := range map[string]string{
		"v3 after entries":       msg + `{"type":"session","version":3,"id":"h"}` + "\n",
		"version string":         `{"type":"session","version":"3","id":"h"}` + "\n",
		"version NaN":            `{"type":"session","version":"x","id":"h"}` + "\n",
		"version 2":              `{"type":"session","version":2,"id":"h"}` + "\n",
		"version absent":         `{"type":"session","id":"h"}` + "\n",
		"number id, then header": `{"type":"session","version":3,"id":7}` + "\n" + `{"type":"session","version":3,"id":"h"}` + "\n",
		"null first":             "null\n" + `{"type":"session","version":3,"id":"h"}` + "\n",
		"null after header":      `{"type":"session","version":3,"id":"h"}` + "\nnull\n",
		"two headers":            `{"type":"session","version":3,"id":"h"}` + "\n" + `{"type":"session","version":1,"id":"g"}` + "\n",
	} {
		inputs[name] = []byte(header + msg + "not json\n" + msg)
	}
	for name, data := range inputs {
		for _, batch := range []int{1, 300, 0} {
			firstPassBatch = batch
			loadBothWays(t, fmt.Sprintf("%s, batch %d", name, batch), data)
		}
	}
}

// FuzzNavigateWhileReading loads arbitrary files both ways: the same
// records and tree, or the same error.
func FuzzNavigateWhileReading(f *testing.F) {
	for _, file := range seedFiles(f) {
		f.Add(file)
	}
	f.Add([]byte(`{"type":"session","version":"3","id":"h"}` + "\n" + `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(saved bool) { navigateWhileReading = saved }(navigateWhileReading)
		loadBothWays(t, "input", data)
	})
}

// loadBothWays loads data with the tree built while reading and after
// reading, and fails unless both give the same transcript or error.
func loadBothWays(t *testing.T, name string, data []byte) {
	t.Helper()
	navigateWhileReading = false
	want, wantErr := Load(bytes.NewReader(data))
	navigateWhileReading = true
	got, err := Load(bytes.NewReader(data))
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%s: error %v, after reading %v", name, err, wantErr)
	}
	if err != nil {
		return
	}
	if got.Lines != want.Lines || got.MalformedLines != want.MalformedLines || got.Migrated != want.Migrated ||
		got.header != want.header || !reflect.DeepEqual(got.recs, want.recs) {
		t.Fatalf("%s: transcripts differ:\n%+v\n%+v", name, got, want)
	}
	sameTree(t, name, got.tree, want.tree)
}

// sameTree fails unless a and b hold the same nodes, links and answers;
// their id indexes may differ in size (they were sized differently) but
// must find the same node for every id.
func sameTree(t *testing.T, name string, a, b *Tree) {
	t.Helper()
	if !reflect.DeepEqual(a.nodes, b.nodes) || !reflect.DeepEqual(a.extras, b.extras) ||
		!reflect.DeepEqual(a.names, b.names) || !reflect.DeepEqual(a.opaqueParents, b.opaqueParents) ||
		!reflect.DeepEqual(a.logicalParents, b.logicalParents) || !reflect.DeepEqual(a.invalidLeaf, b.invalidLeaf) ||
		a.latestReset != b.latestReset || a.leaf != b.leaf || a.leafIdx != b.leafIdx ||
		a.appendParent != b.appendParent || !reflect.DeepEqual(a.dups, b.dups) {
		t.Fatalf("%s: trees differ", name)
	}
	if a.byID.used != b.byID.used || a.resetDesc.used != b.resetDesc.used {
		t.Fatalf("%s: id indexes hold %d/%d and %d/%d ids", name, a.byID.used, b.byID.used, a.resetDesc.used, b.resetDesc.used)
	}
	for _, n := range a.nodes {
		id := a.text.str(n.id)
		ai, aok := a.byID.get(a, id)
		bi, bok := b.byID.get(b, id)
		ar, arok := a.resetDesc.get(a, id)
		br, brok := b.resetDesc.get(b, id)
		if ai != bi || aok != bok || ar != br || arok != brok {
			t.Fatalf("%s: id %q indexed at %d/%v and %d/%v, reset subtree %d/%v and %d/%v", name, id, ai, aok, bi, bok, ar, arok, br, brok)
		}
	}
	if !reflect.DeepEqual(a.Branch(), b.Branch()) {
		t.Fatalf("%s: branches differ", name)
	}
}

// TestTreeRoom: the room doubles until a sixteenth of the input is read,
// then follows what the lines read so far predict, and always grows.
func TestTreeRoom(t *testing.T) {
	for _, c := range []struct {
		n         int
		off, size int64
		want      int
	}{
		{0, 0, 0, 1024},
		{1024, 500, 0, 2048},               // size unknown
		{1024, 1000, 1 << 20, 2048},        // too early to estimate
		{4096, 1 << 16, 1 << 20, 72089},    // a sixteenth read: 16 times the nodes, 10% to spare
		{100000, 1 << 19, 1 << 20, 220000}, // half read
		{100000, 1 << 20, 1 << 20, 110000}, // at the end
		{100000, 2 << 20, 1 << 20, 101024}, // an input that grew while read
	} {
		if got := treeRoom(c.n, c.off, c.size); got != c.want {
			t.Errorf("treeRoom(%d, %d, %d) = %d, want %d", c.n, c.off, c.size, got, c.want)
		}
	}
}
