package inbox

// turns.go is what the inbox does at an agent's turn end (docs/design.md §4):
// working mail settles (inform done, the reply gate for requests), the
// parent hears about a turn that began with an inbox delivery (or the first
// turn of an agent with a task), and a task agent's journal is checked.
//
// Which turn began with an inbox delivery is not guessed: the agent's turn
// machine (automation.Turn) names the queue messages whose Enter is among
// the turn's causes, and the TurnLedger joins them with what happened to
// those deliveries in the store (DeliveryEvent). A turn that ends before its
// delivery was acknowledged waits for the acknowledgement (the mail must be
// working before it can settle) or for the delivery's release.

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"office/automation"
)

// Bounds of a TurnLedger, per agent.
const (
	// ledgerDeliveries is how many inbox deliveries an agent's ledger
	// remembers (the oldest ids are forgotten first).
	ledgerDeliveries = 64
	// ledgerWaiting is how many ended turns may wait for their deliveries;
	// beyond it the oldest is settled with what is known.
	ledgerWaiting = 16
)

// fate is what became of one inbox delivery, as far as a turn cares.
type fate int

const (
	fateAttempted fate = iota + 1 // items leased; not yet acknowledged or released
	fateAcked                     // typed and submitted (or typed and left on the prompt)
	fateGone                      // released, held, or abandoned: not delivered by this turn
)

// settledTurn is a turn that settled without one of its deliveries.
type settledTurn struct {
	turn  automation.TurnEvent
	first bool
}

// EndedTurn is one agent's ended turn, ready to be settled.
type EndedTurn struct {
	Agent string
	Turn  automation.TurnEvent
	// FromInbox: one of the turn's Enters submitted an inbox delivery that
	// was acknowledged.
	FromInbox bool
	// First: the agent's first turn since the ledger began.
	First bool
	// Again: the turn settled already, without one of its deliveries,
	// which was held then (typed, not confirmed) and is acknowledged now
	// (its record came late): its mail, working now, settles as at that
	// turn's end, and the parent hears of a turn that began with an inbox
	// delivery; the journal was checked when it settled first.
	Again bool
}

// TurnLedger joins agents' turn events with the fate of their inbox
// deliveries and says when each ended turn may be settled. It is pure (no
// I/O, no clock); its owner serializes the calls. The zero value is ready.
type TurnLedger struct {
	agents map[string]*ledgerAgent
}

type ledgerAgent struct {
	deliveries map[int64]fate
	// settledWithout is, by delivery, an ended turn it was a cause of that
	// settled while the delivery was held (fateGone), and whether that
	// turn was the agent's first: should the delivery be acknowledged
	// after all, that turn settles again (EndedTurn.Again).
	settledWithout map[int64]settledTurn
	waiting        []automation.TurnEvent // ended turns waiting for a delivery's fate, oldest first
	turnsDone      int
}

func (l *TurnLedger) agent(name string) *ledgerAgent {
	if l.agents == nil {
		l.agents = map[string]*ledgerAgent{}
	}
	a, ok := l.agents[name]
	if !ok {
		a = &ledgerAgent{deliveries: map[int64]fate{}, settledWithout: map[int64]settledTurn{}}
		l.agents[name] = a
	}
	return a
}

// Delivery records a committed change to an inbox delivery and returns the
// ended turns it lets settle, in order.
func (l *TurnLedger) Delivery(ev DeliveryEvent) []EndedTurn {
	a := l.agent(ev.Agent)
	switch ev.Kind {
	case DeliveryAttempted:
		a.deliveries[ev.MsgID] = fateAttempted
		delete(a.settledWithout, ev.MsgID) // typed again: a turn of its own
		if len(a.deliveries) > ledgerDeliveries {
			delete(a.deliveries, slices.Min(mapsKeys(a.deliveries)))
		}
	case DeliveryAcked:
		if st, ok := a.settledWithout[ev.MsgID]; ok {
			// Held, then its record came late: the turn it began has
			// settled without it, and its mail, working now, is settled
			// by that turn again.
			delete(a.settledWithout, ev.MsgID)
			delete(a.deliveries, ev.MsgID)
			out := []EndedTurn{{Agent: ev.Agent, Turn: st.turn, FromInbox: true, First: st.first, Again: true}}
			return append(out, l.settleWaiting(ev.Agent, a, false)...)
		}
		a.deliveries[ev.MsgID] = fateAcked
	case DeliveryUnattempted:
		// Nothing was typed: no Enter submitted it, so no turn waits for
		// it. It is attempted again later.
		delete(a.deliveries, ev.MsgID)
	case DeliveryReleased, DeliveryHeld:
		if _, ok := a.deliveries[ev.MsgID]; ok {
			a.deliveries[ev.MsgID] = fateGone
		}
	}
	return l.settleWaiting(ev.Agent, a, false)
}

// TurnEnded records the end of one of agent's turns and returns the ended
// turns that may settle now, in order (none when this one waits for a
// delivery's acknowledgement).
func (l *TurnLedger) TurnEnded(agent string, ev automation.TurnEvent) []EndedTurn {
	a := l.agent(agent)
	a.waiting = append(a.waiting, ev)
	return l.settleWaiting(agent, a, len(a.waiting) > ledgerWaiting)
}

