package store

import (
	"bytes"
	"strings"
	"testing"
)

// plainCases are rows for the plain path: strings, keys and numbers
// across the 64-byte blocks, and forms the descent must reject.
func plainCases() []string {
	pad := func(n int) string { return strings.Repeat("p", n) }
	var rows []string
	for n := 0; n < 140; n += 3 {
		rows = append(rows,
			`{"`+pad(n)+`":"`+pad(140-n)+`","id":"`+pad(n%70)+`","parentId":null}`,
			`{"a":"`+pad(n)+`","b":[1,"`+pad(n/2)+`",{"c":-12.5}],"c":1767225600000}`,
			`{"type":"x","id":"`+pad(n)+`"}`,
			`{"a":"`+pad(n)+`"`,   // cut inside the object
			`{"a":"`+pad(n)+`}`,   // cut inside a string
			`{"a":"`+pad(n)+`"} `, // a space after
			`{"a":"`+pad(n)+`","a":1}`,
			`["`+pad(n)+`",1,true,false,null]`,
			`{"`+pad(n)+`":1,"`+pad(n)+`":2}`,
			`{"a":`+strings.Repeat("1", n%20+1)+`}`,
			`{"a":"x""y"}`,
			`{"a":"x"`+pad(n%5)+`}`,
		)
	}
	rows = append(rows, `"`+pad(62)+`"`, `"`+pad(63)+`"`, `"`+pad(64)+`"`, `"`, `""`, `{"":1}`, `{"id":5,"parentId":{"id":"x"}}`,
		`{"id":"a","id":"b"}`, `{"0":1}`, `[1 ,2]`, `{"a":[]}`, `{"a":{}}`, `[[[[]]]]`, `{"a":nul}`, `{"a":truex}`)
	return rows
}

// checkBlocks holds blocks to tree, the descent it stands in for: a row
// blocks proves is proven by tree, with the same id and parentId; and
// every plain row tree proves, blocks proves too.
func checkBlocks(t *testing.T, c *canonScanner, d []byte) {
	t.Helper()
	gotB := c.blocks(d)
	id, parent := c.id, c.parent
	gotT := c.tree(d)
	if gotB && !gotT {
		t.Fatalf("%q: blocks proves it canonical, tree does not", d)
	}
	if gotT && !gotB && plainRow(d) {
		t.Fatalf("%q: tree proves it canonical, blocks does not", d)
	}
	if !gotB {
		return
	}
	for _, f := range []struct {
		name         string
		blocks, tree topField
	}{{"id", id, c.id}, {"parentId", parent, c.parent}} {
		b, tr := f.blocks, f.tree
		if b.present != tr.present || b.isString != tr.isString || b.escaped != tr.escaped ||
			!bytes.Equal(b.text, tr.text) || spanOf(b, d) != spanOf(tr, d) {
			t.Fatalf("%q: %s by blocks %+v, by tree %+v", d, f.name, b, tr)
		}
	}
}

// plainRow reports a row without backslashes, control bytes or bytes past
// ASCII: the rows blocks decides alone.
func plainRow(d []byte) bool {
	for _, b := range d {
		if b == '\\' || b < 0x20 || b >= 0x80 {
			return false
		}
	}
	return true
}

// TestCanonicalBlocks: blocks agrees with tree on the canonical cases,
// the benchmark's rows and the plain path's own cases.
func TestCanonicalBlocks(t *testing.T) {
	var c canonScanner
	var rows []string
	for _, tc := range canonicalCases {
		rows = append(rows, tc.text)
	}
	for _, r := range benchRows() {
		rows = append(rows, string(r))
	}
	rows = append(rows, plainCases()...)
	proven := 0
	for _, r := range rows {
		checkBlocks(t, &c, []byte(r))
		checkCanonical(t, &c, []byte(r))
		if c.blocks([]byte(r)) {
			proven++
		}
	}
	if proven < len(rows)/3 {
		t.Fatalf("blocks proved %d of %d rows", proven, len(rows))
	}
}

func FuzzCanonicalBlocks(f *testing.F) {
	for _, tc := range canonicalCases {
		f.Add([]byte(tc.text))
	}
	for _, r := range plainCases() {
		f.Add([]byte(r))
	}
	var c canonScanner
	f.Fuzz(func(t *testing.T, d []byte) { checkBlocks(t, &c, d) })
}
