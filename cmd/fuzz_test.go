package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/sessiontest"
)

// FuzzCommands runs check, fix and replay in-process, as the command line
// does, on generated damaged sessions (sessiontest.Damaged) and checks
// that they agree:
//
//   - check reports a finding with fix's hint (check.FixHint) exactly when
//     `fix --stdout FILE` writes something other than the file's bytes;
//   - `fix --stdout FILE`, `fix -` and `fix FILE` (in place, under the
//     lock) give the same content (synthetic tool results aside, whose ids
//     and times are drawn at run time); --stdout and - leave the file as it
//     was, and fix in place leaves nothing beside it;
//   - the repaired file needs nothing more: check reports no finding with
//     fix's hint, and `fix --stdout` writes it unchanged;
//   - `replay --format json --diff`, from the file and from standard input,
//     prints what the whole-list replay (session.ReadContext, then
//     hygiene.ReplayContext) renders, for a target the input picks;
//   - every exit status is one the help documents for what happened.
//
// Seeds: the examples and the conformance cases, whose base each input
// names by index (sessiontest.DamagedSeed says why).
func FuzzCommands(f *testing.F) {
	seeds := sessiontest.DamagedSeeds(f)
	for i, s := range seeds {
		f.Add(uint16(i), s.Program, uint8(len(s.Program)))
	}
	f.Fuzz(func(t *testing.T, base uint16, program []byte, pick uint8) {
		input := sessiontest.Damaged(seeds[int(base)%len(seeds)].Base, program)
		dir := t.TempDir()
		fuzzStateHome = t.TempDir() // fix's lost-and-found records, outside dir
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, input, 0o600); err != nil {
			t.Fatal(err)
		}
		fixable := fixHintFindings(t, path)
		stdout := runFuzzCommand(t, nil, "fix", "--stdout", path)
		if stdout.code != exitOK && stdout.code != exitFindings {
			t.Fatalf("fix --stdout: exit %d: %s", stdout.code, stdout.err)
		}
		changed := !bytes.Equal(stdout.out, input)
		if fixable != changed {
			t.Fatalf("check reports %v finding(s) with fix's hint, but fix --stdout changes the file: %v\n%s", fixable, changed, input)
		}
		stdin := runFuzzCommand(t, input, "fix", "-")
		if stdin.code != stdout.code || !sameRepair(stdin.out, stdout.out) {
			t.Fatalf("fix - (exit %d) and fix --stdout (exit %d) differ:\n%s\n---\n%s", stdin.code, stdout.code, stdin.out, stdout.out)
		}
		if data, _ := os.ReadFile(path); !bytes.Equal(data, input) {
			t.Fatal("fix --stdout changed the file")
		}
		compareFuzzReplay(t, path, input, fuzzTargets[int(pick)%len(fuzzTargets)])

		inPlace := runFuzzCommand(t, nil, "fix", path)
		if inPlace.code != stdout.code {
			t.Fatalf("fix: exit %d, fix --stdout's %d: %s", inPlace.code, stdout.code, inPlace.err)
		}
		fixed, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !sameRepair(fixed, stdout.out) {
			t.Fatalf("fix wrote another content than fix --stdout:\n%s\n---\n%s", fixed, stdout.out)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("fix left %d files in the folder", len(entries))
		}
		if fixHintFindings(t, path) {
			t.Fatalf("check still reports findings with fix's hint after fix:\n%s", fixed)
		}
		if again := runFuzzCommand(t, nil, "fix", "--stdout", path); !bytes.Equal(again.out, fixed) {
			t.Fatalf("fix --stdout changes a repaired file:\n%s\n---\n%s", fixed, again.out)
		}
	})
}

// fuzzTargets are the replay targets FuzzCommands picks from: the three
// tool-call id policies, Gemini's ordering and an unknown provider.
var fuzzTargets = []hygiene.Target{
	{Provider: "anthropic", ModelAPI: "anthropic-messages", ModelID: "claude-sonnet-4-5"},
	{Provider: "openai", ModelAPI: "openai-responses", ModelID: "gpt-5.5"},
	{Provider: "mistral", ModelAPI: "openai-completions", ModelID: "mistral-large-latest"},
	{Provider: "google", ModelAPI: "google-generative-ai", ModelID: "gemini-2.5-pro"},
	{Provider: "amazon-bedrock", ModelAPI: "bedrock-converse-stream", ModelID: "anthropic.claude-sonnet-4-5"},
	{Provider: "acme", ModelAPI: "acme", ModelID: "acme"},
}

