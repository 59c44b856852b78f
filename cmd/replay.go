package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
	"github.com/openclaw-doctor/openclaw-doctor/internal/jsonl"
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
	sctx, err := loadReplayContext(a, path)
	var le *session.LoaderError
	if err != nil && !errors.As(err, &le) {
		return err
	}
	target, err := replayTarget(opts, sctx)
	if err != nil {
		return err
	}
	target.ImageMaxDimensionPx = a.settings.ImageMaxDimensionPx
	r := hygiene.NewRun(target)
	if err := applyClockOverride(a, r); err != nil {
		return err
	}
	if opts.policyOnly {
		return printPolicy(a.Out, opts.format, r)
	}
	if le != nil {
		return reportLoaderError(a.Out, opts.format, r, le)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	contextLen := len(sctx.Messages)
	msgs, replayErr := hygiene.ReplayContext(r, sctx)
	if opts.format == "json" {
		return printReplayJSON(a.Out, r, msgs, replayErr, opts.diff)
	}
	return printReplayText(a.Out, r, contextLen, msgs, replayErr, opts.diff)
}

// nowEnv freezes the clock replay reads (the time of a model switch, the
// timestamps of inserted messages), for reproducible output: an RFC 3339
// time, e.g. 2026-01-01T00:00:00Z (the clock of the conformance corpus).
const nowEnv = "OPENCLAW_DOCTOR_NOW"

func applyClockOverride(a *app, r *hygiene.Run) error {
	v := a.getenv(nowEnv)
	if v == "" {
		return nil
	}
	now, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return usageErrorf("%s: %q is not an RFC 3339 time (e.g. 2026-01-01T00:00:00Z)", nowEnv, v)
	}
	r.Now = func() time.Time { return now }
	return nil
}

// loadReplayContext reads the context of the session's active branch from
// path, or from standard input (spooled to a temporary file, as the loader
// reads twice).
func loadReplayContext(a *app, path string) (*session.Context, error) {
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		ctx, err := session.ReadContext(f)
		return ctx, wrapLoadError(path, err)
	}
	tmp, err := os.CreateTemp("", "openclaw-doctor-replay-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("spooling standard input: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := io.Copy(tmp, a.In); err != nil {
		return nil, fmt.Errorf("spooling standard input: %w", err)
	}
	ctx, err := session.ReadContext(tmp)
	return ctx, wrapLoadError("-", err)
}

func wrapLoadError(path string, err error) error {
	var le *session.LoaderError
	if err == nil || errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// replayTarget completes the target. Without --provider it is the
// session's: the provider and model of its last model change or assistant
// turn, and the api of its last assistant turn (or the provider's usual
// api). A provider given alone implies its usual api; the session's api and
// model id are used only when the given provider is the session's and the
// provider has no usual api (respectively: always for the model id).
func replayTarget(opts *replayOptions, sctx *session.Context) (hygiene.Target, error) {
	t := hygiene.Target{Provider: opts.provider, ModelAPI: opts.modelAPI, ModelID: opts.modelID, Reasoning: opts.reasoning}
	var sessionProvider, sessionModel, sessionAPI string
	if sctx != nil && sctx.Model != nil {
		sessionProvider, sessionModel, sessionAPI = sctx.Model.Provider, sctx.Model.ModelID, sctx.ModelAPI
	}
	fromSession := t.Provider == ""
	sameProvider := fromSession || hygiene.NormalizeProvider(t.Provider) == hygiene.NormalizeProvider(sessionProvider)
	if fromSession {
		t.Provider = sessionProvider
	}
	if t.Provider == "" {
		return t, usageErrorf("replay: no provider: the session records no model; give --provider (and --model-api, --model-id)")
	}
	if t.ModelID == "" && sameProvider {
		t.ModelID = sessionModel
	}
	if t.ModelAPI == "" && fromSession {
		t.ModelAPI = sessionAPI
	}
	if t.ModelAPI == "" {
		t.ModelAPI = hygiene.DefaultModelAPI(t.Provider)
	}
	if t.ModelAPI == "" && sameProvider {
		t.ModelAPI = sessionAPI
	}
	return t, nil
}

// replayHeader is the common head of the JSON output.
type replayHeader struct {
	Provider string         `json:"provider"`
	ModelAPI string         `json:"modelApi"`
	ModelID  string         `json:"modelId"`
	Policy   hygiene.Policy `json:"policy"`
}

func header(t hygiene.Target, p hygiene.Policy) replayHeader {
	return replayHeader{Provider: t.Provider, ModelAPI: t.ModelAPI, ModelID: t.ModelID, Policy: p}
}

func printPolicy(w io.Writer, format string, r *hygiene.Run) error {
	if format == "json" {
		b, err := json.Marshal(header(r.Target, r.Policy))
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "target: %s %s %s\n", r.Target.Provider, orDash(r.Target.ModelAPI), orDash(r.Target.ModelID))
	return writePolicyText(w, r.Policy)
}

// writePolicyText prints the policy one field per line, in OpenClaw's order.
func writePolicyText(w io.Writer, p hygiene.Policy) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	v, err := jsonl.Parse(b)
	if err != nil {
		return err
	}
	for _, m := range v.Items() {
		fmt.Fprintf(w, "  %-34s %s\n", m.Key, jsonl.MarshalString(m.Value))
	}
	return nil
}

