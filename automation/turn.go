package automation

// The turn machine (docs/design.md §4): a turn starts at the Enter that submitted
// a prompt and ends at the next busy -> idle; if busy is never seen within
// the turn grace (Turn.Grace, TurnGrace by default) of the Enter, it ends
// when the agent is idle the grace after it.
//
// The grace bridges the gap between an Enter and the moment a CLI shows it
// is working; it never outvotes a definitive reading (Judgment.Definitive: a
// signal that reads the agent's state after the Enter, such as a shell back
// at its prompt with the shell in the foreground). A definitive idle ends
// the turn at once, busy seen or not, and the person's Enter does not hold
// it busy (the judge's turn step): a shell that ran true is idle when its
// prompt is back, not 10 s later.
//
// Whoever presses the Enter says why (the person, a queue delivery by its
// message id, a CLI hook): nothing is guessed from the bytes written or from
// how recently something was attempted.

import (
	"slices"
	"time"
)

// TurnGrace is how long after a submitting Enter a turn that has not shown
// busy stays open (docs/design.md §4: 10 s); during it, a turn the person started
// reads as busy. It is the default of Turn.Grace (Timing.TurnGrace, the
// office file's turn_grace).
const TurnGrace = 10 * time.Second

// maxTurnCauses bounds the causes one turn remembers (Enters pressed while
// it runs join it); older ones beyond it are forgotten, the first is kept.
const maxTurnCauses = 16

// CauseKind says who pressed the Enter that started or joined a turn.
type CauseKind int

// The kinds of TurnCause.
const (
	// CausePerson: the person's own Enter, typed into the pane.
	CausePerson CauseKind = iota + 1
	// CauseDelivery: the drain's Enter submitting one queue message.
	CauseDelivery
	// CauseHook: the CLI's own hook said a prompt was submitted.
	CauseHook
)

// String names the kind for logs ("person", "delivery", "hook").
func (k CauseKind) String() string {
	switch k {
	case CausePerson:
		return "person"
	case CauseDelivery:
		return "delivery"
	case CauseHook:
		return "hook"
	}
	return "unknown"
}

// TurnCause is why one Enter was pressed.
type TurnCause struct {
	Kind CauseKind
	// MsgID is the queue message the Enter submitted (CauseDelivery only).
	MsgID int64
}

// PersonEnter is the cause of the person's own Enter.
func PersonEnter() TurnCause { return TurnCause{Kind: CausePerson} }

// DeliveryEnter is the cause of the drain's Enter for queue message id.
func DeliveryEnter(id int64) TurnCause { return TurnCause{Kind: CauseDelivery, MsgID: id} }

// HookPrompt is the cause of a turn the CLI's hook reported.
func HookPrompt() TurnCause { return TurnCause{Kind: CauseHook} }

// TurnEventKind says what a TurnEvent reports.
type TurnEventKind int

// The kinds of TurnEvent.
const (
	// TurnNone: nothing happened (the zero TurnEvent).
	TurnNone TurnEventKind = iota
	// TurnStarted: an Enter started a turn.
	TurnStarted
	// TurnJoined: an Enter was pressed while a turn ran; it joins that turn
	// (a CLI queues or steers the new prompt), which now also waits for it.
	TurnJoined
	// TurnEnded: the turn is over.
	TurnEnded
)

// String names the kind for logs.
func (k TurnEventKind) String() string {
	switch k {
	case TurnStarted:
		return "started"
	case TurnJoined:
		return "joined"
	case TurnEnded:
		return "ended"
	}
	return "none"
}

// TurnEvent is one change of a turn.
type TurnEvent struct {
	Kind TurnEventKind
	// Causes are the Enters of the turn so far, the one that started it
	// first, each cause once.
	Causes []TurnCause
	// Start is when the turn started; At is when this event happened.
	Start, At time.Time
}

// Delivered returns the ids of the queue messages whose Enter is among the
// turn's causes, in order.
func (e TurnEvent) Delivered() []int64 {
	var ids []int64
	for _, c := range e.Causes {
		if c.Kind == CauseDelivery {
			ids = append(ids, c.MsgID)
		}
	}
	return ids
}

