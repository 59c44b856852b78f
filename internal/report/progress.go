package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress is how far long work has gone, as the progress line shows it.
type Progress struct {
	Verb             string // the command: check, fix, replay
	Files, FilesDone int
	// Bytes is what was read so far; TotalBytes what there is to read
	// (negative when unknown: standard input, a pipe, a store session).
	Bytes, TotalBytes int64
	// Targets is the number of replays a check --provider all runs (0
	// without it), TargetsDone those done.
	Targets, TargetsDone int64
	Elapsed              time.Duration
}

// progressClear returns to the start of the line and erases it.
const progressClear = "\r\x1b[K"

// ProgressLine writes p over the previous progress line: files done of
// all, replay targets done, bytes read of all, the read rate and the time
// left, estimated from the targets, else the bytes, else the files done.
func ProgressLine(w io.Writer, p Progress) error {
	parts := []string{fmt.Sprintf("%s: %d/%d files", p.Verb, p.FilesDone, p.Files)}
	if p.Targets > 0 {
		parts = append(parts, fmt.Sprintf("%d/%d targets", p.TargetsDone, p.Targets))
	}
	read := p.Bytes
	if p.TotalBytes >= 0 {
		read = min(read, p.TotalBytes) // a replay reads parts of its file twice
		parts = append(parts, formatBytes(read)+" of "+formatBytes(p.TotalBytes))
	} else {
		parts = append(parts, formatBytes(read))
	}
	if secs := p.Elapsed.Seconds(); secs > 0 {
		parts = append(parts, formatBytes(int64(float64(read)/secs))+"/s")
	}
	if eta, ok := p.eta(read); ok {
		parts = append(parts, "ETA "+formatETA(eta))
	}
	_, err := io.WriteString(w, progressClear+strings.Join(parts, ", "))
	return err
}

// ClearProgress erases the progress line, before other output or at the
// end of the work.
func ClearProgress(w io.Writer) error {
	_, err := io.WriteString(w, progressClear)
	return err
}

// eta is the time left, from the fraction of the work done.
func (p Progress) eta(read int64) (time.Duration, bool) {
	var done float64
	switch {
	case p.Targets > 0:
		done = float64(p.TargetsDone) / float64(p.Targets)
	case p.TotalBytes > 0:
		done = float64(read) / float64(p.TotalBytes)
	case p.Files > 0:
		done = float64(p.FilesDone) / float64(p.Files)
	}
	if done <= 0 || done > 1 {
		return 0, false
	}
	return time.Duration(float64(p.Elapsed) * (1 - done) / done), true
}

// formatBytes is n in binary units, one decimal above a KiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// formatETA rounds d to what a person reads at a glance: 4s, 1m05s, 2h03m.
func formatETA(d time.Duration) string {
	switch d = d.Round(time.Second); {
	case d < time.Second:
		return "<1s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
