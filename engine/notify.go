package engine

// notify.go applies the [notify] rules (docs/needs.md): an item coming onto
// the needs-you list, or an agent's own notification, notifies the person
// when its transition is in the agent's `on` list; at most one per agent per
// notify_gap, the ones in between folded into the next. runNotify follows
// the list on its own goroutine (clients attached or not), so nothing here
// waits in the drain or the server loop; the sinks (notify_sinks.go) are
// queues of their own.

import (
	"context"
	"fmt"
	"slices"
	"time"

	"office/configs"
	"office/pool"
	"office/wire"
)

// Timing and bounds of the notifier.
const (
	// notifyTick is how often runNotify reads the needs-you list when
	// nothing woke it (terminal events and notes wake it at once).
	notifyTick = time.Second
	// maxNotesQueued bounds the agents' notes waiting for runNotify; more
	// are dropped (they are rate-bound by the pool already).
	maxNotesQueued = 64
	// NotifyReasonNote is the transition of an agent's own notification.
	NotifyReasonNote = "notification"
)

// Alert is one notification for the person.
type Alert struct {
	Agent  string    `json:"agent"`
	Host   string    `json:"host,omitempty"`
	Reason string    `json:"reason"`
	Title  string    `json:"title"`
	Text   string    `json:"text"`
	At     time.Time `json:"at"`
	// Folded counts the notifications of the agent folded into this one
	// (within the gap).
	Folded int `json:"folded,omitempty"`
}

// alertRules are the gap and fold rules. Not safe for concurrent use
// (runNotify owns it).
type alertRules struct {
	gap     time.Duration
	on      func(agent string) []string // the transitions that notify for agent
	last    map[string]time.Time        // when agent's last alert left
	pending map[string]*Alert           // folded alerts waiting for their gap
}

// newAlertRules are the rules of the settings s (notify_gap), on saying
// which transitions notify for an agent.
func newAlertRules(s configs.Settings, on func(agent string) []string) alertRules {
	return alertRules{gap: s.NotifyGap, on: on}
}

// offer takes a at now and returns it when it may leave now; one within
// its agent's gap is folded into the agent's pending alert (the newest
// text, the count of the rest).
func (r *alertRules) offer(a Alert, now time.Time) (Alert, bool) {
	if !slices.Contains(r.on(a.Agent), a.Reason) {
		return Alert{}, false
	}
	if r.last == nil {
		r.last, r.pending = map[string]time.Time{}, map[string]*Alert{}
	}
	if p := r.pending[a.Agent]; p != nil {
		a.Folded += p.Folded + 1
		r.pending[a.Agent] = &a
		return Alert{}, false
	}
	if last, ok := r.last[a.Agent]; ok && now.Sub(last) < r.gap {
		r.pending[a.Agent] = &a
		return Alert{}, false
	}
	r.last[a.Agent] = now
	return a, true
}

// due returns the pending alerts whose gap ended by now, oldest agent
// first.
func (r *alertRules) due(now time.Time) []Alert {
	var out []Alert
	for agent, p := range r.pending {
		if now.Sub(r.last[agent]) >= r.gap {
			out = append(out, *p)
			r.last[agent] = now
			delete(r.pending, agent)
		}
	}
	slices.SortFunc(out, func(a, b Alert) int { return a.At.Compare(b.At) })
	return out
}

// needAlert is the alert of a need coming onto the list.
func needAlert(n wire.Need, now time.Time) Alert {
	title := "office: " + n.Agent + " " + n.Reason
	if n.Reason == wire.NeedRequest {
		title = "office: request from " + n.Agent
	}
	text := n.Excerpt
	if len(n.Options) > 0 {
		text += " [" + fmt.Sprint(len(n.Options)) + " options]"
	}
	return Alert{Agent: n.Agent, Host: n.Host, Reason: n.Reason, Title: title, Text: text, At: now}
}

// noteAlert is the alert of an agent's own notification.
func noteAlert(ev pool.Event, host string, now time.Time) Alert {
	title := ev.Note.Title
	if title == "" {
		title = "office: " + ev.Agent
	}
	text := ev.Note.Body
	if text == "" && ev.Note.Kind == pool.NoteBell {
		text = ev.Agent + " rang"
	}
	return Alert{Agent: ev.Agent, Host: host, Reason: NotifyReasonNote, Title: Excerpt(title), Text: Excerpt(text), At: now}
}

// notifyOn is the transitions that notify for agent (its notify key, else
// the [notify] table's; the table's for a name that is no agent here).
func (e *Engine) notifyOn(agent string) []string {
	c := e.opts.Config
	if a, ok := e.Agent(agent); ok {
		return c.NotifyOn(a.Config)
	}
	return c.Notify.On
}

// notifyFeed is what feeds runNotify: the agents' notes, a wake-up when
// the list may have changed, and a signal once it read the list.
type notifyFeed struct {
	notes chan pool.Event // at most maxNotesQueued waiting
	wake  chan struct{}   // capacity 1
	ready chan struct{}   // closed once runNotify read the list the first time
}

// newNotifyFeed is an empty feed.
func newNotifyFeed() notifyFeed {
	return notifyFeed{notes: make(chan pool.Event, maxNotesQueued), wake: make(chan struct{}, 1), ready: make(chan struct{})}
}

// pokeNotify wakes runNotify (something may have changed the list).
func (e *Engine) pokeNotify() {
	select {
	case e.notify.wake <- struct{}{}:
	default:
	}
}

// queueNote hands an agent's note to runNotify without blocking.
func (e *Engine) queueNote(ev pool.Event) {
	if e.notify.notes == nil {
		return
	}
	select {
	case e.notify.notes <- ev:
	default:
	}
}

// runNotify follows the needs-you list and the agents' notes until ctx ends,
// and sends what the rules let through. What is on the list when it starts
// is not announced (the person opening office sees it there).
func (e *Engine) runNotify(ctx context.Context) {
	clock := e.clock()
	rules := newAlertRules(e.settings(), e.notifyOn)
	sinks := e.newSinks(ctx)
	var last map[string]bool
	host := e.localPlacement().Host
	for {
		now := clock.Now()
		if needs, err := e.Needs(ctx); err == nil {
			next := make(map[string]bool, len(needs))
			for _, n := range needs {
				next[n.Key()] = true
				if last != nil && !last[n.Key()] {
					if a, ok := rules.offer(needAlert(n, now), now); ok {
						sinks.send(a)
					}
				}
			}
			if last == nil {
				close(e.notify.ready)
			}
			last = next
		} else if ctx.Err() == nil {
			e.log.Warn("reading the needs-you list for notifications", "err", err)
		}
	drained:
		for {
			select {
			case ev := <-e.notify.notes:
				if a, ok := rules.offer(noteAlert(ev, host, now), now); ok {
					sinks.send(a)
				}
			default:
				break drained
			}
		}
		for _, a := range rules.due(now) {
			sinks.send(a)
		}
		select {
		case <-ctx.Done():
			return
		case ev := <-e.notify.notes:
			if a, ok := rules.offer(noteAlert(ev, host, clock.Now()), clock.Now()); ok {
				sinks.send(a)
			}
		case <-e.notify.wake:
		case <-clock.After(notifyTick):
		}
	}
}
