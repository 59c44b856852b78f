package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
	"github.com/openclaw-doctor/openclaw-doctor/internal/report"
	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
)

// replayOptions are the replay command's flags.
type replayOptions struct {
	provider, modelAPI, modelID string
	reasoning                   bool
	policyOnly, diff            bool
	format                      string
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

func newReplayCmd(a *app) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay [flags] FILE|-",
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
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.format != "text" && opts.format != "json" {
				return usageErrorf("replay: --format must be text or json, not %q", opts.format)
			}
			return runReplay(cmd.Context(), a, opts, args[0])
		},
	}
	opts.addFlags(cmd.Flags())
	return cmd
}

// runReplay loads the session, resolves the target and prints the replay.
func runReplay(ctx context.Context, a *app, opts *replayOptions, path string) error {
	file, closeSrc, err := openReplaySource(ctx, a, path)
	if err != nil {
		return err
	}
	defer closeSrc()
	src := jsonl.WithContextAt(ctx, file) // an interrupted load or replay stops at its next read
	stream, err := session.OpenContext(src)
	err = wrapLoadError(path, err)
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
