package drain

// Approvals (docs/design.md §2: `office approve AGENT OPTION` is the only
// automated write into a dialog). An approval is typed by the drain, through
// the agent's one writer, only while the dialog it answers is still open: the
// dialog's fingerprint, taken when it was forwarded, must match the screen at
// the pass and again immediately before the write. Its gate is "that dialog
// is waiting" instead of "idle"; the pause does not hold it (it is the
// person's explicit act) and it takes no cooldown. A dialog that closed or
// changed gets nothing typed: a digit left on the prompt would be submitted
// with the next message.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode"
)

// Errors of Approve.
var (
	// ErrDialogGone: the dialog the approval answers is no longer open (it
	// closed, or another one replaced it); nothing was typed.
	ErrDialogGone = errors.New("the dialog is no longer open; nothing was typed")
	// ErrApprovalPending: an approval for the agent is already waiting.
	ErrApprovalPending = errors.New("an approval for this agent is already pending")
)

// dialogLines is how many non-blank lines at the bottom of the screen a
// dialog's fingerprint covers (the dialog, and the prompt it asks about).
const dialogLines = 16

// DialogFingerprint identifies the dialog on a screen: the last dialogLines
// non-blank lines with white space and selection markers removed (moving the
// highlight between options is the same dialog), hashed. Take it when the
// dialog is forwarded and pass it in Approval.Dialog.
func DialogFingerprint(screen string) string {
	lines := strings.Split(screen, "\n")
	var kept []string
	for i := len(lines) - 1; i >= 0 && len(kept) < dialogLines; i-- {
		l := strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || strings.ContainsRune("❯›▶>", r) {
				return -1
			}
			return r
		}, lines[i])
		if l != "" {
			kept = append(kept, l)
		}
	}
	h := fnv.New64a()
	for _, l := range kept {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// Approval is one answer to an agent's dialog.
type Approval struct {
	// Agent is the agent whose dialog it answers.
	Agent string
	// Keys are typed as they are (the option's number); they must be
	// printable and at most a few runes.
	Keys string
	// Dialog is DialogFingerprint of the screen when the dialog was
	// forwarded.
	Dialog string
	// By is who approved (an agent, or the person), for the log.
	By string
}

// maxApprovalKeys bounds Approval.Keys.
const maxApprovalKeys = 8

// pendingApproval is an approval waiting for a pass.
type pendingApproval struct {
	Approval
	done chan error // capacity 1
}

// Approve queues ap and waits until the drain typed it (nil), refused it
// (ErrDialogGone, or an error naming the agent's state), or ctx ended (an
// approval not yet typed is then withdrawn). Safe for concurrent use; one
// approval per agent waits at a time (ErrApprovalPending).
func (d *Drainer) Approve(ctx context.Context, ap Approval) error {
	if ap.Keys == "" || len([]rune(ap.Keys)) > maxApprovalKeys || strings.IndexFunc(ap.Keys, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("drain: approve %q: option %q must be 1 to %d printable characters", ap.Agent, ap.Keys, maxApprovalKeys)
	}
	p := &pendingApproval{Approval: ap, done: make(chan error, 1)}
	d.mu.Lock()
	st := d.stateLocked(ap.Agent)
	if st.approval != nil {
		d.mu.Unlock()
		return fmt.Errorf("drain: approve %q: %w", ap.Agent, ErrApprovalPending)
	}
	st.approval = p
	d.mu.Unlock()
	d.Wake()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		d.mu.Lock()
		withdrawn := st.approval == p
		if withdrawn {
			st.approval = nil
		}
		d.mu.Unlock()
		if withdrawn {
			return fmt.Errorf("drain: approve %q: %w", ap.Agent, ctx.Err())
		}
		return <-p.done // it is being typed: its own result counts
	}
}

// approvals starts or refuses every pending approval whose agent has no
// write in flight: the gate is checked here, at the pass, and again right
// before the write. Run's goroutine only (the only one that starts writes).
func (d *Drainer) approvals(ctx context.Context) {
	d.mu.Lock()
	var ready []*pendingApproval
	for _, st := range d.agents {
		if st.approval != nil && !st.inFlight {
			ready = append(ready, st.approval)
			st.approval = nil
		}
	}
	d.mu.Unlock()
	for _, p := range ready {
		a, ok := d.cfg.Agents.Agent(p.Agent)
		if !ok {
			p.done <- fmt.Errorf("drain: approve %q: no such agent", p.Agent)
			continue
		}
		if err := d.dialogOpen(a, p.Approval); err != nil {
			d.log.Info("approval not typed", "agent", p.Agent, "option", p.Keys, "by", p.By, "err", err)
			p.done <- err
			continue
		}
		d.mu.Lock()
		d.stateLocked(p.Agent).inFlight = true
		d.mu.Unlock()
		d.inFlight.Add(1)
		go func() {
			defer d.inFlight.Done()
			defer d.finished(p.Agent)
			p.done <- d.typeApproval(ctx, a, p.Approval)
		}()
	}
}

// dialogOpen is an approval's gate: nil when the agent shows the dialog the
// approval was forwarded with.
func (d *Drainer) dialogOpen(a Agent, ap Approval) error {
	if h := statusHold(a, d.cfg.Clock.Now()); h != HoldWaiting {
		return fmt.Errorf("drain: approve %q: %w (the agent is %s)", ap.Agent, ErrDialogGone, holdWord(h))
	}
	if DialogFingerprint(a.Text()) != ap.Dialog {
		return fmt.Errorf("drain: approve %q: %w (the screen shows another dialog)", ap.Agent, ErrDialogGone)
	}
	return nil
}

// holdWord says what a status hold means for a dialog.
func holdWord(h Hold) string {
	if h == HoldNone {
		return "idle"
	}
	return string(h)
}

// typeApproval checks the gate again, immediately before the write, then
// types the keys through the agent's writer. On its agent's submit
// goroutine; no cooldown is stamped.
func (d *Drainer) typeApproval(ctx context.Context, a Agent, ap Approval) error {
	log := d.log.With("agent", ap.Agent, "option", ap.Keys, "by", ap.By)
	// The person may have answered in the pane since the pass: look once
	// more right before the bytes.
	if err := d.dialogOpen(a, ap); err != nil {
		log.Info("approval not typed: the dialog closed just before the write", "err", err)
		return err
	}
	if err := d.write(ctx, a, ap.Keys); err != nil {
		log.Warn("approval write failed", "err", err)
		return fmt.Errorf("drain: approve %q: %w", ap.Agent, err)
	}
	log.Info("dialog answered")
	return nil
}
