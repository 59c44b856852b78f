package report

import (
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    Progress
		want string
	}{
		{Progress{Verb: "check", Files: 10, FilesDone: 3, Bytes: 512 << 20, TotalBytes: 1 << 30, Elapsed: 2 * time.Second},
			"check: 3/10 files, 512.0 MiB of 1.0 GiB, 256.0 MiB/s, ETA 2s"},
		{Progress{Verb: "check", Files: 2, FilesDone: 1, Targets: 34, TargetsDone: 17, Bytes: 900, TotalBytes: 2000, Elapsed: 90 * time.Second},
			"check: 1/2 files, 17/34 targets, 900 B of 2.0 KiB, 10 B/s, ETA 1m30s"},
		{Progress{Verb: "replay", Files: 1, Bytes: 3000, TotalBytes: 2048, Elapsed: time.Second}, // read twice: capped
			"replay: 0/1 files, 2.0 KiB of 2.0 KiB, 2.0 KiB/s, ETA <1s"},
		{Progress{Verb: "fix", Files: 4, FilesDone: 1, Bytes: 5 << 40, TotalBytes: -1, Elapsed: 3 * time.Hour},
			"fix: 1/4 files, 5.0 TiB, 485.5 MiB/s, ETA 9h00m"},
		{Progress{Verb: "check", Files: 1, TotalBytes: -1}, "check: 0/1 files, 0 B"},
	} {
		var b strings.Builder
		if err := ProgressLine(&b, c.p); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != progressClear+c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.p, got, progressClear+c.want)
		}
	}
}
