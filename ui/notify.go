package ui

// notify.go turns the office's changes into the program's messages, with
// no schedule of its own: the focused agent's screen is drawn as soon as it
// changes after a pause or a key typed into it, and at most 60 times a second
// while it streams (a change that arrives while one is pending joins it),
// other panes at most 30 times a second, and everything else at once.

import (
	"sync"
	"time"
)

// bgInterval caps redraws caused by panes other than the focused one.
const bgInterval = time.Second / 30

// focusInterval caps redraws caused by the focused pane while it floods:
// a change that comes this soon after the last one drawn waits for the
// rest of the interval (and takes what arrives meanwhile), so a stream is
// drawn at most 60 times a second, the rate a display shows, instead of
// once per screen update the server sends (each a full diff and render).
// A change after a pause (a key's echo) is drawn at once.
const focusInterval = time.Second / 60

// changedMsg asks the model to pick up what changed: focus (the focused
// screen), bg (other screens), state (statuses, roster, floor) and the
// notices that arrived.
type changedMsg struct {
	focus, bg, state bool
	notices          []Notice
}

// notifier coalesces changes into at most one pending changedMsg.
type notifier struct {
	send  func(changedMsg) // delivers one message; may block, so never called under mu
	now   func() time.Time
	after func(time.Duration, func())

	mu       sync.Mutex
	focused  string
	awaiting map[string]bool // newly drawn agents whose screens have not come yet
	pending  changedMsg
	queued   bool // a message is on its way (send runs)
	bgArmed  bool // a timer will add the background screens
	lastBg   time.Time
	bgWanted bool

	focusArmed  bool // a timer will add the focused screen
	lastFocus   time.Time
	focusWanted bool
	// keyed: the person typed into the focused agent since its screen was
	// last drawn; its next change (the key's echo) is drawn at once.
	keyed bool
}

func newNotifier(send func(changedMsg)) *notifier {
	return &notifier{send: send, now: time.Now, after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
}

// setFocus names the focused agent.
func (n *notifier) setFocus(agent string) {
	n.mu.Lock()
	n.focused = agent
	n.lastFocus = time.Time{} // a pane newly focused is drawn at once
	n.mu.Unlock()
}

// typed says the person typed into the focused agent: the next change of
// its screen is their echo, drawn as soon as it comes even within
// focusInterval of the last draw (a second key right after the first's
// echo would otherwise wait for the pace, up to 1/60 s).
func (n *notifier) typed() {
	n.mu.Lock()
	n.keyed = true
	n.mu.Unlock()
}

// await names the agents newly drawn (a page switched to, a pane zoomed):
// the first screen of each is drawn as soon as it arrives, like the focused
// agent's, not at the background panes' pace. It replaces the last set.
func (n *notifier) await(agents []string) {
	n.mu.Lock()
	n.awaiting = make(map[string]bool, len(agents))
	for _, a := range agents {
		n.awaiting[a] = true
	}
	n.mu.Unlock()
}

// change takes one change from the office. It never blocks.
func (n *notifier) change(c Change) {
	n.mu.Lock()
	switch {
	case c.Kind == ChangeScreen && c.Agent == n.focused:
		if n.pending.focus {
			break // joins the change on its way
		}
		now := n.now()
		if wait := focusInterval - now.Sub(n.lastFocus); wait > 0 && !n.lastFocus.IsZero() && !n.keyed {
			n.focusWanted = true
			if !n.focusArmed {
				n.focusArmed = true
				n.after(wait, n.focusDue)
			}
			n.mu.Unlock()
			return
		}
		n.pending.focus = true
		n.lastFocus = now
		n.keyed = false
	case c.Kind == ChangeScreen && n.awaiting[c.Agent]:
		delete(n.awaiting, c.Agent)
		n.pending.bg = true
		n.lastBg = n.now()
	case c.Kind == ChangeScreen:
		n.bgWanted = true
		if wait := bgInterval - n.now().Sub(n.lastBg); wait > 0 {
			if !n.bgArmed {
				n.bgArmed = true
				n.after(wait, n.bgDue)
			}
			n.mu.Unlock()
			return
		}
		n.pending.bg = true
		n.bgWanted = false
		n.lastBg = n.now()
	case c.Kind == ChangeNotice:
		n.pending.notices = append(n.pending.notices, c.Notice)
		n.pending.state = true
	default:
		n.pending.state = true
	}
	n.flushLocked()
}

// bgDue is the background timer.
func (n *notifier) bgDue() {
	n.mu.Lock()
	n.bgArmed = false
	if n.bgWanted {
		n.bgWanted = false
		n.pending.bg = true
		n.lastBg = n.now()
	}
	n.flushLocked()
}

// focusDue is the focused pane's timer.
func (n *notifier) focusDue() {
	n.mu.Lock()
	n.focusArmed = false
	if n.focusWanted {
		n.focusWanted = false
		n.pending.focus = true
		n.lastFocus = n.now()
		n.keyed = false
	}
	n.flushLocked()
}

// flushLocked hands the pending message to a sender unless one is on its
// way already (it will take what accumulated). It unlocks mu.
func (n *notifier) flushLocked() {
	if n.queued || (!n.pending.focus && !n.pending.bg && !n.pending.state) {
		n.mu.Unlock()
		return
	}
	n.queued = true
	n.mu.Unlock()
	go n.deliver()
}

// deliver sends pending messages until none is left.
func (n *notifier) deliver() {
	for {
		n.mu.Lock()
		msg := n.pending
		n.pending = changedMsg{}
		if !msg.focus && !msg.bg && !msg.state {
			n.queued = false
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		n.send(msg)
	}
}
