package engine

// needs_gather.go reads what ListNeeds (needs.go) is made of from the
// engine's own state: its terminals, the dialogs it forwarded, the queue,
// the person's mail and the floor's refusals. needsBook remembers the few
// times no other part keeps (when a turn ended, when a process exited).

import (
	"context"
	"strconv"
	"sync"
	"time"

	"office/automation"
	"office/cluster"
	"office/inbox"
	"office/pool"
	"office/wire"
)

// needsBook holds, per terminal, when its last turn ended (while no turn
// runs) and when its process exited. Safe for concurrent use.
type needsBook struct {
	mu       sync.Mutex
	turnDone map[*pool.Terminal]time.Time
	exited   map[*pool.Terminal]time.Time
	// first is when an item with no time of its own was first listed (a
	// process that never started), by key.
	first map[string]time.Time
	// text is the last turn text read of each terminal, by its screen's
	// generation.
	text map[*pool.Terminal]cachedText
}

// cachedText is a text read of a screen at generation gen.
type cachedText struct {
	gen  uint64
	text string
}

// event follows one terminal event of t at now.
func (b *needsBook) event(t *pool.Terminal, ev pool.Event, now time.Time) {
	if t == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.turnDone == nil {
		b.turnDone, b.exited = map[*pool.Terminal]time.Time{}, map[*pool.Terminal]time.Time{}
	}
	switch ev.Kind {
	case pool.EventTurnStart:
		delete(b.turnDone, t)
	case pool.EventTurnEnd:
		at := ev.Turn.At
		if at.IsZero() {
			at = now
		}
		b.turnDone[t] = at
	case pool.EventExit:
		if _, ok := b.exited[t]; !ok {
			b.exited[t] = now
		}
	}
}

// turnText returns read() for t, read again only when t's screen changed
// (an idle agent's screen is read once, not on every pass).
func (b *needsBook) turnText(t *pool.Terminal, read func() string) string {
	gen := t.Generation()
	b.mu.Lock()
	c, ok := b.text[t]
	b.mu.Unlock()
	if ok && c.gen == gen {
		return c.text
	}
	text := read()
	b.mu.Lock()
	if b.text == nil {
		b.text = map[*pool.Terminal]cachedText{}
	}
	b.text[t] = cachedText{gen: gen, text: text}
	b.mu.Unlock()
	return text
}

// times returns t's turn end and exit times (zero: none).
func (b *needsBook) times(t *pool.Terminal) (turnDone, exited time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.turnDone[t], b.exited[t]
}

// since returns when key was first asked for (now, the first time).
func (b *needsBook) since(key string, now time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.first == nil {
		b.first = map[string]time.Time{}
	}
	t, ok := b.first[key]
	if !ok {
		if len(b.first) >= maxFirstSeen {
			clear(b.first) // bounded: at worst an old item's time restarts
		}
		b.first[key] = now
		t = now
	}
	return t
}

// prune forgets the terminals not in live (replaced by a restart, removed).
func (b *needsBook) prune(live map[*pool.Terminal]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for t := range b.turnDone {
		if !live[t] {
			delete(b.turnDone, t)
		}
	}
	for t := range b.exited {
		if !live[t] {
			delete(b.exited, t)
		}
	}
	for t := range b.text {
		if !live[t] {
			delete(b.text, t)
		}
	}
}

// maxFirstSeen bounds needsBook.first.
const maxFirstSeen = 1024

// needsEvent records what the needs-you list remembers of ev.
func (e *Engine) needsEvent(ev pool.Event) {
	if ev.Kind != pool.EventTurnStart && ev.Kind != pool.EventTurnEnd && ev.Kind != pool.EventExit {
		return
	}
	if a, ok := e.Agent(ev.Agent); ok {
		e.needs.event(a.Term, ev, e.clock().Now())
	}
}

// turnTextLines is how many lines of a finished turn's reply the excerpt
// starts from (it is cut to wire.MaxNeedExcerpt).
const turnTextLines = 3

// Needs returns the needs-you list now (ListNeeds of the engine's state).
func (e *Engine) Needs(ctx context.Context) ([]wire.Need, error) {
	in, err := e.needsInput(ctx)
	if err != nil {
		return nil, err
	}
	return ListNeeds(in), nil
}