// Exited forgets the agent's waiting turns (its exit settles its mail) and
// its deliveries; its next turn is not its first.
func (l *TurnLedger) Exited(agent string) {
	a := l.agent(agent)
	a.waiting = nil
	clear(a.deliveries)
	clear(a.settledWithout)
}

// settleWaiting settles the agent's waiting turns from the oldest while
// none of their deliveries is still unsettled (force: the oldest settles
// anyway, with what is known).
func (l *TurnLedger) settleWaiting(name string, a *ledgerAgent, force bool) []EndedTurn {
	var out []EndedTurn
	for len(a.waiting) > 0 {
		ev := a.waiting[0]
		fromInbox, pending := false, false
		for _, id := range ev.Delivered() {
			switch a.deliveries[id] {
			case fateAttempted:
				pending = true
			case fateAcked:
				fromInbox = true
			}
		}
		if pending && !force {
			break
		}
		force = false
		for _, id := range ev.Delivered() {
			if f, ok := a.deliveries[id]; ok && f == fateGone {
				a.settledWithout[id] = settledTurn{turn: ev, first: a.turnsDone == 0}
				if len(a.settledWithout) > ledgerDeliveries {
					delete(a.settledWithout, slices.Min(slices.Collect(maps.Keys(a.settledWithout))))
				}
			}
			delete(a.deliveries, id)
		}
		a.waiting = a.waiting[1:]
		out = append(out, EndedTurn{Agent: name, Turn: ev, FromInbox: fromInbox, First: a.turnsDone == 0})
		a.turnsDone++
	}
	return out
}

func mapsKeys(m map[int64]fate) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TurnEnd is what SettleTurn needs to know about an agent and its ended
// turn.
type TurnEnd struct {
	EndedTurn
	// Parent is the agent's parent ("" for none: no notice).
	Parent string
	// Desc names the agent in a notice (its role, else its name).
	Desc string
	// Task is the agent's task ("" for none); ReadOnly skips its journal.
	Task     string
	ReadOnly bool
	// Journal is the task's journal path.
	Journal string
	// Result is what a notice quotes as the turn's result (the last reply
	// lines, bounded: LastLines with ResultLines and ResultBytes).
	Result string
	// Failed is the CLI's error text when the turn ended on an API error
	// (rate limited, overloaded, a server error, a usage limit); "" when it
	// did not (turnfail.go).
	Failed string
}

// TurnSettled is what SettleTurn did.
type TurnSettled struct {
	// Mail is the working mail that settled.
	Mail []Outcome
	// Notified: the parent was sent a notice.
	Notified bool
	// Journal is the journal check's verdict (zero when not checked).
	Journal JournalVerdict
}

// Changed reports whether the settling queued something to deliver.
func (r TurnSettled) Changed() bool {
	return len(r.Mail) > 0 || r.Notified || r.Journal.Continued || r.Journal.GaveUp
}

// Lines a turn notice quotes from the screen, and their bound in bytes.
const (
	ResultLines = 8
	ResultBytes = 1500
)

// SettleTurn does what a turn end drives, at now: the agent's working mail
// settles; its parent is told about a turn that began with an inbox
// delivery, or about the first turn of an agent with a task (with the
// agent's own report if it made one since the turn started); a task agent's
// journal is checked. Each step runs even if an earlier one failed; the
// errors are joined.
func (s *Service) SettleTurn(ctx context.Context, e TurnEnd, now time.Time) (TurnSettled, error) {
	var r TurnSettled
	var errs []error
	outs, err := s.turnEnded(ctx, e.Agent, e.Failed)
	if err != nil {
		errs = append(errs, err)
	}
	r.Mail = outs
	// A turn settled again (Again) told the parent the first time if it
	// was a task agent's first.
	if e.Parent != "" && (e.FromInbox || (e.Task != "" && e.First)) && !(e.Again && e.Task != "" && e.First) {
		n := Notice{Kind: NoticeCompleted, Desc: e.Desc, Agent: e.Agent, Result: e.Result}
		if e.Failed != "" {
			n.Kind, n.Error = NoticeFailed, failedTurnError(e.Failed)
		}
		if rep, ok, err := s.TakeReport(ctx, e.Agent, e.Turn.Start); err != nil {
			errs = append(errs, err)
		} else if ok {
			n.Status, n.Summary = rep.Status, rep.Summary
		}
		if _, err := s.NotifyParent(ctx, e.Parent, n, ""); err != nil {
			errs = append(errs, err)
		} else {
			r.Notified = true
		}
	}
	if e.Task != "" && !e.ReadOnly && !e.Again {
		v, err := s.CheckJournal(ctx, JournalCheck{Agent: e.Agent, Task: e.Task, Path: e.Journal, Parent: e.Parent, Desc: e.Desc}, now)
		if err != nil {
			errs = append(errs, err)
		}
		r.Journal = v
	}
	// Each error names its step and the agent already.
	return r, errors.Join(errs...)
}
