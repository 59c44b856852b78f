package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/openclaw-doctor/openclaw-doctor/internal/session"
	"github.com/openclaw-doctor/openclaw-doctor/internal/store"
)

// This file spools the part of a store session OpenClaw's runtime loads
// before a model call, for the commands that replay it (replay --session,
// check --provider on store sessions).

// storeView is the part of a store session to replay: OpenClaw's bounded
// view for a context window of contextTokens, or with full the whole
// active branch (the session's export).
type storeView struct {
	full          bool
	contextTokens int64
}

// flags are the replay flags that select v: none for OpenClaw's default
// bounded view, --full, or --context-tokens N.
func (v storeView) flags() []string {
	switch {
	case v.full:
		return []string{"--full"}
	case v.contextTokens != store.DefaultContextTokens:
		return []string{"--context-tokens", strconv.FormatInt(v.contextTokens, 10)}
	}
	return nil
}

// spooledView is a store session's replay source: its stream spooled to an
// unlinked temporary file (f, closed by close), or the refusal of OpenClaw's
// runtime, which loads no such session.
type spooledView struct {
	f       *os.File
	close   func()
	refusal *session.LoaderError
	// view is the bounded view (nil with full): its lines are the lines
	// of f.
	view *store.View
}

// spoolStoreView spools sessionID of db as v says. An error is a
// *storeSpoolFailure saying whether the store could not be read or a row
// of the session could not (see storeSpoolError).
func spoolStoreView(ctx context.Context, db *store.DB, sessionID string, v storeView) (spooledView, error) {
	var (
		sp  spooledView
		err error
	)
	if v.full {
		err = db.CheckHeader(ctx, sessionID)
	} else {
		sp.view, err = db.View(ctx, sessionID, store.ContextLimits(v.contextTokens))
	}
	switch {
	case errors.Is(err, store.ErrLegacyTranscript):
		sp.refusal = &session.LoaderError{Msg: "Error: " + store.ErrLegacyTranscript.Error()}
		return sp, nil
	case errors.Is(err, store.ErrHeaderTooLarge):
		sp.refusal = &session.LoaderError{Msg: "RangeError: " + store.ErrHeaderTooLarge.Error()}
		return sp, nil
	case err != nil:
		return sp, &storeSpoolFailure{err: err}
	}
	f, closeF, err := newTempFile("openclaw-doctor-replay-*.jsonl")
	if err != nil {
		return sp, &storeSpoolFailure{temp: true, err: fmt.Errorf("spooling the session: %w", err)}
	}
	var r *store.ExportReader
	if v.full {
		r, err = db.Reader(ctx, sessionID)
	} else {
		r, err = db.ViewReader(ctx, sp.view)
	}
	if err == nil {
		_, err = r.WriteTo(f)
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		closeF()
		return sp, &storeSpoolFailure{spooling: true, err: err}
	}
	sp.f, sp.close = f, closeF
	return sp, nil
}

// storeSpoolFailure is a failure of spoolStoreView: reading the session's
// view (or header), or spooling its stream.
type storeSpoolFailure struct {
	spooling bool // writing the stream
	temp     bool // making the temporary file
	err      error
}

func (e *storeSpoolFailure) Error() string { return e.err.Error() }
func (e *storeSpoolFailure) Unwrap() error { return e.err }

// storeSpoolError is the command error of a spoolStoreView failure in
// command name: a row that cannot be read refuses the session (as export
// does), a view or stream that cannot be read leaves it unreadable.
func storeSpoolError(name string, err error) error {
	var sf *storeSpoolFailure
	switch {
	case !errors.As(err, &sf):
		return err
	case sf.temp:
		return fmt.Errorf("%s: %w", name, sf.err)
	case sf.spooling:
		return exportError(fmt.Errorf("%s: %w", name, sf.err))
	}
	return &unreadableError{err: fmt.Errorf("%s: %w", name, sf.err)}
}