// fuzzRun is what one in-process command did.
type fuzzRun struct {
	code     int
	out, err []byte
}

// fuzzStateHome is XDG_STATE_HOME for runFuzzCommand: where fix keeps the
// lost-and-found records of files outside an install.
var fuzzStateHome string

// runFuzzCommand runs args in-process with stdin as standard input,
// replay's clock frozen and XDG_STATE_HOME at fuzzStateHome.
func runFuzzCommand(t *testing.T, stdin []byte, args ...string) fuzzRun {
	t.Helper()
	var out, errOut bytes.Buffer
	env := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return fuzzStateHome
		}
		return frozenEnv(k)
	}
	code := run(context.Background(), args, streams{In: bytes.NewReader(stdin), Out: &out, Err: &errOut}, env)
	if bytes.Contains(errOut.Bytes(), []byte("goroutine ")) {
		t.Fatalf("%s: %s", strings.Join(args, " "), errOut.Bytes())
	}
	return fuzzRun{code, out.Bytes(), errOut.Bytes()}
}

// fixHintFindings reports whether `check --format json` reports, at any
// severity, a finding whose hint is fix's.
func fixHintFindings(t *testing.T, path string) bool {
	t.Helper()
	r := runFuzzCommand(t, nil, "check", "--format", "json", "--severity-min", "info", path)
	if r.code != exitOK && r.code != exitFindings {
		t.Fatalf("check: exit %d: %s", r.code, r.err)
	}
	var doc struct {
		Findings []struct{ FixHint string }
	}
	if err := json.Unmarshal(r.out, &doc); err != nil {
		t.Fatalf("check's JSON: %v\n%s", err, r.out)
	}
	for _, f := range doc.Findings {
		if f.FixHint == check.FixHint {
			return true
		}
	}
	return false
}

// syntheticResult matches the fields of a synthetic tool result fix draws
// at run time: its id and its two timestamps.
var syntheticResult = regexp.MustCompile(`"id":"repair-[^"]*"|"timestamp":("[^"]*"|\d+)`)

// sameRepair compares two repaired contents line by line, ignoring in
// synthetic tool results the fields drawn at run time.
func sameRepair(a, b []byte) bool {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		if bytes.Equal(la[i], lb[i]) {
			continue
		}
		if !bytes.Contains(la[i], []byte(`"openclawSyntheticMissingToolResult":true`)) ||
			!bytes.Equal(syntheticResult.ReplaceAll(la[i], nil), syntheticResult.ReplaceAll(lb[i], nil)) {
			return false
		}
	}
	return true
}

// compareFuzzReplay runs replay on path and on standard input and compares
// both with the whole-list replay of input.
func compareFuzzReplay(t *testing.T, path string, input []byte, target hygiene.Target) {
	t.Helper()
	args := []string{"replay", "--format", "json", "--diff", "--provider", target.Provider, "--model-api", target.ModelAPI, "--model-id", target.ModelID}
	fromFile := runFuzzCommand(t, nil, append(args, path)...)
	fromStdin := runFuzzCommand(t, input, append(args, "-")...)
	if fromStdin.code != fromFile.code || !bytes.Equal(fromStdin.out, fromFile.out) {
		t.Fatalf("replay -: exit %d, %d bytes; replay FILE: exit %d, %d bytes\n%s\n%s", fromStdin.code, len(fromStdin.out), fromFile.code, len(fromFile.out), fromStdin.err, fromFile.err)
	}
	ctx, err := session.ReadContext(bytes.NewReader(input))
	if err != nil { // OpenClaw's loader refuses the file: so does replay
		if fromFile.code != exitFindings {
			t.Fatalf("replay: exit %d on a session the loader refuses (%v)", fromFile.code, err)
		}
		return
	}
	r := frozenRun(target)
	msgs, replayErr := hygiene.ReplayContext(r, ctx)
	var want bytes.Buffer
	if err := report.ReplayJSON(&want, r, msgs, replayErr, true); err != nil {
		t.Fatal(err)
	}
	wantCode := exitOK
	if replayErr != nil {
		wantCode = exitFindings
	}
	if fromFile.code != wantCode || !bytes.Equal(fromFile.out, want.Bytes()) {
		t.Fatalf("replay: exit %d, %d bytes; the whole-list replay: exit %d, %d bytes (%v)\n%s\n---\n%s", fromFile.code, len(fromFile.out), wantCode, want.Len(), replayErr, fromFile.out, want.Bytes())
	}
}

