package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Every session window of every committed store exports byte for byte as
// OpenClaw exported it, through Export and through the Reader alike.
func TestExportMatchesOpenClaw(t *testing.T) {
	ctx := context.Background()
	sessions, zstdSessions := 0, 0
	for name, g := range committedStores(t) {
		for _, agent := range g.Agents {
			db := open(t, filepath.Join(storesDir, name, "state", agent.Database))
			for _, w := range agent.Transcripts {
				t.Run(name+"/"+agent.AgentID+"/"+w.SessionKey, func(t *testing.T) {
					want, err := os.ReadFile(filepath.Join(storesDir, name, "golden", agent.AgentID, w.SessionID+".jsonl"))
					if err != nil {
						t.Fatal(err)
					}
					var got bytes.Buffer
					lines, n, err := db.Export(ctx, w.SessionID, &got)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Bytes(), want) {
						t.Fatalf("export differs from OpenClaw's at byte %d (got %d bytes, want %d)", firstDiff(got.Bytes(), want), got.Len(), len(want))
					}
					if lines != w.Events || n != int64(len(want)) {
						t.Errorf("Export counted %d lines, %d bytes; OpenClaw: %d events, %d bytes", lines, n, w.Events, len(want))
					}
					// The Reader, read in small pieces, gives the same bytes.
					r, err := db.Reader(ctx, w.SessionID)
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					small, err := io.ReadAll(io.LimitReader(onlyReader{r}, 1<<30))
					if err != nil || !bytes.Equal(small, want) {
						t.Fatalf("Reader: %d bytes, err %v; want the export", len(small), err)
					}
					sessions++
					if zstdRows(t, db, w.SessionID) > 0 {
						zstdSessions++
					}
				})
			}
			db.Close()
		}
	}
	if sessions < 5 || zstdSessions == 0 {
		t.Fatalf("only %d sessions compared (%d with zstd rows)", sessions, zstdSessions)
	}
}

// onlyReader hides WriteTo so that io.ReadAll goes through Read.
type onlyReader struct{ io.Reader }

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func zstdRows(t *testing.T, db *DB, sessionID string) int {
	t.Helper()
	rows, err := db.Events(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if rows.Event().Compressed {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// The listing gives OpenClaw's facts: keys, current ids, labels, times,
// counts, windows and schema_meta.
func TestListingMatchesOpenClaw(t *testing.T) {
	ctx := context.Background()
	for name, g := range committedStores(t) {
		for _, agent := range g.Agents {
			t.Run(name+"/"+agent.AgentID, func(t *testing.T) {
				db := open(t, filepath.Join(storesDir, name, "state", agent.Database))
				defer db.Close()
				meta := agent.Storage.SchemaMeta[0]
				if got := db.Meta(); got != (Meta{meta.Role, meta.SchemaVersion, meta.AgentID, meta.AppVersion}) || got.Newer() {
					t.Errorf("Meta = %+v, OpenClaw's schema_meta %+v", got, meta)
				}
				sessions, err := db.Sessions(ctx)
				if err != nil {
					t.Fatal(err)
				}
				byKey := map[string]Session{}
				for _, s := range sessions {
					byKey[s.Key] = s
				}
				if len(byKey) != len(agent.Sessions) {
					t.Errorf("%d sessions, OpenClaw lists %d", len(byKey), len(agent.Sessions))
				}
				for _, want := range agent.Sessions {
					got, ok := byKey[want.SessionKey]
					if !ok {
						t.Errorf("session %s missing", want.SessionKey)
						continue
					}
					if got.SessionID != want.SessionID || got.UpdatedAt != want.UpdatedAt || got.Events != want.Events ||
						got.MaxSeq != want.MaxSeq || got.Bytes != want.TranscriptBytes ||
						!sameString(got.Label, want.Label) || !sameString(got.DisplayName, want.DisplayName) {
						t.Errorf("session %s = %+v, OpenClaw: %+v", want.SessionKey, got, want)
					}
				}
				windows, err := db.Windows(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(windows) != len(agent.Transcripts) {
					t.Errorf("%d windows, OpenClaw lists %d", len(windows), len(agent.Transcripts))
				}
				for _, want := range agent.Transcripts {
					got, err := db.Find(ctx, want.SessionID)
					if err != nil {
						t.Fatal(err)
					}
					if got.Key != want.SessionKey || got.Current != want.Current || got.Events != want.Events ||
						got.Bytes != want.TranscriptBytes || got.UpdatedAt != want.UpdatedAt {
						t.Errorf("window %s = %+v, OpenClaw: %+v", want.SessionID, got, want)
					}
					if want.Current {
						byKey, err := db.Find(ctx, want.SessionKey)
						if err != nil || byKey.SessionID != want.SessionID {
							t.Errorf("Find(%s) = %+v, %v; want session %s", want.SessionKey, byKey, err, want.SessionID)
						}
					}
				}
				if _, err := db.Find(ctx, "agent:nobody:main"); !errors.Is(err, ErrNoSession) {
					t.Errorf("Find of an unknown key: %v, want ErrNoSession", err)
				}
			})
		}
	}
}

func sameString(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func TestAgentDatabases(t *testing.T) {
	for name, g := range committedStores(t) {
		dbs, err := AgentDatabases(filepath.Join(storesDir, name, "state"))
		if err != nil {
			t.Fatal(err)
		}
		if len(dbs) != len(g.Agents) {
			t.Fatalf("%s: %d agent databases, OpenClaw lists %d agents", name, len(dbs), len(g.Agents))
		}
		for i, a := range g.Agents {
			if dbs[i].AgentID != a.AgentID || filepath.ToSlash(dbs[i].Path) != filepath.ToSlash(filepath.Join(storesDir, name, "state", a.Database)) {
				t.Errorf("%s: agent %d = %+v, want %s at %s", name, i, dbs[i], a.AgentID, a.Database)
			}
		}
	}
	if dbs, err := AgentDatabases(t.TempDir()); err != nil || len(dbs) != 0 {
		t.Errorf("empty state dir: %v, %v", dbs, err)
	}
}
