package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// replayOptions are the replay command's flags.
type replayOptions struct {
	provider, modelAPI, modelID string
	reasoning                   bool
	policyOnly, diff            bool
	format                      string
	// A store session instead of a file.
	session, agent string
	contextTokens  int64
	full           bool
}

func (o *replayOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.provider, "provider", "", "provider to replay for, e.g. anthropic (default: the session's model)")
	fs.StringVar(&o.modelAPI, "model-api", "", "transport api, e.g. anthropic-messages (default: the session's, or the provider's usual api)")
	fs.StringVar(&o.modelID, "model-id", "", "model id, e.g. claude-sonnet-4-5 (default: the session's)")
	fs.BoolVar(&o.reasoning, "reasoning", false, "the model is a reasoning model (keeps reasoning over chat completions)")
	fs.BoolVar(&o.policyOnly, "policy-only", false, "print the resolved transcript policy and stop")
	fs.BoolVar(&o.diff, "diff", false, "list every change against the stored branch, named by the rule that made it")
	fs.StringVar(&o.format, "format", "text", "output format: text or json")
}

func (o *replayOptions) addStoreFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.session, "session", "", "replay this session (key or id) of OpenClaw's SQLite store instead of a file")
	fs.StringVar(&o.agent, "agent", "", "with --session: the agent, when the session exists in several")
	fs.Int64Var(&o.contextTokens, "context-tokens", store.DefaultContextTokens, "with --session: the model's context window in tokens, which bounds the view OpenClaw loads")
	fs.BoolVar(&o.full, "full", false, "with --session: replay the whole active branch, not OpenClaw's bounded view")
}

func newReplayCmd(a *app) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay [flags] FILE|-\n  openclaw-doctor replay --session KEY|ID [--agent A] [flags] [STATE_DIR|DB]",
		Short: "Show the messages OpenClaw would send to a provider for a session",
		Long: `Replay a session transcript the way OpenClaw 2026.9.6 prepares it for a
provider: load the active branch's context, resolve the provider's transcript
policy, and run OpenClaw's replay hygiene (tool-call ids, result pairing,
thinking signatures, reasoning, images, turn ordering, usage snapshots, ...).
Nothing is written: the session file is only read. FILE "-" reads standard
input.

The target is --provider, --model-api and --model-id. Omitted parts come from
the session (its last model change or assistant turn); a provider given alone
implies its usual api (anthropic: anthropic-messages, google:
google-generative-ai, openai: openai-responses, openai-codex:
openai-chatgpt-responses, amazon-bedrock: bedrock-converse-stream, ollama:
ollama, mistral, openrouter, groq, xai, deepseek and other OpenAI-compatible
hosts: openai-completions). An unknown provider is not an error: it gets
OpenClaw's fallback for its api, or the default policy.

--session replays a session of an OpenClaw 2026.9 SQLite store (a session key
such as agent:main:main, or a session id; --agent when it exists in several
agents) from STATE_DIR, one openclaw-agent.sqlite file, or the state folder
($OPENCLAW_STATE_DIR, else ~/.openclaw). The store is only read (see
docs/store.md). Like OpenClaw's runtime before a model call, replay then loads
a bounded view: the newest events of the active branch that fit in 8 bytes per
token of the model's context window (--context-tokens, 200,000 by default;
at least 1 KiB, at most 64 MiB) and 10,000 events, plus the latest compaction;
the view can start inside a tool call's frame. --full replays the whole
branch, as for the session's export. A session without a current session
header is refused, as OpenClaw refuses it. The lines replay names (L<n>,
--diff) are lines of the view it loaded, the header being line 1 (with --full,
lines of the session's export).

--format text (the default) prints one line per message and a summary of the
changes; --format json prints {"provider","modelApi","modelId","policy",
"messages"} in OpenClaw's message shape, or an "error" object (exit 1) when
OpenClaw would refuse the history. --diff lists every change with the rule and
the session line it applies to. --policy-only prints only the policy.

ENVIRONMENT
  OPENCLAW_DOCTOR_NOW  an RFC 3339 time replay uses as the current time (model
                       switches, timestamps of inserted messages), for
                       reproducible output
` + exitStatusHelp,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.format != "text" && opts.format != "json" {
				return usageErrorf("replay: --format must be text or json, not %q", opts.format)
			}
			if opts.session == "" {
				for _, f := range []string{"agent", "context-tokens", "full"} {
					if cmd.Flags().Changed(f) {
						return usageErrorf("replay: --%s needs --session", f)
					}
				}
				if err := exactArgs(1)(cmd, args); err != nil {
					return err
				}
			}
			if opts.contextTokens < 1 {
				return usageErrorf("replay: --context-tokens must be a positive number of tokens, not %d", opts.contextTokens)
			}
			return runReplay(cmd.Context(), a, opts, args)
		},
	}
	opts.addFlags(cmd.Flags())
	opts.addStoreFlags(cmd.Flags())
	return cmd
}

