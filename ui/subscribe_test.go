package ui

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSubscriber is a client of a server that sends only the screens the UI
// subscribed to: an agent's screen is there once it "arrived" after its
// subscription, and its copy goes when it is no longer subscribed.
type fakeSubscriber struct {
	*fakeRemote
	smu  sync.Mutex
	subs [][]string
	have map[string]bool
}

func (s *fakeSubscriber) Subscribe(agents []string) error {
	s.smu.Lock()
	defer s.smu.Unlock()
	s.subs = append(s.subs, slices.Clone(agents))
	for a := range s.have {
		if !slices.Contains(agents, a) {
			delete(s.have, a)
		}
	}
	return nil
}

// last is the last subscription.
func (s *fakeSubscriber) last() []string {
	s.smu.Lock()
	defer s.smu.Unlock()
	if len(s.subs) == 0 {
		return nil
	}
	return s.subs[len(s.subs)-1]
}

func (s *fakeSubscriber) Screen(agent string, dst *Screen, rows *[]uint64) bool {
	s.smu.Lock()
	ok := s.have[agent]
	s.smu.Unlock()
	return ok && s.fakeOffice.Screen(agent, dst, rows)
}

// arrive makes the subscribed agents' screens come, as the server's full
// screens after a subscription do, and tells the watchers.
func (s *fakeSubscriber) arrive(agents ...string) {
	for _, a := range agents {
		s.smu.Lock()
		if !slices.Contains(s.subs[len(s.subs)-1], a) {
			s.smu.Unlock()
			continue
		}
		s.have[a] = true
		s.smu.Unlock()
		s.fakeOffice.emit(Change{Kind: ChangeScreen, Agent: a})
	}
}

// A page switch subscribes to exactly the new page's panes (a zoom to the
// zoomed one), lets go of the old page's screen copies, and draws a new
// pane as soon as its screen arrives: not at the background panes' pace
// (the notifier's clock stands still and its timers never fire here).
func TestPageSwitchSubscribesAndDrawsOnArrival(t *testing.T) {
	h := newHarness(t, names(20)...)
	o := &fakeSubscriber{fakeRemote: &fakeRemote{fakeOffice: h.o}, have: map[string]bool{}}
	h.m.office = o
	sent := make(chan changedMsg, 64)
	n := newNotifier(func(c changedMsg) { sent <- c })
	n.now = func() time.Time { return testClock }
	n.after = func(time.Duration, func()) {} // the background pace never comes
	h.m.notify = n
	stop := o.Watch(n.change)
	defer stop()
	// deliver hands the model what the notifier sent, or fails when it
	// sent nothing (the change waits for a pace).
	deliver := func(what string) {
		t.Helper()
		select {
		case c := <-sent:
			h.run(h.m.Update(c))
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the notifier sent nothing", what)
		}
	}
	h.size(150, 40)
	page1 := names(9)
	if got := o.last(); !slices.Equal(got, page1) {
		t.Fatalf("subscribed to %v, want page 1 %v", got, page1)
	}
	if strings.Contains(h.text(), "agent2 ready") {
		t.Fatal("a pane drew a screen that had not arrived")
	}
	o.arrive("agent2")
	deliver("page 1's agent2 arrived")
	if !strings.Contains(h.text(), "agent2 ready") {
		t.Fatalf("agent2's screen arrived, not drawn:\n%s", h.text())
	}
	o.arrive(page1...)
	for len(sent) > 0 {
		deliver("page 1")
	}
	h.changed()
	if h.m.panes[1].snap.Cells == nil {
		t.Fatal("agent2's pane holds no screen on page 1")
	}

	h.keys("\x1d>")
	page2 := names(18)[9:]
	if got := o.last(); !slices.Equal(got, page2) {
		t.Fatalf("after > subscribed to %v, want page 2 %v", got, page2)
	}
	if h.m.panes[1].snap.Cells != nil {
		t.Fatal("agent2's pane (page 1) still holds its screen on page 2")
	}
	if txt := h.text(); strings.Contains(txt, "agent11 ready") || !strings.Contains(txt, "agent11") {
		t.Fatalf("page 2 before its screens arrived:\n%s", txt)
	}
	// agent11 is not focused (agent10 is): its first screen is drawn as it
	// arrives all the same.
	for len(sent) > 0 {
		<-sent
	}
	o.arrive("agent11")
	deliver("page 2's agent11 arrived")
	if !strings.Contains(h.text(), "agent11 ready") {
		t.Fatalf("agent11's screen arrived, not drawn:\n%s", h.text())
	}
	// Its next change is a background pane's again: it waits for the pace.
	o.feed("agent11", "more")
	n.mu.Lock()
	paced := n.bgWanted && n.bgArmed
	n.mu.Unlock()
	if !paced {
		t.Fatal("a background pane's later change did not wait for the pace")
	}

	// The same subscription is not sent again for a resize; a zoom names
	// the zoomed pane alone, and back the page.
	count := func() int { o.smu.Lock(); defer o.smu.Unlock(); return len(o.subs) }
	before := count()
	h.size(140, 40)
	if count() != before {
		t.Fatalf("a resize sent the same subscription again: %v", o.last())
	}
	h.keys("\x1dz")
	if got := o.last(); !slices.Equal(got, []string{"agent10"}) {
		t.Fatalf("zoomed: subscribed to %v", got)
	}
	h.keys("\x1dz")
	if got := o.last(); !slices.Equal(got, page2) {
		t.Fatalf("unzoomed: subscribed to %v", got)
	}
}
