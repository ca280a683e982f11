package engine

// wake.go is the one list of what a change of the store wakes. The store
// is the truth, and the parts of a running office that read it (the drain,
// the inbox timers, the state-directory watch, the floor's outbox, the
// clients' state loop) each sleep until told, or until their own tick. Who
// changed the store says which of them look again: storeWakes below, one
// row a cause. A terminal's own events (a screen, an exit) are not store
// changes and wake what they wake in terminalEvent.

// wakeCause is who changed the store.
type wakeCause int

const (
	// wakePoke: another process wrote the store and poked the office (the
	// "poke" call: `office send`, `office mail`, a store-only command).
	wakePoke wakeCause = iota
	// wakeCall: a call was answered; it may have written the store (a
	// message, a pause, mail), so clients hear of it now.
	wakeCall
	// wakeQueue: a call of this office changed a queue (enqueue, release,
	// remove, clear, pause, the floor flag).
	wakeQueue
	// wakeLocal: this process wrote the store itself (Engine.Wake: the UI
	// of an office run in-process).
	wakeLocal
	// wakeFloor: the floor delivered messages or inbox items into the
	// store (the cluster node's Received).
	wakeFloor
)

// wakeTarget is one part that reads the store and looks again when woken.
type wakeTarget int

const (
	// wakeOutbox sends the floor's outbox (cluster.Node.Wake).
	wakeOutbox wakeTarget = iota
	// wakeWatch checks the state directory now (watch.go): a poke after
	// the store was deleted makes the office notice at once.
	wakeWatch
	// wakeInbox schedules the inbox's deliveries soon (inbox.go).
	wakeInbox
	// wakeDrain makes the drain look at the queues.
	wakeDrain
	// wakeClients wakes the clients' state loop (server): depths, holds.
	wakeClients
)

// String names t for the test that pins the list.
func (t wakeTarget) String() string {
	switch t {
	case wakeOutbox:
		return "outbox"
	case wakeWatch:
		return "watch"
	case wakeInbox:
		return "inbox"
	case wakeDrain:
		return "drain"
	case wakeClients:
		return "clients"
	}
	return "unknown"
}

// storeWakes is what cause wakes, in the order they are woken. A poke's
// clients are woken by the call that carried it (wakeCall, after the call).
func storeWakes(cause wakeCause) []wakeTarget {
	switch cause {
	case wakePoke:
		return []wakeTarget{wakeOutbox, wakeWatch, wakeInbox, wakeDrain}
	case wakeCall:
		return []wakeTarget{wakeClients}
	case wakeQueue:
		return []wakeTarget{wakeDrain}
	case wakeLocal:
		return []wakeTarget{wakeDrain, wakeClients}
	case wakeFloor:
		return []wakeTarget{wakeDrain, wakeInbox}
	}
	return nil
}

// wake wakes what a store change by cause wakes (storeWakes). A part this
// office does not run (no floor, no clients yet) is skipped.
func (e *Engine) wake(cause wakeCause) {
	for _, t := range storeWakes(cause) {
		e.wakeOne(t)
	}
}

// wakeOne wakes t; none of them blocks.
func (e *Engine) wakeOne(t wakeTarget) {
	switch t {
	case wakeOutbox:
		e.floor.wake()
	case wakeWatch:
		select {
		case e.life.watchNow <- struct{}{}:
		default:
		}
	case wakeInbox:
		if e.inbox != nil {
			e.inbox.scheduleSoon()
		}
	case wakeDrain:
		if e.drain != nil {
			e.drain.Wake()
		}
	case wakeClients:
		if s := e.serve.srv.Load(); s != nil {
			s.Poke()
		}
	}
}
