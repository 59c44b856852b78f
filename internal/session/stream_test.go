package session

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// TestStreamMatchesReadContext checks that a ContextStream yields exactly
// ReadContext's messages and facts, with chunks of every size from one
// line up, on every session file in testdata.
func TestStreamMatchesReadContext(t *testing.T) {
	files := sessiontest.ConformanceCases(t)
	more, _ := filepath.Glob("testdata/cases/*.jsonl")
	files = append(files, more...)
	if len(files) < 80 {
		t.Fatalf("only %d session files found", len(files))
	}
	defer func(n int64) { streamChunkBytes = n }(streamChunkBytes)
	for _, chunk := range []int64{1, 700, 1 << 20} {
		streamChunkBytes = chunk
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := ReadContext(bytes.NewReader(data))
			got, gotErr := readStream(data)
			name := filepath.Base(f)
			if (wantErr != nil) != (gotErr != nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Errorf("%s (chunk %d): error %v, want %v", name, chunk, gotErr, wantErr)
				continue
			}
			if wantErr != nil {
				continue
			}
			compareContexts(t, name, got, want)
		}
	}
}

// readStream reads a whole ContextStream into a Context.
func readStream(data []byte) (*Context, error) {
	s, err := OpenContext(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	ctx := *s.Facts
	for {
		msgs, err := s.Next()
		if errors.Is(err, io.EOF) {
			return &ctx, nil
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		if len(msgs) == 0 {
			s.Close()
			return nil, errors.New("empty chunk")
		}
		ctx.Messages = append(ctx.Messages, msgs...)
	}
}

func compareContexts(t *testing.T, name string, got, want *Context) {
	t.Helper()
	if len(got.Messages) != len(want.Messages) {
		t.Errorf("%s: %d messages, want %d", name, len(got.Messages), len(want.Messages))
		return
	}
	for i := range want.Messages {
		g, w := &got.Messages[i], &want.Messages[i]
		if g.Line != w.Line || g.EntryID != w.EntryID || !jsonl.Equal(&g.V, &w.V) {
			t.Errorf("%s: message %d = line %d %s %s, want line %d %s %s", name, i,
				g.Line, g.EntryID, jsonl.MarshalString(g.V), w.Line, w.EntryID, jsonl.MarshalString(w.V))
			return
		}
	}
	gf, wf := *got, *want
	gf.Messages, wf.Messages = nil, nil
	if !reflect.DeepEqual(gf.Model, wf.Model) || gf.ModelAPI != wf.ModelAPI || gf.ThinkingLevel != wf.ThinkingLevel ||
		gf.LeafID != wf.LeafID || gf.Lines != wf.Lines || gf.MalformedLines != wf.MalformedLines ||
		gf.HasModelSwitchTimestamp != wf.HasModelSwitchTimestamp || gf.ModelSwitchTimestamp != wf.ModelSwitchTimestamp ||
		(gf.ModelSnapshot == nil) != (wf.ModelSnapshot == nil) ||
		gf.ModelSnapshot != nil && !jsonl.Equal(gf.ModelSnapshot, wf.ModelSnapshot) ||
		len(gf.CustomEntries) != len(wf.CustomEntries) {
		t.Errorf("%s: facts differ:\n got %+v\nwant %+v", name, gf, wf)
	}
}
