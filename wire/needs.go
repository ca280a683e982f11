package wire

// needs.go is the needs-you list on the wire (docs/needs.md): what waits on
// the person, in the state message (State.Needs), the "needs" call and the
// "needs" events.

import (
	"sort"
	"time"
)

// Need is one agent or item waiting on the person.
type Need struct {
	// Agent is the agent it is about (for a request mail, its sender).
	Agent string `json:"agent"`
	// Host is the agent's host in a clustered office ("" otherwise).
	Host string `json:"host,omitempty"`
	// Reason is one of the Need* words.
	Reason string `json:"reason"`
	// Since is when it began waiting on the person.
	Since time.Time `json:"since"`
	// Excerpt is a short text of it, one line, at most MaxNeedExcerpt
	// characters.
	Excerpt string `json:"excerpt,omitempty"`
	// Options are a dialog's numbered options ("1. Yes"), for `office
	// approve AGENT NUMBER`.
	Options []string `json:"options,omitempty"`
	// Ref names the item: a queue message's id, a mail's id, a refused
	// item's id ("" for an agent's own state).
	Ref string `json:"ref,omitempty"`
}

// Key identifies n across two lists (for the added and cleared events).
func (n Need) Key() string { return n.Reason + "\x00" + n.Agent + "\x00" + n.Ref }

// The reasons of a Need.
const (
	NeedDialog     = "dialog"         // a permission or trust dialog on screen
	NeedUsageLimit = "usage limit"    // the usage-limit menu, or a hold for it
	NeedUnknown    = "unknown screen" // a screen office does not know holds delivery (a new dialog, say)
	NeedHeld       = "held message"   // a message held for the person's decision
	NeedRequest    = "request"        // a request mail to the person, not answered
	NeedFailed     = "failed"         // exited non-zero (or never started), not restarting
	NeedExited     = "exited"         // exited with 0, not restarting
	NeedStalled    = "stalled"        // busy with no activity for its stall setting
	NeedTurnDone   = "turn done"      // an agent with no parent finished its turn
	NeedRefused    = "refused"        // another host refused an item of the person's
)

// MaxNeedExcerpt bounds Need.Excerpt, in characters.
const MaxNeedExcerpt = 140

// EventNeeds is the event type of a change of the list: Kind NeedAdded or
// NeedCleared, Detail the reason, Text the excerpt, MsgID a held message's
// id.
const (
	EventNeeds  = "needs"
	NeedAdded   = "added"
	NeedCleared = "cleared"
)

// EventNotify is the event type of an agent's own notification (OSC 9, 777,
// 99 or BEL in its output): Kind osc9, osc777, osc99 or bell, Detail its
// title, Text its body.
const EventNotify = "notify"

// EventAlert is the event type of a notification for the person ([notify],
// docs/needs.md): every client with events gets it, and a client with a
// terminal shows it there (unless that terminal has focus on the agent's
// pane). Agent is whom it is about, Kind the transition (a needs reason, or
// "notification" for the agent's own), Detail its title, Text its body.
const EventAlert = "alert"

// TFocus is the client's message saying whether its terminal has focus
// (from the terminal's focus reports), so the server's notifications stay
// quiet for the agent a person is looking at (docs/needs.md).
const TFocus = "focus"

// Focus is the TFocus message: {"t":"focus","focused":true}.
type Focus struct {
	T       string `json:"t"`
	Focused bool   `json:"focused"`
}

// SortNeeds sorts out oldest first (ties by agent, reason, then ref): the
// needs-you list's order, in the state and in the "needs" call. It returns out.
func SortNeeds(out []Need) []Need {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Since.Equal(b.Since) {
			return a.Since.Before(b.Since)
		}
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if a.Reason != b.Reason {
			return a.Reason < b.Reason
		}
		return a.Ref < b.Ref
	})
	return out
}