// fuzzPathTemplate is a damaged session whose repair (fuzzPathRepaired)
// drops one line and inserts nothing, so that its bytes are known.
const (
	fuzzPathTemplate = `{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null` + "\n" +
		`{"type":"message","id":"u2","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1767225600000}}` + "\n"
	fuzzPathRepaired = `{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}` + "\n" +
		`{"type":"message","id":"u2","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1767225600000}}` + "\n"
)

// FuzzPaths puts arbitrary bytes in a name (a session file's, its agent
// folder's or the state folder's, as the input picks) and runs fix and
// discovery on the state folder: nothing crashes, `fix --stdout FILE`
// prints FILE's repair and touches nothing, `fix FILE` repairs FILE and
// no other file (not even a sibling whose name differs only in
// surrounding spaces), and `fix` with no argument ($OPENCLAW_STATE_DIR)
// repairs exactly the transcripts discovery lists, each of which exists
// under the name listed. Seeds: names with spaces, tabs, newlines, invalid
// UTF-8, glob characters and the names discovery skips.
func FuzzPaths(f *testing.F) {
	for _, name := range []string{"s.jsonl", " s.jsonl ", "\ts.jsonl", "s\n.jsonl", "\xff\xfe.jsonl", "ü ß.jsonl",
		"a[1].jsonl", "*.jsonl", "?", "-", "--stdout", "sessions.json", "s.jsonl.lock", "s.jsonl.bak-1-2",
		"s.trajectory.jsonl", "s.jsonl.reset.2026", "archive", ".jsonl", "\\"} {
		for where := range uint8(3) {
			f.Add([]byte(name), where)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, where uint8) {
		name := fuzzFileName(raw)
		if name == "" {
			return
		}
		top := t.TempDir()
		state, agent, file := filepath.Join(top, "state"), "main", "s.jsonl"
		switch where % 3 {
		case 0:
			file = name
		case 1:
			agent = name
		default:
			state = filepath.Join(top, name)
		}
		sessions := filepath.Join(state, "agents", agent, "sessions")
		target := filepath.Join(sessions, file)
		writeFuzzFile(t, filepath.Join(top, "outside.jsonl"))
		writeFuzzFile(t, filepath.Join(sessions, "other.jsonl"))
		if trimmed := strings.TrimSpace(file); trimmed != file && trimmed != "" && fuzzFileName([]byte(trimmed)) == trimmed {
			writeFuzzFile(t, filepath.Join(sessions, trimmed))
		}
		writeFuzzFile(t, target)
		env := func(k string) string {
			switch k {
			case "OPENCLAW_STATE_DIR":
				return state
			case "HOME":
				return top
			case "XDG_STATE_HOME":
				return filepath.Join(top, fuzzRecords)
			}
			return ""
		}
		fuzzFixStdout(t, top, target, env)
		fuzzFixNamed(t, top, state, target, env)
		fuzzFixDiscovered(t, top, state, env)
	})
}

// fuzzRecords is the folder (under the test's top folder) of fix's
// lost-and-found records for files outside an install; those of an
// install's sessions are under <state>/openclaw-doctor.
const fuzzRecords = "xdg-state"

// afterFix is the files under top after a fix, leaving out fix's
// lost-and-found records (the folders named above), which a fix that
// drops lines adds.
func afterFix(t *testing.T, top, state string) map[string]sessiontest.FileState {
	t.Helper()
	after := sessiontest.FileStates(t, top)
	records, _ := filepath.Rel(top, filepath.Join(state, "openclaw-doctor"))
	for p := range after {
		for _, dir := range []string{records, fuzzRecords} {
			if strings.HasPrefix(p, dir+string(filepath.Separator)) {
				delete(after, p)
			}
		}
	}
	return after
}

// fuzzFileName makes raw a name one folder can hold ("" when it cannot).
func fuzzFileName(raw []byte) string {
	name := strings.ReplaceAll(strings.ReplaceAll(string(raw), "/", "_"), "\x00", "_")
	if name == "" || name == "." || name == ".." || len(name) > 200 {
		return ""
	}
	return name
}

