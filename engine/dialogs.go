package engine

// dialogs.go forwards an agent's dialog (status waiting) once to its parent,
// or the person, as a <permission-request>, and answers it when asked
// (`office approve AGENT OPTION`, docs/design.md §2): the choice is typed by the
// drain, through the agent's one writer, only while the dialog forwarded is
// still the one on screen (drain.Approve).

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"office/automation"
	"office/drain"
	"office/inbox"
	"office/queue"
	"office/wire"
)

// dialogOption is one option on a dialog's screen (automation.DialogOptions).
type dialogOption = automation.DialogOption

// dialogOptions reads the options from screen text.
func dialogOptions(text string) []dialogOption { return automation.DialogOptions(text) }

// openDialog is a dialog seen on an agent's screen and forwarded.
type openDialog struct {
	fingerprint string // drain.DialogFingerprint of the screen when it was seen
	options     []dialogOption
	seen        time.Time
}

// dialogBook holds each agent's open dialog. Safe for concurrent use: the
// inbox goroutine writes it, socket calls read it.
type dialogBook struct {
	mu   sync.Mutex
	open map[string]openDialog
}

// opened records agent's dialog read from screen at now and reports whether
// it is a new one: none was recorded, or the recorded one is not what the
// screen shows (another dialog replaced it before the status left waiting).
func (b *dialogBook) opened(agent, screen string, now time.Time) (openDialog, bool) {
	d := readDialog(screen, now)
	b.mu.Lock()
	defer b.mu.Unlock()
	if cur, ok := b.open[agent]; ok && cur.fingerprint == d.fingerprint {
		return cur, false
	}
	if b.open == nil {
		b.open = map[string]openDialog{}
	}
	b.open[agent] = d
	return d, true
}

// get returns agent's recorded dialog.
func (b *dialogBook) get(agent string) (openDialog, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.open[agent]
	return d, ok
}

// readDialog reads the dialog on screen at now.
func readDialog(screen string, now time.Time) openDialog {
	return openDialog{fingerprint: drain.DialogFingerprint(screen), options: dialogOptions(screen), seen: now}
}

// closed forgets agent's dialog.
func (b *dialogBook) closed(agent string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.open, agent)
}

// statusChanged forwards a new dialog (status waiting) once to the agent's
// parent, or the person, and forgets it once the agent leaves waiting
// (runInbox only).
func (e *Engine) statusChanged(ctx context.Context, name string) {
	a, ok := e.Agent(name)
	if !ok || a.Term == nil {
		return
	}
	if !isWaiting(a) {
		e.inbox.dialogs.closed(name)
		return
	}
	text := a.Term.Text()
	d, isNew := e.inbox.dialogs.opened(name, text, e.inbox.clock.Now())
	if !isNew {
		return
	}
	var opts []string
	for _, o := range d.options {
		n := o.Num
		if n == "" {
			n = strconv.Itoa(o.Pos)
		}
		opts = append(opts, n+". "+o.Label)
	}
	to := a.Config.Parent
	if to == "" {
		to = inbox.Person
	}
	if _, err := e.inbox.svc.ForwardPermission(ctx, to, name, inbox.LastLines(text, 16, 2000), opts, ""); err != nil {
		e.log.Error("forwarding a dialog", "agent", name, "err", err)
		return
	}
	e.log.Info("dialog forwarded", "agent", name, "to", to)
	e.inboxKick(ctx)
}

// ErrNoDialog: `office approve` was given an agent that shows no dialog.
var ErrNoDialog = errors.New("no dialog is waiting")

