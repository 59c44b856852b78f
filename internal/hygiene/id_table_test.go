package hygiene

import (
	"strconv"
	"testing"
)

// TestIDTable: every id keeps the number it was first given, through the
// table's growth, and the sets of one table are apart.
func TestIDTable(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
	}{
		{"empty and short", []string{"", "a", "ab", "b"}},
		{"repeats", []string{"x", "y", "x", "", "y", ""}},
		{"prefixes of one another", []string{"call", "call_1", "call_", "cal", "call_10"}},
		{"more than the first room", manyIDs(3 * idTableMinSlots)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newIDTable()
			want := map[string]int{}
			for _, id := range tt.ids {
				n := tab.add(id)
				if m, ok := want[id]; ok && m != n {
					t.Fatalf("%q: number %d, then %d", id, m, n)
				}
				want[id] = n
			}
			if len(tab.ends) != len(want) {
				t.Errorf("%d numbers for %d ids", len(tab.ends), len(want))
			}
			for id, n := range want {
				if got, ok := tab.number(id); !ok || got != n {
					t.Errorf("number(%q) = %d, %v; want %d", id, got, ok, n)
				}
				if got := string(tab.bytesOf(n)); got != id {
					t.Errorf("id %d is %q, want %q", n, got, id)
				}
			}
			if _, ok := tab.number("not added"); ok {
				t.Error("an id never added has a number")
			}
			a := idSet{table: tab}
			for i, id := range tt.ids {
				if i%2 == 0 {
					a.add(id)
				}
			}
			b := a.clone()
			b.add("only in b")
			for i, id := range tt.ids {
				inA := false
				for j := 0; j < len(tt.ids); j += 2 {
					inA = inA || tt.ids[j] == id
				}
				if a.has(id) != inA || b.has(id) != inA {
					t.Errorf("ids[%d] %q: in a %v, in b %v; want %v", i, id, a.has(id), b.has(id), inA)
				}
			}
			if a.has("only in b") || !b.has("only in b") {
				t.Error("a set and its clone share an add")
			}
		})
	}
}

func manyIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "toolu_" + strconv.Itoa(i)
	}
	return ids
}
