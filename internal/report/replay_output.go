package report

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/openclaw-doctor/openclaw-doctor/internal/hygiene"
)

// Spool is where ReplayOutput keeps the messages of a segmented replay
// until it is known to be exact: a temporary file.
type Spool interface {
	io.ReadWriteSeeker
	Truncate(size int64) error
}

// ReplayOutput prints `replay`'s document from the one run of a
// hygiene.ReplaySession (it is the session's hygiene.SessionOutput). A
// segmented attempt's messages are encoded into the spool as they come, on
// a goroutine of their own, so that encoding a segment overlaps the replay
// of the next; the document is printed around the spooled messages once
// the attempt is known to be exact, so an attempt that meets a hazard
// prints nothing. A whole-list replay is printed at once.
type ReplayOutput struct {
	w          io.Writer
	spool      Spool
	json, diff bool
	// Refusal is OpenClaw's refusal of the history, once the run is done.
	Refusal error

	spooled  *bufio.Writer
	messages ReplayMessages
	writer   *batchWriter // the running attempt's; nil when none runs
}

// NewReplayOutput returns the output that prints to w, as JSON or text,
// with every change listed when diff is set.
func NewReplayOutput(w io.Writer, spool Spool, json, diff bool) *ReplayOutput {
	return &ReplayOutput{w: w, spool: spool, json: json, diff: diff}
}

// Begin starts an attempt: a segmented one empties the spool.
func (o *ReplayOutput) Begin(_ int, whole bool) error {
	if err := o.Close(); err != nil || whole {
		return err
	}
	if _, err := o.spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spooling the replay: %w", err)
	}
	if err := o.spool.Truncate(0); err != nil {
		return fmt.Errorf("spooling the replay: %w", err)
	}
	if o.spooled == nil {
		o.spooled = bufio.NewWriterSize(o.spool, 1<<20)
	}
	o.spooled.Reset(o.spool)
	o.messages = ReplayMessages{JSON: o.json}
	o.writer = startBatchWriter(o.spooled, &o.messages)
	return nil
}

// Segment queues a segment's messages for the spool.
func (o *ReplayOutput) Segment(_ int, msgs []hygiene.Message) error {
	o.writer.write(msgs, nil)
	return nil
}

// SegmentRelease is Segment, and calls release once the messages are
// spooled: the output keeps nothing of them.
func (o *ReplayOutput) SegmentRelease(_ int, msgs []hygiene.Message, release func()) error {
	o.writer.write(msgs, release)
	return nil
}

// Done prints the document.
func (o *ReplayOutput) Done(_ int, res hygiene.Replayed) error {
	if res.Whole {
		o.Refusal = res.Refusal
		if o.json {
			return ReplayJSON(o.w, res.Run, res.Messages, res.Refusal, o.diff)
		}
		return ReplayText(o.w, res.Run, res.ContextLen, res.Messages, res.Refusal, o.diff)
	}
	if err := o.Close(); err != nil {
		return err
	}
	if err := o.spooled.Flush(); err != nil {
		return fmt.Errorf("spooling the replay: %w", err)
	}
	return o.printSpooled(res.Run, res.ContextLen)
}

// Close waits for the spooling of a segmented attempt still running (one
// a cancelled replay left) and returns its error.
func (o *ReplayOutput) Close() error {
	if o.writer == nil {
		return nil
	}
	err := o.writer.close()
	o.writer = nil
	if err != nil {
		return fmt.Errorf("spooling the replay: %w", err)
	}
	return nil
}

// spoolCopyBuffer is the size of the pieces the spooled messages are
// printed in when the system does not copy them itself.
const spoolCopyBuffer = 1 << 20

// copySpool prints the spooled messages, most of the document: into a
// regular file the system copies them from file to file (io.Copy finds
// that way); anywhere else in large pieces, where io.Copy's 32 KiB buffer
// would make a read and a write per 32 KiB.
func copySpool(w io.Writer, spool io.Reader) error {
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			_, err := io.Copy(f, spool)
			return err
		}
	}
	buf := make([]byte, spoolCopyBuffer)
	_, err := io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{spool}, buf)
	return err
}

// printSpooled prints the replay document around the spooled messages.
func (o *ReplayOutput) printSpooled(r *hygiene.Run, contextLen int) error {
	if _, err := o.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	var err error
	if o.json {
		err = ReplayJSONHead(o.w, r)
	} else {
		err = ReplayTextHead(o.w, r, contextLen, o.messages.N)
	}
	if err != nil {
		return err
	}
	if err := copySpool(o.w, o.spool); err != nil {
		return err
	}
	if o.json {
		return ReplayJSONTail(o.w, r, o.diff)
	}
	return ReplayTextTail(o.w, r, o.diff)
}

// batchWriter writes batches of replayed messages on a goroutine of its
// own.
type batchWriter struct {
	batches chan batch
	// free holds lists the writer is done with, for write to copy the next
	// batches into: a long replay reuses a few lists instead of making one
	// per segment.
	free chan []hygiene.Message
	done chan error
}

func startBatchWriter(w io.Writer, m *ReplayMessages) *batchWriter {
	b := &batchWriter{batches: make(chan batch, 1), free: make(chan []hygiene.Message, 2),
		done: make(chan error, 1)}
	go func() {
		var err error
		for bt := range b.batches {
			msgs := bt.msgs
			if err == nil {
				err = m.Write(w, msgs)
			}
			clear(msgs) // let the messages go
			if bt.release != nil {
				bt.release()
			}
			select {
			case b.free <- msgs[:0]:
			default:
			}
		}
		b.done <- err
	}()
	return b
}

// batch is a list of messages to write, and the function to call once
// they are written (nil: none).
type batch struct {
	msgs    []hygiene.Message
	release func()
}

// write queues a copy of the list (the replay reuses its room); release,
// when not nil, is called once it is written.
func (b *batchWriter) write(msgs []hygiene.Message, release func()) {
	var list []hygiene.Message
	select {
	case list = <-b.free:
	default:
	}
	b.batches <- batch{msgs: append(list, msgs...), release: release}
}

// close waits for the queued batches and returns the first write error.
func (b *batchWriter) close() error {
	close(b.batches)
	return <-b.done
}
