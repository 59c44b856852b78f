package jsonl

import (
	"strings"
	"testing"
)

// TestParserPool parses the conformance cases' lines in rounds with a
// parser that uses a pool, putting each round's blocks back only after the
// next round is parsed: every value equals a fresh Parse's, and stays so
// until its round is put back, although the pool hands blocks out again;
// with the pool poisoning, a put round's values read poison.
func TestParserPool(t *testing.T) {
	var lines [][]byte
	for _, l := range conformanceLines(t) {
		if Validate(l) == nil {
			lines = append(lines, l)
		}
	}
	for _, poisoned := range []bool{false, true} {
		restore := PoisonReleasedBlocks(poisoned)
		var pool BlockPool
		var p Parser
		p.UsePool(&pool)
		type round struct {
			vals   []Value
			want   []string
			blocks Blocks
		}
		var prev *round
		reused, poisonRead := 0, 0
		for start := 0; start < len(lines); start += 40 {
			cur := &round{}
			for _, l := range lines[start:min(start+40, len(lines))] {
				v, err := p.ParseMember(l)
				if err != nil {
					t.Fatal(err)
				}
				fresh, _ := Parse(l)
				cur.vals, cur.want = append(cur.vals, v), append(cur.want, MarshalString(fresh))
			}
			cur.blocks = p.TakeBlocks()
			for i, v := range cur.vals {
				if got := MarshalString(v); got != cur.want[i] {
					t.Fatalf("pooled parse gave %.200q, want %.200q", got, cur.want[i])
				}
			}
			if prev != nil {
				pool.Put(prev.blocks)
				for i, v := range prev.vals {
					if MarshalString(v) != prev.want[i] {
						poisonRead++
					}
				}
				reused += len(pool.free)
			}
			prev = cur
		}
		restore()
		switch {
		case !poisoned && reused == 0:
			t.Error("the pool kept no block to hand out again")
		case poisoned && poisonRead == 0:
			t.Error("no value of a put round read poison")
		case poisoned && len(pool.free) > 0:
			t.Error("a poisoned pool kept blocks for reuse")
		}
	}
}

// TestPoolClearsOnlyPinningBlocks checks which blocks Put clears: those
// whose values may point outside the parser's text blocks (a string or a
// list allocated alone, or the parsed bytes themselves), and no others.
func TestPoolClearsOnlyPinningBlocks(t *testing.T) {
	long := `"` + strings.Repeat("x", maxText) + `"`
	many := "[" + strings.Repeat("1,", poolBlock/2) + "1]"
	for _, c := range []struct {
		name  string
		line  string
		owned bool // parsed by ParseOwned: the values alias the line
		pins  bool
	}{
		{"short strings", `{"a":{"b":"text","c":[1,2]}}`, false, false},
		{"long string", `{"a":{"b":` + long + `}}`, false, true},
		{"long list", `{"a":{"b":` + many + `}}`, false, true},
		{"aliasing the line", `{"a":{"b":"text"}}`, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pool BlockPool
			var p Parser
			p.UsePool(&pool)
			// A parser's first line gets exact allocations, each its own.
			if _, err := p.Parse([]byte(`{"a":{"b":"first"}}`)); err != nil {
				t.Fatal(err)
			}
			p.TakeBlocks()
			var err error
			if c.owned {
				_, err = p.ParseOwned([]byte(c.line))
			} else {
				_, err = p.Parse([]byte(c.line))
			}
			if err != nil {
				t.Fatal(err)
			}
			b := p.TakeBlocks()
			if b.pins != c.pins || len(b.blocks) == 0 {
				t.Fatalf("pins = %v over %d blocks, want %v", b.pins, len(b.blocks), c.pins)
			}
			pool.Put(b)
			used := false
			for _, blk := range b.blocks {
				for _, m := range blk {
					used = used || m != (Member{})
				}
			}
			if used == c.pins {
				t.Errorf("after Put, members left in the blocks: %v; want %v", used, !c.pins)
			}
		})
	}
}
