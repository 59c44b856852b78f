package repair

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
)

// The lost-and-found record (docs/fix.md): before a repair in place
// replaces a session, every line it drops or rewrites is saved, with its
// original bytes and physical line number, in a file of its own outside
// every agents/ folder, so that no OpenClaw discovery can take it for a
// transcript. The record is written as a stream (memory is bounded by the
// longest line, as the repair's), created exclusively without following a
// symlink, 0600 in 0700 folders, given the session's owner where this
// process may, and fsynced before the session is replaced. When it cannot
// be written the repair is not done.

// LostFound configures the lost-and-found record of a repair in place.
type LostFound struct {
	// Home is the folder for the records of sessions outside an OpenClaw
	// install (the user's state folder for openclaw-doctor, e.g.
	// ~/.local/state/openclaw-doctor); records go to Home/lost-found.
	Home string
	// Now is the clock that names the record (nil: time.Now).
	Now func() time.Time
}

// ReasonLostFoundFailed starts the reason of a repair refused because its
// lost-and-found record could not be written.
const ReasonLostFoundFailed = "repair failed: lost-and-found: "

// LostFoundFormat is the format version in a record's first line.
const LostFoundFormat = 1

// LostFoundDir is the folder that receives the records of the session at
// abs: <state>/openclaw-doctor/lost-found/<agent> for a session of an
// install (<state>/agents/<agent>/sessions/…), otherwise home/lost-found.
// The second result is the first folder openclaw-doctor owns on that path
// (<state>/openclaw-doctor, or home), from which folders are created 0700.
func LostFoundDir(abs, home string) (dir, owned string) {
	sessions := filepath.Dir(abs)
	for d := sessions; ; d = filepath.Dir(d) {
		agent := filepath.Dir(d) // d is <state>/agents/<agent>/sessions when it matches
		if filepath.Base(d) == "sessions" && filepath.Base(filepath.Dir(agent)) == "agents" {
			state := filepath.Dir(filepath.Dir(agent))
			owned = filepath.Join(state, "openclaw-doctor")
			return filepath.Join(owned, "lost-found", filepath.Base(agent)), owned
		}
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	return filepath.Join(home, "lost-found"), home
}

// lostFoundHeader is a record's first line: what it holds and how to put
// a line back.
type lostFoundHeader struct {
	Format    int    `json:"openclawDoctorLostFound"`
	Session   string `json:"session"`
	Size      int64  `json:"sessionBytes"`
	CreatedAt string `json:"createdAt"`
}

// writeLostFound saves the lines plan p drops or rewrites, read from the
// snapshot's file, in a new record, fsynced, and returns the record's
// path. On error no record is left behind.
func writeLostFound(lf *LostFound, snap Snapshot, p *Plan) (path string, err error) {
	now := time.Now
	if lf.Now != nil {
		now = lf.Now
	}
	t := now()
	dir, owned := LostFoundDir(snap.Path, lf.Home)
	if err := makePrivateDirs(dir, owned, snap); err != nil {
		return "", fmt.Errorf("lost-and-found: %w", err)
	}
	f, path, err := createRecord(dir, strings.TrimSuffix(filepath.Base(snap.Path), ".jsonl"), t)
	if err != nil {
		return "", fmt.Errorf("lost-and-found: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("lost-and-found: %s: %w", path, cerr)
		}
		if err != nil {
			_ = os.Remove(path)
			path = ""
		}
	}()
	_ = matchOwner(f, snap) // owned like the session where this process may
	in, err := os.Open(snap.Path)
	if err != nil {
		return path, fmt.Errorf("lost-and-found: %w", err)
	}
	defer in.Close()
	h := lostFoundHeader{Format: LostFoundFormat, Session: snap.Path, Size: snap.Size, CreatedAt: jsISOString(t)}
	if err := writeLostLines(f, in, h, p); err != nil {
		return path, fmt.Errorf("lost-and-found: %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return path, fmt.Errorf("lost-and-found: %s: fsync: %w", path, err)
	}
	return path, fsyncDir(dir)
}

// writeLostLines writes a record to w: the header line h, then one line per
// physical line plan p drops, rewrites or re-serializes, read from in (the
// input the plan was made from), in line order:
//
//	{"line":12,"offset":3081,"action":"drop","rules":["malformed-line"],"eol":"\n","text":"{\"type\":"}
//
// text is the line's bytes without its line end (eol: "\n", "\r\n", or ""
// for a last line without one); a line that is not valid UTF-8 has
// "base64" instead of "text". Memory is bounded by the longest line.
func writeLostLines(w io.Writer, in io.ReaderAt, h lostFoundHeader, p *Plan) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := []byte(`{"openclawDoctorLostFound":` + strconv.Itoa(h.Format) + `,"session":`)
	buf = jsonl.AppendJSString(buf, h.Session)
	buf = append(buf, `,"sessionBytes":`...)
	buf = strconv.AppendInt(buf, h.Size, 10)
	buf = append(buf, `,"createdAt":`...)
	buf = jsonl.AppendJSString(buf, h.CreatedAt)
	bw.Write(append(buf, "}\n"...))
	var line []byte
	for _, e := range p.Edits {
		if e.Lines == 1 { // most edits: one line, read at once
			line = slices.Grow(line[:0], int(e.Size))[:e.Size]
			if _, err := in.ReadAt(line, e.Offset); err != nil {
				return fmt.Errorf("line %d: %w", e.Line, err)
			}
			buf = appendLostLine(buf[:0], splitLine(line, e), e)
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			continue
		}
		rd := jsonl.NewReader(io.NewSectionReader(in, e.Offset, e.Size))
		for n := 0; ; n++ {
			l, err := rd.Next()
			if errors.Is(err, io.EOF) {
				if n != e.Lines {
					return fmt.Errorf("line %d: %w", e.Line, errChanged)
				}
				break
			}
			if err != nil {
				return fmt.Errorf("line %d: %w", e.Line+n, err)
			}
			l.Num, l.Offset = e.Line+n, e.Offset+l.Offset
			buf = appendLostLine(buf[:0], l, e)
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// splitLine is the jsonl.Line of the single line edit e, whose bytes,
// terminator included, are b.
func splitLine(b []byte, e LineEdit) jsonl.Line {
	l := jsonl.Line{Num: e.Line, Offset: e.Offset, Bytes: b}
	if n := len(l.Bytes); n > 0 && l.Bytes[n-1] == '\n' {
		l.Bytes, l.Newline = l.Bytes[:n-1], true
	}
	if n := len(l.Bytes); n > 0 && l.Bytes[n-1] == '\r' {
		l.Bytes, l.CR = l.Bytes[:n-1], true
	}
	return l
}

// appendLostLine appends the record of one saved line.
func appendLostLine(dst []byte, l jsonl.Line, e LineEdit) []byte {
	dst = append(dst, `{"line":`...)
	dst = strconv.AppendInt(dst, int64(l.Num), 10)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, l.Offset, 10)
	action := "reserialize"
	switch e.Action {
	case Drop:
		action = "drop"
	case Rewrite:
		action = "rewrite"
	}
	dst = append(dst, `,"action":"`...)
	dst = append(dst, action...)
	dst = append(dst, `","rules":[`...)
	for i, n := range e.Rules.Names() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonl.AppendJSString(dst, n)
	}
	eol := ""
	switch {
	case l.CR && l.Newline:
		eol = "\r\n"
	case l.CR:
		eol = "\r"
	case l.Newline:
		eol = "\n"
	}
	dst = append(dst, `],"eol":`...)
	dst = jsonl.AppendJSString(dst, eol)
	if utf8.Valid(l.Bytes) {
		dst = append(dst, `,"text":`...)
		dst = jsonl.AppendJSString(dst, string(l.Bytes))
	} else {
		dst = append(dst, `,"base64":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, l.Bytes)
		dst = append(dst, '"')
	}
	return append(dst, "}\n"...)
}

// makePrivateDirs creates dir and its parents: the folders from owned down
// 0700 and given the session's owner where this process may, the ones
// above owned as MkdirAll does. A symlink from owned down is refused: the
// record must not land where another user points it.
func makePrivateDirs(dir, owned string, snap Snapshot) error {
	if err := os.MkdirAll(filepath.Dir(owned), 0o700); err != nil {
		return err
	}
	rel, err := filepath.Rel(owned, dir)
	if err != nil {
		return err
	}
	d := owned
	for _, part := range append([]string{"."}, strings.Split(rel, string(filepath.Separator))...) {
		d = filepath.Join(d, part)
		if err := os.Mkdir(d, 0o700); err == nil {
			chownLike(d, snap)
		} else if !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: not a directory (a symlink or a file)", d)
		}
	}
	return nil
}

// chownLike gives the new folder d the session's owner where this process
// may (root repairing another user's install).
func chownLike(d string, snap Snapshot) {
	if uid, gid, ok := fileOwner(snap.info); ok {
		_ = os.Lchown(d, uid, gid)
	}
}

// createRecord creates <dir>/<session>-<time>.jsonl exclusively, without
// following a symlink, mode 0600; a name already taken gets a counter.
func createRecord(dir, session string, t time.Time) (*os.File, string, error) {
	stamp := t.UTC().Format("20060102T150405.000Z")
	for i := 1; ; i++ {
		name := session + "-" + stamp
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		path := filepath.Join(dir, name+".jsonl")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, path, nil
	}
}