// Turn is the turn machine of one agent. The zero value has no turn open
// and runs on TurnGrace. It is not safe for concurrent use: its owner
// serializes the calls.
type Turn struct {
	// Grace is the turn grace (Timing.TurnGrace); 0 means TurnGrace. Set it
	// before the first Enter.
	Grace time.Duration

	open     bool
	start    time.Time // the Enter that started the turn
	last     time.Time // the latest Enter of the turn
	busySeen bool      // the agent showed busy (or a dialog) since the latest Enter
	hold     bool      // the person pressed Enter: read busy until busy is seen
	causes   []TurnCause
}

// Enter records a submitting Enter with its cause at now. With no turn open
// it starts one (TurnStarted); during a turn it joins it (TurnJoined): the
// turn then ends only after the agent has shown busy again since this Enter,
// or is idle the grace (Grace) after it.
func (t *Turn) Enter(c TurnCause, now time.Time) TurnEvent {
	kind := TurnJoined
	if !t.open {
		*t = Turn{Grace: t.Grace, open: true, start: now}
		kind = TurnStarted
	}
	t.last, t.busySeen = now, false
	if c.Kind == CausePerson {
		t.hold = true
	}
	if !slices.Contains(t.causes, c) {
		if len(t.causes) == maxTurnCauses {
			t.causes = slices.Delete(t.causes, 1, 2)
		}
		t.causes = append(t.causes, c)
	}
	return t.event(kind, now)
}

// Observe feeds the agent's raw status (before any turn hold) at now, and
// whether the signal that decided it is definitive (Judgment.Definitive),
// and reports the turn's end when this status ends it: idle after busy (or
// a dialog) was seen since the latest Enter, a definitive idle, or idle the
// grace after the Enter.
func (t *Turn) Observe(raw Status, definitive bool, now time.Time) (TurnEvent, bool) {
	if !t.open {
		return TurnEvent{}, false
	}
	switch {
	case raw == StatusBusy || raw == StatusWaiting:
		t.busySeen, t.hold = true, false
	case (raw == StatusIdle || raw == StatusLimited) && (t.busySeen || definitive || now.Sub(t.last) >= t.grace()):
		// A usage limit is idle too: the CLI's turn ended on the banner
		// (docs/limits.md), and the hold may last hours.
		return t.end(now), true
	}
	return TurnEvent{}, false
}

// Exited ends a turn that is open because the agent's process exited.
func (t *Turn) Exited(now time.Time) (TurnEvent, bool) {
	if !t.open {
		return TurnEvent{}, false
	}
	return t.end(now), true
}

// Holding reports whether the agent should read as busy although its own
// signals say idle: the person pressed Enter in the open turn and the agent
// has not shown busy since, within the grace of the latest Enter. A turn the
// drain started does not hold: the drain's submit check must see the agent's
// own signals.
func (t *Turn) Holding(now time.Time) bool {
	since, until, ok := t.HoldWindow()
	return ok && !now.Before(since) && now.Before(until)
}

// HoldWindow returns the span in which the open turn holds (Holding): from
// the latest Enter to the grace after it; ok is false when it does not hold
// at all (no turn, not the person's, or busy seen since).
func (t *Turn) HoldWindow() (since, until time.Time, ok bool) {
	if !t.open || !t.hold || t.busySeen {
		return time.Time{}, time.Time{}, false
	}
	return t.last, t.last.Add(t.grace()), true
}

// GraceEnd returns when the open turn, if it has not shown busy since its
// latest Enter, ends once the agent is idle (the grace after that Enter): a
// deadline its owner must look again at even if nothing else happens. ok
// is false with no such deadline.
func (t *Turn) GraceEnd() (time.Time, bool) {
	if !t.open || t.busySeen {
		return time.Time{}, false
	}
	return t.last.Add(t.grace()), true
}

// Open reports whether a turn is open.
func (t *Turn) Open() bool { return t.open }

func (t *Turn) end(now time.Time) TurnEvent {
	ev := t.event(TurnEnded, now)
	*t = Turn{Grace: t.Grace}
	return ev
}

// grace is the turn grace in force.
func (t *Turn) grace() time.Duration { return orDefault(t.Grace, TurnGrace) }

func (t *Turn) event(k TurnEventKind, now time.Time) TurnEvent {
	return TurnEvent{Kind: k, Causes: slices.Clone(t.causes), Start: t.start, At: now}
}
