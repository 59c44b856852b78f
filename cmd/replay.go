package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
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
	src, closeSrc, err := openReplaySource(a, path)
	if err != nil {
		return err
	}
	defer closeSrc()
	stream, err := session.OpenContext(src)
	err = wrapLoadError(path, err)
	var le *session.LoaderError
	if err != nil && !errors.As(err, &le) {
		return err
	}
	var facts *session.Context
	if stream != nil {
		facts = stream.Facts
		defer func() { // the stream of the last attempt, if it opened
			if stream != nil {
				stream.Close()
			}
		}()
	}
	target, err := hygiene.CompleteTarget(hygiene.Target{Provider: opts.provider, ModelAPI: opts.modelAPI,
		ModelID: opts.modelID, Reasoning: opts.reasoning}, facts)
	if errors.Is(err, hygiene.ErrNoProvider) {
		return usageErrorf("replay: no provider: the session records no model; give --provider (and --model-api, --model-id)")
	}
	target.ImageMaxDimensionPx = a.settings.ImageMaxDimensionPx
	newRun, err := replayRunFactory(a, target, !opts.diff)
	if err != nil {
		return err
	}
	r := newRun()
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
		return &exitError{code: exitFindings, err: le}
	}
	stopGovernor := governMemoryWith(replayHeadroom(src))
	done, err := replayAttempts(ctx, a, opts, src, &stream, r, newRun)
	stopGovernor()
	if done || err != nil {
		return err
	}
	// A session the segmented replay cannot vouch for, or one OpenClaw
	// refuses: replay it whole.
	r = newRun()
	sctx, err := session.ReadContext(src)
	if err != nil {
		return wrapLoadError(path, err)
	}
	return replayWhole(ctx, a, opts, r, sctx)
}

// replayHeadroom is the garbage the segmented replay lets accumulate
// between collections: a quarter of the session file (parsing makes about
// twice the file's size in garbage, so about eight collections), at least
// 32 MiB.
func replayHeadroom(f *os.File) uint64 {
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	return uint64(max(size/4, 32<<20))
}

// replayWhole replays a loaded context and prints the result.
func replayWhole(ctx context.Context, a *app, opts *replayOptions, r *hygiene.Run, sctx *session.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	contextLen := len(sctx.Messages)
	msgs, replayErr := hygiene.ReplayContext(r, sctx)
	var err error
	if opts.format == "json" {
		err = report.ReplayJSON(a.Out, r, msgs, replayErr, opts.diff)
	} else {
		err = report.ReplayText(a.Out, r, contextLen, msgs, replayErr, opts.diff)
	}
	if err != nil {
		return err
	}
	if replayErr != nil {
		return &exitError{code: exitFindings, err: fmt.Errorf("OpenClaw would refuse this history for %s: %w", r.Target.Provider, replayErr)}
	}
	return nil
}

// replayAttempts runs the segmented replay over *stream with r, and after a
// hazard at one cut again without that cut (on a new stream of src and a
// new run), up to hygiene.SegmentRetries times. It reports done = false, having
// printed nothing, when the session needs the whole-list replay; *stream is
// the last stream opened (nil if opening it failed).
func replayAttempts(ctx context.Context, a *app, opts *replayOptions, src io.ReaderAt, stream **session.ContextStream,
	r *hygiene.Run, newRun func() *hygiene.Run) (done bool, err error) {
	avoid := map[int]bool{}
	for attempt := 0; ; attempt++ {
		r.AvoidCuts = avoid
		done, hazard, err := replaySegmented(ctx, a, opts, r, *stream)
		if done || err != nil {
			return done, err
		}
		if hazard == nil || hazard.Cut < 0 || attempt == hygiene.SegmentRetries {
			return false, nil
		}
		avoid[hazard.Cut] = true
		(*stream).Close()
		if *stream, err = session.OpenContext(src); err != nil {
			*stream = nil
			return false, nil // the whole-list load reports it
		}
		r = newRun()
	}
}

// replaySegmented replays the stream segment by segment (memory bounded by
// a segment, whatever the session's size), spooling the replayed messages
// to a temporary file, and prints the result. It reports done = false,
// having printed nothing, when the session needs another attempt or the
// whole-list replay: a segmentation hazard (returned), or a line the stream
// could not read (the whole-list load reports it).
func replaySegmented(ctx context.Context, a *app, opts *replayOptions, r *hygiene.Run, stream *session.ContextStream) (done bool, hazard *hygiene.SegmentHazard, err error) {
	spool, closeSpool, err := newTempFile("openclaw-doctor-replay-*")
	if err != nil {
		return false, nil, fmt.Errorf("spooling the replay: %w", err)
	}
	defer closeSpool()
	w := bufio.NewWriterSize(spool, 1<<20)
	messages := report.ReplayMessages{JSON: opts.format == "json"}
	contextLen := 0
	var streamErr error
	next := func() ([]session.ContextMessage, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		msgs, err := stream.Next()
		if err != nil && !errors.Is(err, io.EOF) {
			streamErr = err
		}
		contextLen += len(msgs)
		return msgs, err
	}
	out := startBatchWriter(w, &messages)
	err = hygiene.ReplayStream(r, stream.Facts, next, out.write)
	writeErr := out.close()
	switch {
	case writeErr != nil:
		return false, nil, fmt.Errorf("spooling the replay: %w", writeErr)
	case err == nil:
	case ctx.Err() != nil:
		return false, nil, ctx.Err()
	case streamErr != nil:
		return false, nil, nil
	case errors.As(err, &hazard):
		return false, hazard, nil
	default:
		return false, nil, err
	}
	if err := w.Flush(); err != nil {
		return false, nil, fmt.Errorf("spooling the replay: %w", err)
	}
	return true, nil, printSpooled(a, opts, r, spool, contextLen, messages.N)
}

