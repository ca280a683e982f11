package drain

// The submit protocol: how a message's text reaches the PTY. The text is
// sanitized, then written as one bracketed paste (several lines, or more than
// the paste threshold, when the CLI has paste mode on), line by line (shell
// and custom agents without paste mode), or plainly; after a pause, Enter is
// written alone (text and "\r" in one write is a newline
// for Codex and Gemini, not a submit).

import (
	"context"
	"errors"
	"strings"
	"time"

	"office/automation"
)

// errPersonTyped stops a submit whose Enter would send the person's keys
// with our text: they typed (or opened a picker) in the gap between the text
// and its Enter.
var errPersonTyped = errors.New("the person typed into the prompt before the Enter")

// errPartlyTyped stops a line-by-line submit after some lines went in: the
// rest must not be typed, and what went in must not be typed again.
var errPartlyTyped = errors.New("only some lines were typed")

// The bytes the drain writes besides message text and Enter (Agent.PressEnter)
// and an approved dialog's option. Nothing else: no Esc, no Ctrl-C, no Ctrl-U.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// mode is how a text is typed.
type mode int

const (
	// modePlain: one write of a single line, then Enter.
	modePlain mode = iota
	// modePaste: one bracketed-paste write, then Enter.
	modePaste
	// modeLines: each line then its own Enter.
	modeLines
)

// typing is a message's text made ready for one agent.
type typing struct {
	mode mode
	// text is what is typed, sanitized for the mode; "" when nothing is left.
	text string
	// probe is the line that stays on the prompt row if the CLI does not
	// take the Enter: the first line (the last one for modeLines).
	probe string
	// id is the queue message typed: each Enter submits it (the turn it
	// starts carries it as its cause).
	id int64
	// entering, if set, is called before each Enter is written; an error
	// stops the submit before the Enter (the text stays on the prompt).
	entering func() error
}

// plan sanitizes raw for agent a and chooses how to type it (gate 7). hold is
// HoldNoPasteMode when the text has several lines, a has paste mode off and
// is not typed line by line.
func plan(raw string, a Agent, pasteThreshold int) (t typing, hold Hold) {
	pasted := strings.TrimSpace(Sanitize(raw, true))
	multi := strings.Contains(pasted, "\n")
	if (multi || len(pasted) > pasteThreshold) && a.BracketedPaste() {
		return typing{mode: modePaste, text: pasted, probe: firstLine(pasted)}, HoldNone
	}
	plain := strings.TrimSpace(Sanitize(raw, false))
	switch {
	case !multi:
		return typing{mode: modePlain, text: plain, probe: plain}, HoldNone
	case a.Submit().LineByLine:
		return typing{mode: modeLines, text: plain, probe: plain[strings.LastIndexByte(plain, '\n')+1:]}, HoldNone
	}
	return typing{}, HoldNoPasteMode
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// typeIn types t into a and presses Enter, with the agent's gaps. typed
// reports, when err is not nil, whether text reached the prompt without its
// Enter (it sits there now). landed reports whether, just before the Enter,
// the prompt row showed text (or could not be read): evidence that the CLI
// took the text, which an empty row after the Enter needs to mean
// "submitted". A nil error means every write succeeded.
func (d *Drainer) typeIn(ctx context.Context, a Agent, t typing) (typed, landed bool, err error) {
	prof := a.Submit()
	gap := prof.EnterDelay
	if gap <= 0 {
		gap = d.cfg.EnterDelay
	}
	switch t.mode {
	case modePaste:
		pasteGap := prof.PasteEnterDelay
		if pasteGap <= 0 {
			pasteGap = gap
		}
		return d.line(ctx, a, t, pasteStart+t.text+pasteEnd, pasteGap)
	case modeLines:
		n := 0
		for l := range strings.SplitSeq(t.text, "\n") {
			if typed, _, err := d.line(ctx, a, t, l, gap); err != nil {
				if n > 0 {
					return true, true, errors.Join(errPartlyTyped, err)
				}
				return typed, true, err
			}
			n++
		}
		return false, true, nil
	}
	return d.line(ctx, a, t, t.text, gap)
}

// line writes text (skipped when empty), waits gap, then writes Enter alone.
// landed is as for typeIn.
func (d *Drainer) line(ctx context.Context, a Agent, t typing, text string, gap time.Duration) (typed, landed bool, err error) {
	landed = true
	if text != "" {
		if err := d.write(ctx, a, text); err != nil {
			// Part of the text may be on the prompt (a write cut short).
			return partial(err), false, err
		}
		if err := d.gapBeforeEnter(ctx, a, gap); err != nil {
			return true, false, err
		}
		// The person may have typed in the gap: an Enter now would submit
		// their keys merged with our text. Leave both on the prompt.
		if b := a.Block(d.cfg.Clock.Now()); b == automation.BlockDraft || b == automation.BlockPicker {
			return true, false, errPersonTyped
		}
		row, ok := a.Prompt()
		landed = !ok || automation.PromptRowHasText(row)
	}
	if t.entering != nil {
		if err := t.entering(); err != nil {
			return text != "", landed, err
		}
	}
	if err := d.enter(ctx, a, t.id); err != nil {
		return text != "", landed, err
	}
	return false, landed, nil
}

// partial reports whether err says some bytes were written before it failed
// (pool.PartialWriteError, seen through an interface so drain does not
// depend on pool).
func partial(err error) bool {
	var p interface{ Partial() bool }
	return errors.As(err, &p) && p.Partial()
}

// write is one write into a's PTY, bounded by the write timeout.
func (d *Drainer) write(ctx context.Context, a Agent, s string) error {
	wctx, cancel := context.WithTimeout(ctx, d.cfg.WriteTimeout)
	defer cancel()
	return a.Write(wctx, []byte(s))
}

// enter presses Enter alone to submit message id, bounded by the write
// timeout.
func (d *Drainer) enter(ctx context.Context, a Agent, id int64) error {
	wctx, cancel := context.WithTimeout(ctx, d.cfg.WriteTimeout)
	defer cancel()
	return a.PressEnter(wctx, automation.DeliveryEnter(id))
}

// sleep waits dur on the drain's clock, or until ctx is done.
func (d *Drainer) sleep(ctx context.Context, dur time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-d.cfg.Clock.After(dur):
		return nil
	}
}