// runReplay loads the session, resolves the target and prints the replay.
func runReplay(ctx context.Context, a *app, opts *replayOptions, args []string) error {
	var (
		file     *os.File
		closeSrc func()
		path     string
		err      error
		refusal  *session.LoaderError // OpenClaw's runtime refuses the store session
	)
	if opts.session != "" {
		file, closeSrc, path, refusal, err = openStoreReplaySource(ctx, a, opts, args)
	} else {
		path = args[0]
		file, closeSrc, err = openReplaySource(ctx, a, path)
	}
	if err != nil {
		return err
	}
	defer closeSrc()
	ctx, prog := startProgress(ctx, a, "replay", opts.format == "json", []string{path}, 0)
	defer prog.finish()
	src := jsonl.WithContextAt(ctx, file) // an interrupted load or replay stops at its next read
	restoreGC := collectRarelyWhileLoading()
	stream, err := session.OpenContext(src)
	restoreGC()
	err = wrapLoadError(path, err)
	if refusal != nil {
		err = refusal
	}
	var le *session.LoaderError
	if err != nil && !errors.As(err, &le) {
		return err
	}
	var facts *session.Context
	if stream != nil {
		facts = stream.Facts
		defer stream.Close() // when the replay does not start
	}
	target, err := hygiene.CompleteTarget(hygiene.Target{Provider: opts.provider, ModelAPI: opts.modelAPI,
		ModelID: opts.modelID, Reasoning: opts.reasoning}, facts)
	if errors.Is(err, hygiene.ErrNoProvider) {
		return usageErrorf("replay: no provider: the session records no model; give --provider (and --model-api, --model-id)")
	}
	warnUnknownProvider(a.Err, "replay", opts.provider)
	target.ImageMaxDimensionPx = a.settings.ImageMaxDimensionPx
	now, err := replayClock(a)
	if err != nil {
		return err
	}
	config := hygiene.NewConfig(target)
	config.Now, config.CountOnly = now, !opts.diff // without --diff nothing lists the changes
	r := &hygiene.Run{Config: config}
	if opts.policyOnly {
		if opts.format == "json" {
			return report.ReplayPolicyJSON(a.Out, r)
		}
		return report.ReplayPolicyText(a.Out, r)
	}
	if le != nil {
		if opts.format == "json" {
			if err := report.ReplayLoaderErrorJSON(a.Out, r, le); err != nil {
				return err
			}
		}
		if refusal != nil {
			_, msg, _ := strings.Cut(refusal.Msg, ": ")
			return &refusedError{err: fmt.Errorf("%s: OpenClaw's runtime refuses to load this session: %s", path, msg)}
		}
		return &refusedError{err: le}
	}
	spool, closeSpool, err := newTempFile("openclaw-doctor-replay-*")
	if err != nil {
		return fmt.Errorf("spooling the replay: %w", err)
	}
	defer closeSpool()
	out := report.NewReplayOutput(a.Out, spool, opts.format == "json", opts.diff)
	governed := governedReplay{ReplayOutput: out, restoreGC: sync.OnceFunc(collectSooner())}
	err = hygiene.ReplaySession(ctx, src, stream, []hygiene.Config{config}, governed)
	governed.restoreGC()
	if ctx.Err() != nil {
		return ctx.Err() // interrupted: print nothing of the spooled replay
	}
	if spoolErr := out.Close(); spoolErr != nil {
		return spoolErr
	}
	var wl *hygiene.WholeLoadError
	if errors.As(err, &wl) {
		return wrapLoadError(path, wl.Err)
	}
	if err != nil {
		return err
	}
	if out.Refusal != nil {
		return &refusedError{err: fmt.Errorf("OpenClaw would refuse this history for %s: %w", r.Target.Provider, out.Refusal)}
	}
	return nil
}

