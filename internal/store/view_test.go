package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

func TestContextLimits(t *testing.T) {
	for _, tc := range []struct{ tokens, bytes int64 }{
		{1, 1024}, {128, 1024}, {129, 1032}, {2000, 16000}, {DefaultContextTokens, 1_600_000},
		{8 << 20, 64 << 20}, {1 << 40, 64 << 20}, {1<<63 - 1, 64 << 20},
	} {
		if got := ContextLimits(tc.tokens); got != (ViewLimits{MaxBytes: tc.bytes, MaxEvents: MaxViewEvents}) {
			t.Errorf("ContextLimits(%d) = %+v, want %d bytes", tc.tokens, got, tc.bytes)
		}
	}
}

// viewLines reads a session's view as lines.
func viewLines(t *testing.T, db *DB, id string, lim ViewLimits) (*View, [][]byte) {
	t.Helper()
	ctx := context.Background()
	v, err := db.View(ctx, id, lim)
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.ViewReader(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	return v, lines[:len(lines)-1]
}

// The view of a committed session: the header, then the newest active
// events within the limits, each its export line unless re-linked.
func TestViewOfCommittedSessions(t *testing.T) {
	const large = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617" // multi's real session, 1,020 events
	db := open(t, filepath.Join(storesDir, "multi", "state", "agents", "main", "agent", DatabaseName))
	defer db.Close()
	export, err := os.ReadFile(filepath.Join(storesDir, "multi", "golden", "main", large+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	exportLines := bytes.SplitAfter(export, []byte("\n"))
	for _, tc := range []struct {
		tokens    int64
		truncated bool
	}{{2000, true}, {20_000, true}, {DefaultContextTokens, false}} {
		lim := ContextLimits(tc.tokens)
		v, lines := viewLines(t, db, large, lim)
		if v.Truncated != tc.truncated || v.Bytes > lim.MaxBytes || v.Events() != len(lines) {
			t.Errorf("%d tokens: truncated %v, %d bytes, %d events for %d lines", tc.tokens, v.Truncated, v.Bytes, v.Events(), len(lines))
		}
		if !bytes.Equal(lines[0], exportLines[0]) {
			t.Errorf("%d tokens: the view does not start with the header", tc.tokens)
		}
		// This session's branch is linear, without excluded messages or
		// compactions: after the header, the view is the export's last lines
		// (the first of them re-linked when the view is cut).
		tail := exportLines[len(exportLines)-len(lines) : len(exportLines)-1]
		for i, line := range lines[1:] {
			if i > 0 || !tc.truncated {
				if !bytes.Equal(line, tail[i]) {
					t.Fatalf("%d tokens: view line %d is not export line %d", tc.tokens, i+2, len(exportLines)-len(lines)+i+1)
				}
			}
		}
		var sum int64
		for _, l := range lines {
			sum += int64(len(l))
		}
		if sum != v.Bytes {
			t.Errorf("%d tokens: the view's lines hold %d bytes, View counted %d", tc.tokens, sum, v.Bytes)
		}
		// Seq names the row of each view line: the header's, then those of
		// the export's last lines.
		viewToExport := map[int]int{1: 1}
		var rows []int
		for i := 2; i <= len(lines); i++ {
			viewToExport[i] = len(exportLines) - len(lines) + i - 1
		}
		for _, l := range viewToExport {
			rows = append(rows, l)
		}
		seqs, err := db.Seqs(context.Background(), large, rows)
		if err != nil {
			t.Fatal(err)
		}
		for line := 0; line <= len(lines)+1; line++ {
			seq, ok := v.Seq(line)
			want, wantOK := seqs[viewToExport[line]]
			if ok != wantOK || seq != want {
				t.Fatalf("%d tokens: Seq(%d) = %d, %v; want %d, %v", tc.tokens, line, seq, ok, want, wantOK)
			}
		}
	}
	if _, ok := (*View)(nil).Seq(1); ok {
		t.Error("a nil view has a line 1")
	}
	if _, err := db.View(context.Background(), large, ViewLimits{MaxBytes: 100, MaxEvents: 10}); !errors.Is(err, ErrHeaderTooLarge) {
		t.Errorf("a header over the byte limit: %v, want ErrHeaderTooLarge", err)
	}
	if _, err := db.View(context.Background(), large, ViewLimits{MaxBytes: 1 << 30, MaxEvents: 10}); err == nil {
		t.Error("limits over 64 MiB accepted")
	}
	v, lines := viewLines(t, db, large, ViewLimits{MaxBytes: 64 << 20, MaxEvents: 3})
	if !v.Truncated || len(lines) != 4 || v.BranchEvents != 1019 {
		t.Errorf("3 events: truncated %v, %d lines, branch of %d", v.Truncated, len(lines), v.BranchEvents)
	}
}

// Views that OpenClaw re-links: a compaction cut off and added back, a
// compaction whose first kept message is cut off, a message excluded from
// context; and a transcript without header, which the runtime refuses.
func TestViewRelinks(t *testing.T) {
	ctx := context.Background()
	db := open(t, filepath.Join(storesDir, "views", "state", "agents", "main", "agent", DatabaseName))
	defer db.Close()
	id := func(key string) string {
		w, err := db.Find(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return w.SessionID
	}
	field := func(line []byte, key string) string {
		v, err := jsonl.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := v.GetStr(key)
		return s
	}
	compacted := id("agent:main:main")
	// 1,100 tokens: the compaction is cut off, then added back before the
	// newest messages, which hang from it; it keeps nothing before it.
	v, lines := viewLines(t, db, compacted, ContextLimits(1100))
	if !v.Truncated || len(lines) != 4 || field(lines[1], "type") != "compaction" ||
		field(lines[2], "parentId") != field(lines[1], "id") || field(lines[1], "firstKeptEntryId") != field(lines[1], "id") {
		t.Errorf("1,100 tokens: truncated %v, lines:\n%s", v.Truncated, bytes.Join(lines, nil))
	}
	// 1,320 tokens: the compaction is in the view, its first kept message
	// is not; it keeps from the first message of the view.
	v, lines = viewLines(t, db, compacted, ContextLimits(1320))
	if !v.Truncated || field(lines[2], "type") != "compaction" || field(lines[2], "firstKeptEntryId") != field(lines[1], "id") {
		t.Errorf("1,320 tokens: truncated %v, lines:\n%s", v.Truncated, bytes.Join(lines, nil))
	}
	// The excluded message is left out; the next one hangs from the one
	// before it.
	_, lines = viewLines(t, db, id("agent:main:67-replay-bash-and-custom-roles"), ContextLimits(DefaultContextTokens))
	for i, line := range lines[1:] {
		if bytes.Contains(line, []byte(`"excludeFromContext":true`)) {
			t.Errorf("line %d: an excluded message is in the view", i+2)
		}
		if i > 0 && field(line, "parentId") != field(lines[i], "id") {
			t.Errorf("line %d does not hang from line %d", i+2, i+1)
		}
	}
	legacy := id("agent:main:91-edge-headerless")
	if _, err := db.View(ctx, legacy, ContextLimits(DefaultContextTokens)); !errors.Is(err, ErrLegacyTranscript) {
		t.Errorf("View of a transcript without header: %v, want ErrLegacyTranscript", err)
	}
	if err := db.CheckHeader(ctx, legacy); !errors.Is(err, ErrLegacyTranscript) {
		t.Errorf("CheckHeader of a transcript without header: %v, want ErrLegacyTranscript", err)
	}
	if err := db.CheckHeader(ctx, compacted); err != nil {
		t.Errorf("CheckHeader: %v", err)
	}
}