// jsChange is a change in the JSON output of --diff.
type jsChange struct {
	Rule    string `json:"rule"`
	Line    int    `json:"line,omitempty"`
	EntryID string `json:"entryId,omitempty"`
	Detail  string `json:"detail"`
	Rejects bool   `json:"rejects,omitempty"`
}

func printReplayJSON(w io.Writer, r *hygiene.Run, msgs []hygiene.Message, replayErr error, diff bool) error {
	head, err := json.Marshal(header(r.Target, r.Policy))
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	buf := append([]byte(nil), head[:len(head)-1]...)
	if replayErr != nil {
		buf = appendErrorJSON(buf, "Error", replayErr.Error())
	} else {
		// One message at a time: the output is as large as the session.
		buf = append(buf, `,"messages":[`...)
		for i := range msgs {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = jsonl.AppendJSON(buf, &msgs[i].V)
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(buf, ']')
	}
	if diff {
		changes := make([]jsChange, len(r.Changes))
		for i, c := range r.Changes {
			changes[i] = jsChange{c.Rule, c.Line, c.EntryID, c.Detail, c.Rejects}
		}
		b, err := json.Marshal(changes)
		if err != nil {
			return err
		}
		buf = append(append(buf, `,"changes":`...), b...)
	}
	buf = append(buf, "}\n"...)
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if replayErr != nil {
		return &exitError{code: exitFindings, err: fmt.Errorf("OpenClaw would refuse this history for %s: %w", r.Target.Provider, replayErr)}
	}
	return nil
}

func appendErrorJSON(buf []byte, name, message string) []byte {
	buf = append(buf, `,"error":{"name":`...)
	buf = jsonl.AppendJSString(buf, name)
	buf = append(buf, `,"message":`...)
	buf = jsonl.AppendJSString(buf, message)
	return append(buf, '}')
}

// reportLoaderError reports a file OpenClaw's own loader throws on: no
// context can be built, so nothing can be replayed (exit 1).
func reportLoaderError(w io.Writer, format string, r *hygiene.Run, le *session.LoaderError) error {
	if format == "json" {
		head, err := json.Marshal(header(r.Target, r.Policy))
		if err != nil {
			return err
		}
		name, message, ok := strings.Cut(le.Msg, ": ")
		if !ok {
			name, message = "Error", le.Msg
		}
		buf := appendErrorJSON(append([]byte(nil), head[:len(head)-1]...), name, message)
		if _, err := w.Write(append(buf, "}\n"...)); err != nil {
			return err
		}
	}
	return &exitError{code: exitFindings, err: le}
}

// printReplayText prints one line per replayed message, then a summary of
// the changes (all of them with --diff).
func printReplayText(out io.Writer, r *hygiene.Run, contextLen int, msgs []hygiene.Message, replayErr error, diff bool) error {
	w := bufio.NewWriterSize(out, 64<<10)
	t := r.Target
	fmt.Fprintf(w, "replay for %s %s %s: %d context message(s)", t.Provider, orDash(t.ModelAPI), orDash(t.ModelID), contextLen)
	if replayErr == nil {
		fmt.Fprintf(w, " -> %d sent\n", len(msgs))
		for i := range msgs {
			fmt.Fprintf(w, "%4d  %s\n", i+1, describeMessage(&msgs[i]))
		}
	} else {
		fmt.Fprintln(w)
	}
	writeChangeSummary(w, r.Changes)
	if diff {
		writeChanges(w, r.Changes)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if replayErr != nil {
		return &exitError{code: exitFindings, err: fmt.Errorf("OpenClaw would refuse this history for %s: %w", t.Provider, replayErr)}
	}
	return nil
}

// describeMessage is one line: origin line, role, block types, tool-call
// ids, stop reason.
func describeMessage(m *hygiene.Message) string {
	v := &m.V
	origin := "new"
	if m.Line > 0 {
		origin = fmt.Sprintf("L%d", m.Line)
	}
	role := session.Role(v)
	parts := []string{fmt.Sprintf("%-6s %-17s %s", origin, role, blockTypes(v.Get("content")))}
	switch role {
	case session.RoleAssistant:
		if calls := session.ToolCalls(v); len(calls) > 0 {
			ids := make([]string, len(calls))
			for i, c := range calls {
				ids[i] = c.ID
			}
			parts = append(parts, "calls="+strings.Join(ids, ","))
		}
		if s := v.Get("stopReason").StrOr(""); s != "" && s != "stop" {
			parts = append(parts, "stop="+s)
		}
	case session.RoleToolResult:
		parts = append(parts, "id="+v.Get("toolCallId").StrOr("?"))
		if v.Get("isError").IsTrue() {
			parts = append(parts, "error")
		}
	}
	return strings.Join(parts, "  ")
}

func blockTypes(c *jsonl.Value) string {
	switch {
	case c == nil:
		return "(no content)"
	case c.IsString():
		return "string"
	case !c.IsArray():
		return c.Kind().String()
	case c.Len() == 0:
		return "[]"
	}
	types := make([]string, c.Len())
	for i := range types {
		if types[i] = session.BlockType(c.Index(i)); types[i] == "" {
			types[i] = "?"
		}
	}
	return "[" + strings.Join(types, ",") + "]"
}

// writeChangeSummary prints how many changes each rule made.
func writeChangeSummary(w io.Writer, changes []hygiene.Change) {
	if len(changes) == 0 {
		fmt.Fprintln(w, "no changes: OpenClaw sends the stored branch as it is")
		return
	}
	counts := map[string]int{}
	for _, c := range changes {
		counts[c.Rule]++
	}
	rules := make([]string, 0, len(counts))
	for rule := range counts {
		rules = append(rules, rule)
	}
	sort.Strings(rules)
	fmt.Fprintf(w, "%d change(s):\n", len(changes))
	for _, rule := range rules {
		fmt.Fprintf(w, "  %-34s %d\n", rule, counts[rule])
	}
}

// writeChanges lists every change in rule order of application.
func writeChanges(w io.Writer, changes []hygiene.Change) {
	if len(changes) == 0 {
		return
	}
	fmt.Fprintln(w, "changes:")
	for _, c := range changes {
		where := "  -   "
		if c.Line > 0 {
			where = fmt.Sprintf("L%-5d", c.Line)
		}
		fmt.Fprintf(w, "  %s %s: %s\n", where, c.Rule, c.Detail)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