// batchWriter writes batches of replayed messages on a goroutine of its
// own, so that encoding a segment overlaps the replay of the next one.
type batchWriter struct {
	batches chan []hygiene.Message
	done    chan error
}

func startBatchWriter(w io.Writer, m *report.ReplayMessages) *batchWriter {
	b := &batchWriter{batches: make(chan []hygiene.Message, 1), done: make(chan error, 1)}
	go func() {
		var err error
		for msgs := range b.batches {
			if err == nil {
				err = m.Write(w, msgs)
			}
		}
		b.done <- err
	}()
	return b
}

// write queues a copy of the list (the replay reuses its room).
func (b *batchWriter) write(msgs []hygiene.Message) error {
	b.batches <- slices.Clone(msgs)
	return nil
}

// close waits for the queued batches and returns the first write error.
func (b *batchWriter) close() error {
	close(b.batches)
	return <-b.done
}

// printSpooled prints the replay document around the spooled messages.
func printSpooled(a *app, opts *replayOptions, r *hygiene.Run, spool *os.File, contextLen, sent int) error {
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var err error
	if opts.format == "json" {
		err = report.ReplayJSONHead(a.Out, r)
	} else {
		err = report.ReplayTextHead(a.Out, r, contextLen, sent)
	}
	if err != nil {
		return err
	}
	if _, err := io.Copy(a.Out, spool); err != nil {
		return err
	}
	if opts.format == "json" {
		return report.ReplayJSONTail(a.Out, r, opts.diff)
	}
	return report.ReplayTextTail(a.Out, r, opts.diff)
}

// newTempFile creates a temporary file and the function that closes and
// removes it. Where the system allows it the file is removed at once, so
// that nothing is left behind even when the process is killed.
func newTempFile(pattern string) (*os.File, func(), error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, nil, err
	}
	name := f.Name()
	_ = os.Remove(name) // fails on Windows while the file is open
	return f, func() {
		f.Close()
		os.Remove(name)
	}, nil
}

// replayRunFactory returns a function making a fresh Run for target with
// the clock nowEnv sets; with countOnly, the runs keep change counts, not
// the changes (nothing lists them).
func replayRunFactory(a *app, target hygiene.Target, countOnly bool) (func() *hygiene.Run, error) {
	now, err := replayClock(a)
	if err != nil {
		return nil, err
	}
	return func() *hygiene.Run {
		r := hygiene.NewRun(target)
		r.CountOnly = countOnly
		if now != nil {
			r.Now = now
		}
		return r
	}, nil
}

// nowEnv freezes the clock replay reads (the time of a model switch, the
// timestamps of inserted messages), for reproducible output: an RFC 3339
// time, e.g. 2026-01-01T00:00:00Z (the clock of the conformance corpus).
// `check --provider` reads it too.
const nowEnv = "OPENCLAW_DOCTOR_NOW"

// replayClock is the clock nowEnv sets, or nil (the real clock).
func replayClock(a *app) (func() time.Time, error) {
	v := a.getenv(nowEnv)
	if v == "" {
		return nil, nil
	}
	now, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, usageErrorf("%s: %q is not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)", nowEnv, v)
	}
	return func() time.Time { return now }, nil
}

// openReplaySource opens path, or spools standard input to a temporary file
// (the loader reads its input twice, the second time at offsets), and
// returns the function that closes it.
func openReplaySource(a *app, path string) (*os.File, func(), error) {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}
	tmp, err := spoolStdin(a)
	if err != nil {
		return nil, nil, err
	}
	return tmp, func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}, nil
}

// spoolStdin copies standard input to a temporary file, for readers that
// need to read it twice or at offsets. The caller removes the file.
func spoolStdin(a *app) (*os.File, error) {
	tmp, err := os.CreateTemp("", "openclaw-doctor-stdin-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("spooling standard input: %w", err)
	}
	if _, err := io.Copy(tmp, a.In); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("spooling standard input: %w", err)
	}
	return tmp, nil
}

func wrapLoadError(path string, err error) error {
	var le *session.LoaderError
	if err == nil || errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
