package cmd

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/check"
	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// This file wires `check --provider` into the check command: the flags,
// standard input spooled so it can be replayed after the line pass, store
// sessions replayed through OpenClaw's bounded view (as replay --session
// replays them), the replay findings added to each input's result, and the
// compatibility matrix printed in place of the replay findings in text
// output.

// providerFlags are check's replay-target flags.
type providerFlags struct {
	provider, modelAPI, modelID string
	reasoning                   bool
	// view is the part of a store session replayed.
	view storeView
}

// validate refuses what the flags alone make wrong.
func (f *providerFlags) validate() error {
	if f.view.contextTokens < 1 {
		return usageErrorf("check: --context-tokens must be a positive number of tokens, not %d", f.view.contextTokens)
	}
	return nil
}

func (f *providerFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.provider, "provider", "", `also report what OpenClaw's replay would change for this provider ("all": every provider family, as a compatibility matrix)`)
	fs.StringVar(&f.modelAPI, "model-api", "", "with --provider: transport api (default: as replay, the provider's usual api or the session's)")
	fs.StringVar(&f.modelID, "model-id", "", "with --provider: model id (default: the session's when the provider is the session's)")
	fs.BoolVar(&f.reasoning, "reasoning", false, "with --provider: the model is a reasoning model")
	fs.Int64Var(&f.view.contextTokens, "context-tokens", store.DefaultContextTokens, "with --provider: the model's context window in tokens, which bounds the view of a store session OpenClaw loads")
	fs.BoolVar(&f.view.full, "full", false, "with --provider: replay a store session's whole active branch, not OpenClaw's bounded view")
}

// providerRun is the replay side of one check run; nil when --provider is
// not given (its methods then leave the run as it is).
type providerRun struct {
	opts check.ProviderOptions
	view storeView // of store sessions
	// stdin is standard input spooled to a file, when it is an input;
	// pipes are the named pipes among the inputs, spooled, by path;
	// closers close them.
	stdin   *os.File
	pipes   map[string]*os.File
	closers []func()
	// matrices holds each input's matrix until its findings are printed,
	// by the input's index.
	mu       sync.Mutex
	matrices map[int][]check.MatrixRow
}

// newProviderRun validates the flags and adds the replay checks to the
// counts of sel. Replay ids in --only or --skip need --provider.
func newProviderRun(a *app, f providerFlags, opts check.Options, sel *check.Selection) (*providerRun, error) {
	if f.view.contextTokens == 0 { // options made without the flags (sessions --check)
		f.view.contextTokens = store.DefaultContextTokens
	}
	if strings.TrimSpace(f.provider) == "" {
		if f.provider != "" || f.modelAPI != "" || f.modelID != "" || f.reasoning {
			return nil, usageErrorf("check: --provider needs a provider id (or all); --model-api, --model-id and --reasoning need --provider")
		}
		if f.view != (storeView{contextTokens: store.DefaultContextTokens}) {
			return nil, usageErrorf("check: --context-tokens and --full need --provider")
		}
		if slices.ContainsFunc(append(slices.Clone(opts.Only), opts.Skip...), isReplayID) {
			return nil, usageErrorf("check: replay check ids (%s…) need --provider", check.ReplayIDPrefix)
		}
		return nil, nil
	}
	p := &providerRun{opts: check.ProviderOptions{
		Target: hygiene.Target{Provider: f.provider, ModelAPI: f.modelAPI, ModelID: f.modelID,
			Reasoning: f.reasoning, ImageMaxDimensionPx: opts.ImageMaxDimensionPx},
		Only: opts.Only, // transcript ids in it match no replay check
		Skip: opts.Skip,
	}, view: f.view, matrices: map[int][]check.MatrixRow{}}
	if p.opts.All() && (f.modelAPI != "" || f.modelID != "") {
		return nil, usageErrorf("check: --provider all replays for fixed models; --model-api and --model-id need one provider")
	}
	if !p.opts.All() {
		warnUnknownProvider(a.Err, "check", f.provider)
	}
	now, err := replayClock(a)
	if err != nil {
		return nil, err
	}
	p.opts.Now = now
	run, skipped := p.opts.Counts()
	sel.Run += run
	sel.Skipped += skipped
	return p, nil
}

func isReplayID(id check.ID) bool { return strings.HasPrefix(string(id), check.ReplayIDPrefix) }

// prepare spools standard input and named pipes when they are among the
// inputs, so that the line pass and the replay both read them; the spool
// of standard input replaces a.In. A pipe that cannot be spooled is left
// to the line pass, which reports it.
func (p *providerRun) prepare(ctx context.Context, a *app, d discovery) error {
	if p == nil {
		return nil
	}
	for _, in := range d.Inputs {
		if in.Stdin || !isPipe(inputMode(in.Path)) || p.pipes[in.Path] != nil {
			continue
		}
		f, closeF, err := openSeekableInput(ctx, in.Path)
		if err != nil {
			continue
		}
		if p.pipes == nil {
			p.pipes = map[string]*os.File{}
		}
		p.pipes[in.Path], p.closers = f, append(p.closers, closeF)
	}
	if !slices.ContainsFunc(d.Inputs, func(in input) bool { return in.Stdin }) {
		return nil
	}
	f, closeF, err := spoolStdin(a)
	if err != nil {
		return err
	}
	p.stdin, p.closers = f, append(p.closers, closeF)
	a.In = f
	return nil
}

// matrixTargets is the number of replays per file check --provider all
// runs (0 otherwise).
func (p *providerRun) matrixTargets() int {
	if p == nil || !p.opts.All() {
		return 0
	}
	return len(check.MatrixTargets())
}