// Approve answers agent's dialog with option (its number, or a label that
// the dialog's options start with, case-insensitively), logged with who
// approved, and returns the option's number. The drain types it only while
// the dialog forwarded (or, not forwarded yet, the one on screen now) is
// still open; when it closed, nothing is typed and the error matches
// ErrNoDialog (the agent shows no dialog at all) or drain.ErrDialogGone.
func (e *Engine) Approve(ctx context.Context, agent, option, by string) (string, error) {
	a, ok := e.Agent(agent)
	if !ok {
		return "", fmt.Errorf("engine: approve: %w %q", queue.ErrUnknownAgent, agent)
	}
	if e.inbox == nil || a.Term == nil {
		return "", fmt.Errorf("engine: approve %q: %w", agent, ErrNoDialog)
	}
	// A dialog known by its text (status waiting), or by its shape only
	// (the drain's screen gate holds delivery for it as "unknown screen"),
	// and then not while the prompt row is found and empty: the shape is
	// the transcript's, and the option would be typed into the prompt.
	_, shape := automation.DialogShape(a.Term.Text())
	if row, ok := a.Term.Prompt(); ok && automation.ReadPromptRow(row, ok) == automation.PromptEmpty {
		shape = false
	}
	if !isWaiting(a) && !shape {
		return "", fmt.Errorf("engine: approve %q: %w", agent, ErrNoDialog)
	}
	// The dialog forwarded; one not forwarded yet is the one on screen now
	// (it is not recorded here: forwarding it stays statusChanged's). The
	// person answers what the screen shows now: a dialog forwarded while it
	// was still being drawn (Claude Code draws its offers in a few frames)
	// has another fingerprint than the finished one. An agent answers only
	// the dialog forwarded to it.
	d, ok := e.inbox.dialogs.get(agent)
	if !ok || by == "" || by == inbox.Person {
		d = readDialog(a.Term.Text(), e.inbox.clock.Now())
	}
	ap, num := answerFor(strings.TrimSpace(option), d.options)
	if num == "" {
		return "", fmt.Errorf("engine: approve %q: no option %q on the dialog (options: %s)", agent, option, optionList(d.options))
	}
	if by == "" {
		by = inbox.Person
	}
	ap.Agent, ap.Dialog, ap.By = agent, d.fingerprint, by
	if err := e.drain.Approve(ctx, ap); err != nil {
		return "", err // it names the agent and why
	}
	if err := e.inbox.svc.LogApproval(ctx, agent, num, by); err != nil {
		e.log.Error("logging an approval", "err", err)
	}
	return num, nil
}

// optionList names a dialog's options for an error.
func optionList(opts []dialogOption) string {
	if len(opts) == 0 {
		return "none read"
	}
	var b []string
	for _, o := range opts {
		n := o.Num
		if n == "" {
			n = strconv.Itoa(o.Pos)
		}
		b = append(b, n+". "+o.Label)
	}
	return strings.Join(b, "; ")
}

// answerFor resolves option, a number, a position or the start of a label,
// to the keys that answer it: a numbered option's number, typed; an
// unnumbered one's place and label (the drain moves the pointer there from
// where the live screen shows it, then presses Enter: the pointer may have
// moved since the dialog was read). num names the option chosen ("" for
// none).
func answerFor(option string, opts []dialogOption) (drain.Approval, string) {
	numbered := len(opts) > 0 && opts[0].Num != ""
	if len(opts) == 0 || numbered {
		n := optionNumber(option, opts)
		return drain.Approval{Keys: n}, n
	}
	var pick *dialogOption
	if n, err := strconv.Atoi(option); err == nil {
		if n >= 1 && n <= len(opts) {
			pick = &opts[n-1]
		}
	} else if option != "" {
		for i := range opts {
			if strings.HasPrefix(strings.ToLower(opts[i].Label), strings.ToLower(option)) {
				pick = &opts[i]
				break
			}
		}
	}
	if pick == nil {
		return drain.Approval{}, ""
	}
	return drain.Approval{Target: pick.Pos, Label: pick.Label}, strconv.Itoa(pick.Pos)
}

// optionNumber resolves option, a number or the start of a label, to the
// number to type ("" for none). A number must be one of the dialog's options
// when its options could be read.
func optionNumber(option string, opts []dialogOption) string {
	if option == "" {
		return ""
	}
	if n, err := strconv.Atoi(option); err == nil {
		if n < 0 {
			return ""
		}
		if len(opts) == 0 {
			return option
		}
		for _, o := range opts {
			if o.Num == option {
				return option
			}
		}
		return ""
	}
	for _, o := range opts {
		if strings.HasPrefix(strings.ToLower(o.Label), strings.ToLower(option)) {
			return o.Num
		}
	}
	return ""
}

// opApprove is the "approve" socket call.
func (e *Engine) opApprove(ctx context.Context, _ Request, args wire.ApproveArgs) (wire.ApproveResult, error) {
	num, err := e.Approve(ctx, args.Agent, args.Option, args.By)
	if err != nil {
		return wire.ApproveResult{}, err
	}
	return wire.ApproveResult{Option: num}, nil
}

// DialogOption is one numbered option of a dialog, for a client that shows
// the options as buttons (the web page) and answers with Num through the
// "approve" call.
type DialogOption struct {
	Num   string `json:"num"`
	Label string `json:"label"`
}

// DialogOptions reads the numbered options from a dialog's screen text, as
// Approve reads them.
func DialogOptions(text string) []DialogOption {
	var out []DialogOption
	for _, o := range dialogOptions(text) {
		out = append(out, DialogOption{Num: o.Num, Label: o.Label})
	}
	return out
}