// needsInput gathers ListNeeds' input.
func (e *Engine) needsInput(ctx context.Context) (NeedsInput, error) {
	now := e.clock().Now()
	in := NeedsInput{Host: e.localPlacement().Host}
	agents := e.Agents()
	// Sized once: runNotify reads this every second, and with 500 agents a
	// growing slice was most of an idle office's garbage.
	in.Agents = make([]NeedAgent, 0, len(agents))
	live := make(map[*pool.Terminal]bool, len(agents))
	holds := e.drain.Holds()
	var stalls map[string]time.Time
	if e.inbox != nil {
		var err error
		if stalls, err = e.inbox.svc.Stalls(ctx); err != nil {
			return in, err
		}
	}
	for _, a := range agents {
		name := a.Config.Name
		na := NeedAgent{Name: name, Parent: a.Config.Parent, Hold: string(holds[name]), Restart: a.Config.Restart}
		if a.Term == nil {
			na.Status = automation.StatusExited.String()
			na.SpawnError = "the process did not start"
			if a.SpawnErr != nil {
				na.SpawnError = a.SpawnErr.Error()
			}
			na.ExitedAt = e.needs.since("spawn\x00"+name, now)
			in.Agents = append(in.Agents, na)
			continue
		}
		t := a.Term
		live[t] = true
		st := t.Status()
		na.Status = st.String()
		turnDone, exitedAt := e.needs.times(t)
		if exited, code := t.Exited(); exited {
			na.ExitCode = &code
			na.ExitedAt = exitedAt
			if na.ExitedAt.IsZero() {
				na.ExitedAt = e.needs.since("exit\x00"+name+"\x00"+strconv.Itoa(t.Pid()), now)
			}
		}
		switch {
		case st == automation.StatusWaiting || needHolds[na.Hold] != "":
			na.Dialog = e.openDialog(name, t, now)
		case st == automation.StatusBusy:
			na.StalledSince = stalls[name]
		}
		na.TurnDone = turnDone
		if (!turnDone.IsZero() && st == automation.StatusIdle && na.Parent == "") || na.ExitCode != nil {
			na.TurnText = e.needs.turnText(t, func() string {
				return inbox.LastLines(ReplyRegion(t.Text(), a.Profile), turnTextLines, 4*wire.MaxNeedExcerpt)
			})
		}
		in.Agents = append(in.Agents, na)
	}
	e.needs.prune(live)
	held, err := e.store.HeldForPerson(ctx)
	if err != nil {
		return in, err
	}
	for _, m := range held {
		since := m.LastAttempt
		if since.IsZero() {
			since = m.Created
		}
		in.Held = append(in.Held, NeedHeld{ID: m.ID, Agent: m.Agent, Text: m.Text, Since: since})
	}
	if e.inbox == nil {
		return in, nil
	}
	reqs, err := e.inbox.svc.OpenRequests(ctx, inbox.Person)
	if err != nil {
		return in, err
	}
	for _, r := range reqs {
		in.Requests = append(in.Requests, NeedRequest{ID: r.ID, Sender: r.Sender, Title: r.Title, Body: r.Body, Since: r.Created})
	}
	notices, err := e.inbox.svc.RefusalNotices(ctx)
	if err != nil || len(notices) == 0 {
		return in, err
	}
	refused, err := cluster.Refused(ctx, e.store)
	if err != nil {
		return in, err
	}
	for _, r := range refused {
		if _, unread := notices[r.ID]; unread {
			in.Refused = append(in.Refused, NeedRefused{ID: r.ID, Agent: r.Receiver, Host: r.Host, Reason: r.Kind + " refused: " + r.Reason, Since: r.At})
		}
	}
	return in, nil
}

// openDialog is the dialog on t's screen: the one forwarded (its time and
// options), else the one read now, timed from when it was first listed.
func (e *Engine) openDialog(name string, t *pool.Terminal, now time.Time) *NeedDialog {
	text := t.Text()
	var d openDialog
	ok := false
	if e.inbox != nil {
		d, ok = e.inbox.dialogs.get(name)
	}
	if !ok {
		d = readDialog(text, now)
		d.seen = e.needs.since("dialog\x00"+name+"\x00"+d.fingerprint, now)
	}
	nd := &NeedDialog{Since: d.seen, Screen: text}
	for _, o := range d.options {
		nd.Options = append(nd.Options, o.Num+". "+o.Label)
	}
	return nd
}
