package ui

import (
	"maps"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Bubble Tea runs commands concurrently, in no set order. When the
// commands of two layouts run newest first, the office is still told the
// newest view last: the agents drawn now (an older subscription landing
// last left a drawn pane with no screen, blank for good) and their sizes.
func TestTheNewestViewIsToldLast(t *testing.T) {
	h := newHarness(t, names(20)...)
	o := &fakeSubscriber{fakeRemote: &fakeRemote{fakeOffice: h.o}, have: map[string]bool{}}
	h.m.office = o
	_, older := h.m.Update(tea.WindowSizeMsg{Width: 150, Height: 40})
	olderShown := slices.Clone(h.m.subscribed)
	h.keys("\x1dz") // a zoom: its layout's commands run now, before the older's
	newerShown := slices.Clone(h.m.subscribed)
	if slices.Equal(olderShown, newerShown) {
		t.Fatalf("both layouts show %v: the test needs two views", newerShown)
	}
	wantPanes := map[string]PaneSize{}
	for _, idx := range h.m.vis {
		p := h.m.panes[idx]
		wantPanes[p.info.Name] = PaneSize{Cols: p.box.W, Rows: p.box.H - 1}
	}
	h.run(nil, older)
	if got := o.last(); !slices.Equal(got, newerShown) {
		t.Fatalf("the office was last told the UI draws %v; it draws %v", got, newerShown)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.views) == 0 {
		t.Fatal("no view was sent")
	}
	if got := o.views[len(o.views)-1]; !maps.Equal(got, wantPanes) {
		t.Fatalf("the last view sent sizes %v; the panes are %v", got, wantPanes)
	}
}

// A terminal resize told by a view that was never sent (a newer one
// replaced it first) rides with the newer view: the server learns that this
// client acted last, whichever layout's command runs.
func TestAResizeNotYetToldRidesWithTheNewestView(t *testing.T) {
	r := &fakeRemote{fakeOffice: newFakeOffice("a")}
	var v viewSender
	v.want(nil, &paneView{focus: "a", panes: map[string]PaneSize{"a": {Cols: 80, Rows: 23}}, resized: true})
	v.want(nil, &paneView{focus: "a", panes: map[string]PaneSize{"a": {Cols: 100, Rows: 30}}})
	if err := v.send(nil, r); err != nil {
		t.Fatal(err)
	}
	if err := v.send(nil, r); err != nil { // nothing new: nothing sent
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.views) != 1 || r.views[0]["a"] != (PaneSize{Cols: 100, Rows: 30}) || !r.resized[0] {
		t.Fatalf("views sent %v, resized %v; want the newest once, resized", r.views, r.resized)
	}
}
