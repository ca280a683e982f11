package ui

// viewsend.go tells the office what the UI shows, in order. Bubble Tea runs
// commands concurrently and in no set order, so a subscription or a set of
// pane sizes made by one layout could reach the server after a later
// layout's and win: the server would then send no screen for a pane the UI
// draws (the pane stays blank), or size an agent for a view the UI left.
// The model records what it wants the office to know; every command sends
// what is wanted when it runs, under one lock, so whatever order the
// commands run in, the office is told the newest view last.

import "sync"

// viewSender holds the view not yet sent.
type viewSender struct {
	mu   sync.Mutex
	subs []string // the agents drawn, to subscribe to; nil: no change
	view *paneView
}

// paneView is what Remote.SetView carries.
type paneView struct {
	focus   string
	panes   map[string]PaneSize
	resized bool
}

// want records the newest view: subs, the agents drawn (nil: unchanged; an
// empty, non-nil slice: none), and the panes' sizes (nil: unchanged). A
// terminal resize not yet told is kept: the newest view carries it.
func (v *viewSender) want(subs []string, view *paneView) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if subs != nil {
		v.subs = subs
	}
	if view != nil {
		if v.view != nil && v.view.resized {
			view.resized = true
		}
		v.view = view
	}
}

// send tells the office what is wanted and not yet sent: the subscription
// first, so the newly drawn panes' screens come whole at the sizes the view
// then gives them, then the view. Either may be nil (the office does not
// take it). It holds the lock while it sends: a command that runs meanwhile
// waits, then finds nothing new, or something newer.
func (v *viewSender) send(sub Subscriber, r Remote) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	subs, view := v.subs, v.view
	v.subs, v.view = nil, nil
	if subs != nil && sub != nil {
		if err := sub.Subscribe(subs); err != nil {
			return err
		}
	}
	if view != nil && r != nil {
		return r.SetView(view.focus, view.panes, view.resized)
	}
	return nil
}