func writeFuzzFile(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(fuzzPathTemplate), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runFuzzEnv runs args in-process with the environment env.
func runFuzzEnv(env func(string) string, args ...string) fuzzRun {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, streams{In: strings.NewReader(""), Out: &out, Err: &errOut}, env)
	return fuzzRun{code, out.Bytes(), errOut.Bytes()}
}

// fuzzFixStdout: `fix --stdout FILE` prints FILE's repair and changes nothing.
func fuzzFixStdout(t *testing.T, top, target string, env func(string) string) {
	t.Helper()
	before := sessiontest.FileStates(t, top)
	r := runFuzzEnv(env, "fix", "--stdout", target)
	if !isTranscriptName(filepath.Base(target)) && r.code == exitOK && string(r.out) == "" {
		// a name that is not a transcript's may be refused when named
	} else if r.code != exitOK || string(r.out) != fuzzPathRepaired {
		t.Fatalf("fix --stdout %q: exit %d\n%s\n%s", target, r.code, r.out, r.err)
	}
	sessiontest.SameFiles(t, before, sessiontest.FileStates(t, top))
}

// fuzzFixNamed: `fix FILE` repairs FILE and nothing else.
func fuzzFixNamed(t *testing.T, top, state, target string, env func(string) string) {
	t.Helper()
	before := sessiontest.FileStates(t, top)
	r := runFuzzEnv(env, "fix", target)
	rel, _ := filepath.Rel(top, target)
	data, _ := os.ReadFile(target)
	if !isTranscriptName(filepath.Base(target)) && string(data) == fuzzPathTemplate {
		rel = "" // a name that is not a transcript's may be refused when named
	} else if r.code != exitOK || string(data) != fuzzPathRepaired {
		t.Fatalf("fix %q: exit %d, file now:\n%s\n%s\n%s", target, r.code, data, r.out, r.err)
	}
	sessiontest.SameFiles(t, before, afterFix(t, top, state), rel)
	writeFuzzFile(t, target) // damaged again, for fuzzFixDiscovered
}

// fuzzFixDiscovered: `fix` with no argument repairs exactly the
// transcripts discovery lists under the state folder, and they exist.
func fuzzFixDiscovered(t *testing.T, top, state string, env func(string) string) {
	t.Helper()
	a := &app{streams: streams{In: strings.NewReader(""), Out: new(bytes.Buffer), Err: new(bytes.Buffer)}, getenv: env}
	root := newRootCmd(a)
	if err := a.loadSettings(root); err != nil {
		t.Fatal(err)
	}
	if a.settings.StateDir != env("OPENCLAW_STATE_DIR") {
		// A state folder is trimmed as OpenClaw trims it (parsePath): this
		// one names another folder, which does not exist. Nothing changes.
		before := afterFix(t, top, state)
		if r := runFuzzEnv(env, "fix"); r.code != exitUsage {
			t.Fatalf("fix with the state folder %q missing: exit %d\n%s", a.settings.StateDir, r.code, r.err)
		}
		sessiontest.SameFiles(t, before, afterFix(t, top, state))
		return
	}
	d, err := discoverSessions(context.Background(), nil, a)
	if err != nil {
		t.Fatalf("discovery under %q: %v", env("OPENCLAW_STATE_DIR"), err)
	}
	var listed []string
	for _, in := range d.Inputs {
		rel, err := filepath.Rel(top, in.Path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Fatalf("discovery lists %q, outside the state folder %q", in.Path, env("OPENCLAW_STATE_DIR"))
		}
		if _, err := os.Lstat(in.Path); err != nil {
			t.Fatalf("discovery lists %q: %v", in.Path, err)
		}
		listed = append(listed, rel)
	}
	if !containsSuffix(listed, "other.jsonl") {
		t.Fatalf("discovery misses other.jsonl: %q", listed)
	}
	before := afterFix(t, top, state) // without the records of fuzzFixNamed's fix
	r := runFuzzEnv(env, "fix", "--yes")
	if r.code != exitOK {
		t.Fatalf("fix: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	sessiontest.SameFiles(t, before, afterFix(t, top, state), listed...)
	for _, rel := range listed {
		if data, _ := os.ReadFile(filepath.Join(top, rel)); string(data) != fuzzPathRepaired {
			t.Fatalf("fix left %q (listed by discovery) unrepaired:\n%s", rel, data)
		}
	}
}

func containsSuffix(list []string, suffix string) bool {
	for _, s := range list {
		if strings.HasSuffix(s, string(filepath.Separator)+suffix) {
			return true
		}
	}
	return false
}
