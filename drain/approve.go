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
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"office/automation"
)

// Errors of Approve.
var (
	// ErrDialogGone: the dialog the approval answers is no longer open (it
	// closed, or another one replaced it); the error says how many of the
	// approval's keys were typed before (none, unless it closed between
	// two of them).
	ErrDialogGone = errors.New("the dialog is no longer open")
	// ErrApprovalPending: an approval for the agent is already waiting.
	ErrApprovalPending = errors.New("an approval for this agent is already pending")
	// ErrDialogUnchanged: the answer was typed but the screen still shows
	// the same dialog afterwards: it was not taken.
	ErrDialogUnchanged = errors.New("the answer was typed but the dialog is still on screen")
)

// dialogLines is how many non-blank lines at the bottom of the screen a
// dialog's fingerprint covers (the dialog, and the prompt it asks about).
const dialogLines = 16

// DialogFingerprint identifies the dialog on a screen: the last dialogLines
// non-blank lines with white space and selection markers removed (moving the
// highlight between options is the same dialog), and what animates removed
// too (a spinner glyph, a blinking bullet such as Claude Code 2.1.332's `●
// Running CMD` above its permission dialog, a timer), hashed. Where those
// lines hold a horizontal rule with lines below it (Claude Code draws one
// above every dialog), only the lines below the topmost such rule count:
// what is above it is not the dialog, and it may move (Claude Code
// 2.1.332's welcome mascot jumps for about a second after the start, right
// above its first-run offers). Take it when the dialog is forwarded and
// pass it in Approval.Dialog.
func DialogFingerprint(screen string) string {
	lines := strings.Split(screen, "\n")
	var kept []string
	cut := 0 // how many kept lines are below the topmost rule seen so far
	for i := len(lines) - 1; i >= 0 && len(kept) < dialogLines; i-- {
		if isRule(lines[i]) {
			cut = len(kept)
			continue
		}
		l := timer.ReplaceAllString(lines[i], "")
		l = strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || strings.ContainsRune("❯›▶>", r) || animated(r) {
				return -1
			}
			return r
		}, l)
		if l != "" {
			kept = append(kept, l)
		}
	}
	if cut > 0 {
		kept = kept[:cut]
	}
	h := fnv.New64a()
	for _, l := range kept {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// minRule is how many rule glyphs make a line a horizontal rule: a
// dialog's border spans the pane; a short run may be text.
const minRule = 20

// isRule reports whether line is a horizontal rule: nothing but at least
// minRule solid box-drawing lines, with white space around them. A box's top
// (with corners) is no rule: the box is the dialog. Nor is a dashed line
// (`╌╌╌`): Claude Code draws those inside a permission dialog, around the
// command it asks about, and cutting there could leave a long command out.
func isRule(line string) bool {
	n := 0
	for _, r := range strings.TrimSpace(line) {
		if !strings.ContainsRune("─━═", r) {
			return false
		}
		n++
	}
	return n >= minRule
}

// timer matches the counters a busy CLI draws (`4s`, `1m 3s`, `0:07`,
// `12.3s`, `↓ 1.2k tokens`): they change every second.
var timer = regexp.MustCompile(`\d+(?:\.\d+)?[smh]\b|\d+:\d\d(?::\d\d)?|[\d.]+k? tokens`)

// animated reports whether r is a glyph CLIs animate: spinner frames
// (braille, stars, half circles) and the bullets that blink.
func animated(r rune) bool {
	return (r >= 0x2800 && r <= 0x28FF) || strings.ContainsRune("●○◉◐◓◑◒✻✶✳✢✽✺✹·•*∗", r)
}

// Approval is one answer to an agent's dialog.
type Approval struct {
	// Agent is the agent whose dialog it answers.
	Agent string
	// Keys are typed as they are (the option's number); they must be
	// printable and at most a few runes. Empty with Target.
	Keys string
	// Target is an unnumbered option's place among the dialog's options
	// (1, 2, ...) and Label its label, as forwarded. The drain reads the
	// pointer on the live screen right before it types (the person may have
	// moved it since), moves it there with the arrow keys, and Enter picks
	// it; it types nothing when the screen does not show Label at Target.
	Target int
	Label  string
	// Dialog is DialogFingerprint of the screen when the dialog was
	// forwarded.
	Dialog string
	// By is who approved (an agent, or the person), for the log.
	By string
}

// maxApprovalKeys bounds Approval.Keys; maxApprovalMoves Approval.Target
// (the pointer moves at most that many rows); maxApprovalLabel the runes of
// Approval.Label.
const (
	maxApprovalKeys  = 8
	maxApprovalMoves = 20
	maxApprovalLabel = 200
)

// The arrow keys that move a dialog's pointer, the gap between two keys of
// one answer, and how long the screen has to show the dialog gone or
// changed after the answer (approveSettle, looked at every approvePoll).
const (
	keyDown       = "\x1b[B"
	keyUp         = "\x1b[A"
	approveGap    = 80 * time.Millisecond
	approveSettle = 3 * time.Second
	approvePoll   = 100 * time.Millisecond
)

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
	if ap.Target != 0 {
		if ap.Keys != "" || ap.Target < 1 || ap.Target > maxApprovalMoves+1 ||
			strings.TrimSpace(ap.Label) == "" || len([]rune(ap.Label)) > maxApprovalLabel {
			return fmt.Errorf("drain: approve %q: option %d %q must be 1 to %d with its label (at most %d characters) and no keys",
				ap.Agent, ap.Target, ap.Label, maxApprovalMoves+1, maxApprovalLabel)
		}
	} else if ap.Keys == "" || len([]rune(ap.Keys)) > maxApprovalKeys ||
		strings.IndexFunc(ap.Keys, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
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
		if err := d.dialogOpen(a, p.Approval, 0); err != nil {
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
// approval was forwarded with. typed is how many of its keys were typed
// already, for the error.
func (d *Drainer) dialogOpen(a Agent, ap Approval, typed int) error {
	done := "nothing was typed"
	if typed > 0 {
		done = fmt.Sprintf("%d of its keys were typed before it closed", typed)
	}
	h := statusHold(a, d.cfg.Clock.Now())
	screen := a.Text()
	// A dialog no profile knows by its text is known by its shape (the
	// screen gate holds delivery for it): it may be answered too, but not
	// while the prompt row is found and empty: the shape is then the
	// transcript's (a past prompt `❯ 1. fix foo`, a reply `● 1. Fixed
	// foo`), and the keys would land on the prompt.
	_, shape := automation.DialogShape(screen)
	if row, ok := a.Prompt(); h == HoldNone && ok && automation.ReadPromptRow(row, ok) == automation.PromptEmpty {
		shape = false
	}
	if h != HoldWaiting && (h != HoldNone || !shape) {
		return fmt.Errorf("drain: approve %q: %w (the agent is %s); %s", ap.Agent, ErrDialogGone, holdWord(h), done)
	}
	if DialogFingerprint(screen) != ap.Dialog {
		return fmt.Errorf("drain: approve %q: %w (the screen shows another dialog); %s", ap.Agent, ErrDialogGone, done)
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
	if err := d.dialogOpen(a, ap, 0); err != nil {
		log.Info("approval not typed: the dialog closed just before the write", "err", err)
		return err
	}
	keys := []string{ap.Keys}
	if ap.Target != 0 {
		moves, err := pointerMoves(a.Text(), ap)
		if err != nil {
			log.Info("approval not typed", "err", err)
			return err
		}
		keys = keys[:0]
		for i := 0; i < abs(moves); i++ {
			keys = append(keys, map[bool]string{true: keyDown, false: keyUp}[moves > 0])
		}
		keys = append(keys, "\r")
	}
	for i, k := range keys {
		if i > 0 {
			if err := d.sleep(ctx, approveGap); err != nil {
				return fmt.Errorf("drain: approve %q: %w", ap.Agent, err)
			}
			// The dialog may have closed since the last key: an arrow and
			// an Enter on the prompt recall and submit the previous prompt.
			if err := d.dialogOpen(a, ap, i); err != nil {
				log.Warn("approval stopped: the dialog closed between its keys", "typed", i, "of", len(keys), "err", err)
				return err
			}
		}
		if err := d.write(ctx, a, k); err != nil {
			log.Warn("approval write failed", "err", err)
			return fmt.Errorf("drain: approve %q: %w", ap.Agent, err)
		}
	}
	// "Answered" only when the screen shows it: the dialog gone, or
	// another screen in its place.
	deadline := d.cfg.Clock.Now().Add(approveSettle)
	for {
		screen := a.Text()
		if DialogFingerprint(screen) != ap.Dialog || statusHold(a, d.cfg.Clock.Now()) == HoldExited {
			log.Info("dialog answered")
			return nil
		}
		if !d.cfg.Clock.Now().Before(deadline) {
			head := strings.Join(automation.ScreenHead(screen, 6, 100), "\n")
			log.Warn("approval typed, but the dialog is still on screen", "screen", head)
			return fmt.Errorf("drain: approve %q: %w after %v; the screen shows:\n%s", ap.Agent, ErrDialogUnchanged, approveSettle, head)
		}
		if err := d.sleep(ctx, approvePoll); err != nil {
			return fmt.Errorf("drain: approve %q: %w", ap.Agent, err)
		}
	}
}

// pointerMoves reads the dialog's options on screen, the live one, and
// returns how many rows the pointer moves from the selected option to
// ap.Target (negative: up). The screen must show ap.Label at ap.Target and
// a selected option; otherwise the dialog is not the one forwarded.
func pointerMoves(screen string, ap Approval) (int, error) {
	opts := automation.DialogOptions(screen)
	from := 0
	var at string
	for _, o := range opts {
		if o.Selected {
			from = o.Pos
		}
		if o.Pos == ap.Target {
			at = o.Label
		}
	}
	if !strings.EqualFold(strings.TrimSpace(at), strings.TrimSpace(ap.Label)) {
		return 0, fmt.Errorf("drain: approve %q: %w (option %d is %q on screen, not %q); nothing was typed", ap.Agent, ErrDialogGone, ap.Target, at, ap.Label)
	}
	if from == 0 {
		return 0, fmt.Errorf("drain: approve %q: %w (no option is under the pointer); nothing was typed", ap.Agent, ErrDialogGone)
	}
	return ap.Target - from, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