// onTargetDone counts each target's replay in prog (check --provider all).
func (p *providerRun) onTargetDone(prog *progress) {
	if p != nil && prog != nil && p.opts.All() {
		p.opts.TargetDone = prog.targetDone
	}
}

// onWholeReplay has restore called before a target is replayed whole.
func (p *providerRun) onWholeReplay(restore func()) {
	if p != nil {
		p.opts.WholeReplay = restore
	}
}

// spooled is the spool of the named pipe at path, or nil.
func (p *providerRun) spooled(path string) *os.File {
	if p == nil {
		return nil
	}
	return p.pipes[path]
}

// close closes the spooled inputs.
func (p *providerRun) close() {
	if p == nil {
		return
	}
	for _, c := range p.closers {
		c()
	}
}

// add appends the replay findings of in, input i, to its line-pass result
// (nothing for a file that could not be read).
func (p *providerRun) add(ctx context.Context, i int, in input, res check.Result) check.Result {
	if p == nil || res.Unreadable || res.NotTranscript || ctx.Err() != nil || (in.Store != nil && in.Store.Database) {
		return res
	}
	var pr check.ProviderResult
	switch {
	case in.Store != nil:
		pr = p.replayStore(ctx, in.Store)
	case in.Stdin:
		pr = check.FindReplayChanges(ctx, p.stdin, in.Path, p.opts)
	case p.pipes[in.Path] != nil:
		pr = check.FindReplayChanges(ctx, p.pipes[in.Path], in.Path, p.opts)
	default:
		f, err := openInput(ctx, in.Path)
		if err != nil {
			return res // read a moment ago: the line pass reports what follows
		}
		pr = check.FindReplayChanges(ctx, f, in.Path, p.opts)
		f.Close()
	}
	res.Findings = append(res.Findings, pr.Findings...)
	if pr.Matrix != nil {
		p.mu.Lock()
		p.matrices[i] = pr.Matrix
		p.mu.Unlock()
	}
	return res
}

// replayStore replays a store session as replay --session does: OpenClaw's
// bounded view (or with --full the whole branch), spooled. Its findings are
// placed in the session, their lines being lines of what was replayed (of
// the view, as replay --session names them; with --full, of the export)
// and their seqs its rows. A session OpenClaw's runtime
// refuses gets the findings of a file its loader throws on.
func (p *providerRun) replayStore(ctx context.Context, s *storeInput) check.ProviderResult {
	path := s.DB.Path
	loc := check.StoreLocation{SessionKey: s.Window.Key, SessionID: s.Window.SessionID, Current: s.Window.Current, Seq: -1}
	var pr check.ProviderResult
	db, err := store.Open(ctx, path)
	if err != nil {
		pr = check.ReplayLoadFailure(path, p.opts, err)
		placeFindings(pr.Findings, loc, nil)
		p.replayHints(pr.Findings, path)
		return pr
	}
	defer db.Close()
	sp, err := spoolStoreView(ctx, db, s.Window.SessionID, p.view)
	switch {
	case err != nil:
		pr = check.ReplayLoadFailure(path, p.opts, err)
	case sp.refusal != nil:
		pr = check.ReplayLoadFailure(path, p.opts, sp.refusal)
	default:
		pr = check.FindReplayChanges(ctx, sp.f, path, p.opts)
		sp.close()
	}
	placeFindings(pr.Findings, loc, replaySeqs(ctx, db, s.Window.SessionID, sp.view, pr.Findings))
	p.replayHints(pr.Findings, path)
	return pr
}

// replayHints makes the hints of a store session's replay findings name
// the replay of that session, with the view this check replayed.
func (p *providerRun) replayHints(fs []check.Finding, db string) {
	for i := range fs {
		fs[i].Hint = check.StoreReplayHint(&fs[i], db, p.view.flags()...)
	}
}

// printFindings prints the findings of input i, its result's path, as
// text; with the matrix, the replay findings are summed up in it instead
// of listed.
func (p *providerRun) printFindings(text *report.Text, i int, in input, path string, fs []check.Finding, omitted map[check.ID]int, limit int) {
	if p == nil || !p.opts.All() {
		text.FileFindings(path, fs, omitted, limit)
		return
	}
	text.FileFindings(path, slices.DeleteFunc(slices.Clone(fs), func(f check.Finding) bool { return isReplayID(f.ID) }), omitted, limit)
	p.mu.Lock()
	rows := p.matrices[i]
	delete(p.matrices, i)
	p.mu.Unlock()
	name := path
	if s := in.Store; s != nil && !s.Database {
		loc := check.StoreLocation{SessionKey: s.Window.Key, SessionID: s.Window.SessionID, Current: s.Window.Current}
		name += "#" + loc.Name()
	}
	text.Matrix(name, rows)
}

// replaySeqs maps the lines of fs to seqs: lines of view, or with no view
// (--full) lines of the session's export.
func replaySeqs(ctx context.Context, db *store.DB, sessionID string, view *store.View, fs []check.Finding) map[int]int64 {
	var lines []int
	for _, f := range fs {
		if f.Line > 0 {
			lines = append(lines, f.Line)
		}
	}
	if view == nil {
		seqs, err := db.Seqs(ctx, sessionID, lines)
		if err != nil {
			return nil // the findings keep their lines, without seqs
		}
		return seqs
	}
	seqs := map[int]int64{}
	for _, l := range lines {
		if seq, ok := view.Seq(l); ok {
			seqs[l] = seq
		}
	}
	return seqs
}
