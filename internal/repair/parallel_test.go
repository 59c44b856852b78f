package repair

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestParallelPlanEqualsSequential: spreading the first pass over workers
// gives the same plan, for every conformance case and for inputs whose
// lines straddle the batch boundaries (a line longer than a batch, no final
// newline, CRLF split across batches).
func TestParallelPlanEqualsSequential(t *testing.T) {
	inputs := map[string][]byte{}
	cases := sessiontest.ConformanceCases(t)
	var all bytes.Buffer
	for _, c := range cases {
		data, _ := os.ReadFile(c)
		inputs[filepath.Base(c)] = data
		all.Write(data)
		all.WriteString("\n")
	}
	long := header + "\n" + `{"type":"custom","pad":"` + strings.Repeat("x", 3<<20) + `"}` + "\r\n" + `{"type":"message"`
	inputs["long line"] = []byte(long)
	inputs["all cases, repeated"] = bytes.Repeat(all.Bytes(), 1+2<<20/max(1, all.Len()))
	inputs["empty"] = nil
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			var seqV, parV []Verdict
			seq, err := analyzeSequential(bytes.NewReader(data), func(v Verdict) { seqV = append(seqV, v) })
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{2, 3} {
				parV = parV[:0]
				par, err := analyzeParallel(bytes.NewReader(data), w, func(v Verdict) { parV = append(parV, v) })
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(normalized(seq), normalized(par)) {
					t.Fatalf("%d workers: plan differs:\nseq %+v\npar %+v", w, seq, par)
				}
				if len(parV) != len(seqV) {
					t.Fatalf("%d workers: %d verdicts, want %d", w, len(parV), len(seqV))
				}
				for i := range seqV {
					if seqV[i].Line != parV[i].Line || seqV[i].Action != parV[i].Action || seqV[i].Rules != parV[i].Rules {
						t.Fatalf("%d workers: verdict %d: %+v, want %+v", w, i, parV[i], seqV[i])
					}
				}
			}
		})
	}
}

// normalized makes empty slices nil so plans compare by content.
func normalized(p Plan) Plan {
	if len(p.Edits) == 0 {
		p.Edits = nil
	}
	if len(p.Inserts) == 0 {
		p.Inserts = nil
	}
	return p
}