// governedReplay is the replay's output with the collector's sooner
// trigger (collectSooner) on until a whole-list replay begins: that replay
// keeps the whole branch, and collects at Go's default pace.
type governedReplay struct {
	*report.ReplayOutput
	restoreGC func()
}

func (g governedReplay) Begin(k int, whole bool) error {
	if whole {
		g.restoreGC()
	}
	return g.ReplayOutput.Begin(k, whole)
}

// nowEnv freezes the clock replay reads (the time of a model switch, the
// timestamps of inserted messages), for reproducible output: an RFC 3339
// time, e.g. 2026-01-01T00:00:00Z (the clock of the conformance corpus).
// `check --provider` reads it too.
const nowEnv = "OPENCLAW_DOCTOR_NOW"

// replayClock is the clock nowEnv sets, or the real clock.
func replayClock(a *app) (func() time.Time, error) {
	v := a.getenv(nowEnv)
	if v == "" {
		return time.Now, nil
	}
	now, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, usageErrorf("%s: %q is not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)", nowEnv, v)
	}
	return func() time.Time { return now }, nil
}

// openReplaySource opens path, or spools standard input or a pipe (the
// loader reads its input twice, the second time at offsets), and returns
// the function that closes it.
func openReplaySource(ctx context.Context, a *app, path string) (*os.File, func(), error) {
	if path != "-" {
		f, closeF, err := openSeekableInput(ctx, path)
		if err != nil {
			return nil, nil, &unreadableError{err: err}
		}
		return f, closeF, nil
	}
	return spoolStdin(a)
}

func wrapLoadError(path string, err error) error {
	var le *session.LoaderError
	if err == nil || errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// openStoreReplaySource finds the store session opts names and spools the
// part of it OpenClaw's runtime loads (the bounded view, or with --full the
// whole transcript) as JSONL, which the loader reads like a file. name
// names the session in errors. A session the runtime refuses to load gives
// the refusal instead of a source.
func openStoreReplaySource(ctx context.Context, a *app, opts *replayOptions, args []string) (f *os.File, closeF func(), name string, refusal *session.LoaderError, err error) {
	_, dbs, err := storeDatabases(a, "replay", args)
	if err != nil {
		return nil, nil, "", nil, err
	}
	db, w, err := findStoreSession(ctx, "replay", dbs, opts.agent, opts.session)
	if err != nil {
		return nil, nil, "", nil, err
	}
	defer db.Close()
	name = db.Path() + "#" + opts.session
	sp, err := spoolStoreView(ctx, db, w.SessionID, storeView{full: opts.full, contextTokens: opts.contextTokens})
	if err != nil {
		return nil, nil, "", nil, storeSpoolError("replay", err)
	}
	if sp.refusal != nil { // the loader reads an empty source, then the refusal stands for its error
		f, closeF, err = newTempFile("openclaw-doctor-replay-*.jsonl")
		if err != nil {
			return nil, nil, "", nil, fmt.Errorf("replay: spooling the session: %w", err)
		}
		return f, closeF, name, sp.refusal, nil
	}
	return sp.f, sp.close, name, nil, nil
}
