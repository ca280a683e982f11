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
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"office/drain"
	"office/inbox"
	"office/queue"
)

// dialogOption is one numbered option on a dialog's screen.
type dialogOption struct{ num, label string }

var optionLine = regexp.MustCompile(`^\s*(?:[❯>›▶]\s*)?(\d{1,2})[.)]\s+(\S.*?)\s*$`)

// dialogOptions reads the numbered options from screen text.
func dialogOptions(text string) []dialogOption {
	var out []dialogOption
	for _, l := range strings.Split(text, "\n") {
		if m := optionLine.FindStringSubmatch(l); m != nil {
			out = append(out, dialogOption{num: m[1], label: m[2]})
		}
	}
	return out
}

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
		opts = append(opts, o.num+". "+o.label)
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

// approveArgs are the arguments of the "approve" call.
type approveArgs struct {
	Agent  string `json:"agent"`
	Option string `json:"option"`
	// By is who approves: an agent (OFFICE_AGENT) or "" for the person.
	By string `json:"by,omitempty"`
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
	if !isWaiting(a) || e.inbox == nil {
		return "", fmt.Errorf("engine: approve %q: %w", agent, ErrNoDialog)
	}
	// The dialog forwarded; one not forwarded yet is the one on screen now
	// (it is not recorded here: forwarding it stays statusChanged's).
	d, ok := e.inbox.dialogs.get(agent)
	if !ok {
		d = readDialog(a.Term.Text(), e.inbox.clock.Now())
	}
	num := optionNumber(strings.TrimSpace(option), d.options)
	if num == "" {
		return "", fmt.Errorf("engine: approve %q: no option %q on the dialog", agent, option)
	}
	if by == "" {
		by = inbox.Person
	}
	if err := e.drain.Approve(ctx, drain.Approval{Agent: agent, Keys: num, Dialog: d.fingerprint, By: by}); err != nil {
		return "", err // it names the agent and why
	}
	if err := e.inbox.svc.LogApproval(ctx, agent, num, by); err != nil {
		e.log.Error("logging an approval", "err", err)
	}
	return num, nil
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
			if o.num == option {
				return option
			}
		}
		return ""
	}
	for _, o := range opts {
		if strings.HasPrefix(strings.ToLower(o.label), strings.ToLower(option)) {
			return o.num
		}
	}
	return ""
}

// opApprove is the "approve" socket call.
func (e *Engine) opApprove(ctx context.Context, req Request) (any, error) {
	var args approveArgs
	if err := decodeArgs(req, &args); err != nil {
		return nil, err
	}
	num, err := e.Approve(ctx, args.Agent, args.Option, args.By)
	if err != nil {
		return nil, err
	}
	return map[string]string{"option": num}, nil
}
