package check

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/openclaw-doctor/openclaw-doctor/internal/repair"
)

// This file is the notes ([Check.Note]): what a file named on the command
// line is when it is not a primary transcript, and the write lock and
// leftover backups beside a session. Unlike the rest of the package, the
// side notes look at the file system: the lock and the backups are files
// of their own, read with package repair's own lock reading.

// NonTranscript returns the note of a file that is not a session
// transcript but sits beside transcripts (OpenClaw's session index, a
// write lock, a trajectory), by its name; ok is false for any other name.
// Such a file is never checked as a transcript (the caller drops the note
// when --skip deselects it, not the skip).
func NonTranscript(path string) (f Finding, ok bool) {
	what := nonTranscriptKind(filepath.Base(path))
	if what == "" {
		return Finding{}, false
	}
	c := mustLookup(NotATranscript)
	f = Finding{ID: NotATranscript, Severity: c.Severity, Path: path, Hint: c.Hint,
		Message: fmt.Sprintf("not a session transcript (%s): skipped", what)}
	return f, true
}

func nonTranscriptKind(name string) string {
	switch {
	case name == "sessions.json":
		return "OpenClaw's session index"
	case strings.HasSuffix(name, ".lock"):
		return "a session's write lock"
	case strings.HasSuffix(name, ".trajectory.jsonl"):
		return "a run's trajectory"
	case strings.HasSuffix(name, ".trajectory-path.json"):
		return "the pointer to a run's trajectory"
	}
	return ""
}

// backupName matches the copies kept beside a transcript: fix's and
// OpenClaw's "<file>.bak-<pid>-<ms>", and OpenClaw's "<file>.reset.<time>"
// and "<file>.deleted.<time>" archives.
var backupName = regexp.MustCompile(`\.jsonl\.(bak-\d+-\d+|reset\.|deleted\.)`)

// BackupNote returns the note of a file whose name says it is a backup or
// an archive of a transcript (it is then checked as a transcript).
func BackupNote(path string, sel Selection) (f Finding, ok bool) {
	m := backupName.FindStringSubmatch(filepath.Base(path))
	if m == nil || !sel.Enabled(BackupCopy) {
		return Finding{}, false
	}
	what := "a backup a repair left beside the session (fix, or OpenClaw's own repair)"
	switch {
	case strings.HasPrefix(m[1], "reset."):
		what = "the archive OpenClaw keeps of a session that was reset (/new or /reset)"
	case strings.HasPrefix(m[1], "deleted."):
		what = "the archive OpenClaw keeps of a deleted session"
	}
	c := mustLookup(BackupCopy)
	return Finding{ID: BackupCopy, Severity: c.Severity, Path: path, Hint: c.Hint,
		Message: "checked as a transcript: this file is " + what}, true
}

// SideNotes returns the notes about what lies beside the session file at
// path: its write lock (live: fix refuses the session; stale: fix takes it
// over) and the backups and temp files a repair left. A lock or a folder
// that cannot be read gives no note: reading the session reports what is
// wrong with it.
func SideNotes(path string, sel Selection) []Finding {
	var out []Finding
	if sel.Enabled(WriteLock) {
		if info, err := repair.InspectLock(path, repair.LockOptions{}); err == nil && info != nil {
			out = append(out, lockNote(path, info))
		}
	}
	if sel.Enabled(LeftoverBackup) {
		leftovers, _ := repair.FindLeftovers(path)
		for _, l := range leftovers {
			out = append(out, leftoverNote(path, l))
		}
	}
	return out
}

func lockNote(path string, info *repair.LockInfo) Finding {
	c := mustLookup(WriteLock)
	msg := fmt.Sprintf("locked by a running OpenClaw (%s): fix refuses this session until the lock is released", info)
	if info.Stale {
		msg = fmt.Sprintf("stale write lock %s (%s): fix takes it over", filepath.Base(info.Path), info)
	} else if info.PID <= 0 || !info.PIDAlive {
		msg = fmt.Sprintf("write lock %s (%s): fix refuses this session while the lock counts as held", filepath.Base(info.Path), info)
	}
	return Finding{ID: WriteLock, Severity: c.Severity, Path: path, Hint: c.Hint, Message: msg}
}

func leftoverNote(path string, l repair.Leftover) Finding {
	c := mustLookup(LeftoverBackup)
	what := "backup"
	if l.Kind == "temp" {
		what = "temp file"
	}
	state := fmt.Sprintf("its process (pid %d) is gone", l.PID)
	switch {
	case l.PIDAlive:
		state = fmt.Sprintf("its process (pid %d) still runs: a repair may be in progress", l.PID)
	case l.Redundant:
		state += "; it holds nothing the session lacks"
	}
	return Finding{ID: LeftoverBackup, Severity: c.Severity, Path: path, Hint: c.Hint,
		Message: fmt.Sprintf("a repair left the %s %s beside this session (%s)", what, filepath.Base(l.Path), state)}
}
