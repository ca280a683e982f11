package ui

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// fakeRemote is a fakeOffice that is a client of a server (Remote).
type fakeRemote struct {
	*fakeOffice
	mu      sync.Mutex
	views   []map[string]PaneSize
	resized []bool
	gone    string
	ended   bool
	starts  int
}

func (r *fakeRemote) SetView(_ string, panes map[string]PaneSize, resized bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.views = append(r.views, maps.Clone(panes))
	r.resized = append(r.resized, resized)
	return nil
}

func (r *fakeRemote) Gone() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gone, r.ended
}

func (r *fakeRemote) StartServer(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts++
	return nil
}

func newRemoteHarness(t *testing.T, names ...string) (*harness, *fakeRemote) {
	h := newHarness(t, names...)
	r := &fakeRemote{fakeOffice: h.o}
	h.m.office = r
	return h, r
}

// TestRemoteGetsTheWholeViewAtOnce: a client of the server sends one view
// with every shown pane (never Resize per agent), and says when the person
// resized the terminal.
func TestRemoteGetsTheWholeViewAtOnce(t *testing.T) {
	h, r := newRemoteHarness(t, "a", "b", "c", "d")
	h.size(120, 40)
	h.size(100, 30)
	if len(r.views) != 2 {
		t.Fatalf("views %v, want one per layout", r.views)
	}
	if v := r.views[1]; len(v) != 4 || v["a"] != (PaneSize{Cols: h.m.panes[0].box.W, Rows: h.m.panes[0].box.H - 1}) {
		t.Fatalf("view %v, want all four panes at their boxes' size", v)
	}
	if r.resized[0] || !r.resized[1] {
		t.Fatalf("resized flags %v, want false for the first size, true for the change", r.resized)
	}
	for _, a := range h.o.agents {
		if len(a.resizes) != 0 {
			t.Fatalf("%s resized one by one: %v", a.info.Name, a.resizes)
		}
	}
	h.keys("\x1dz") // zoom: only the focused pane is shown
	if v := r.views[len(r.views)-1]; len(v) != 1 || v["a"].Cols != 100 {
		t.Fatalf("zoomed view %v, want a alone at full width", v)
	}
}

// TestDetachLeavesTheOfficeRunning: prefix d and the quit question's d end
// the UI without stopping the office; the question's s stops it.
func TestDetachLeavesTheOfficeRunning(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	h.keys("\x1d")
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'd', Text: "d"})
	if cmd == nil {
		t.Fatal("prefix d does nothing")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok || h.o.quits != 0 {
		t.Fatalf("prefix d: want the UI to end and the office to stay (%d stops)", h.o.quits)
	}
	h.keys("\x1dx")
	_, cmd = h.m.Update(tea.KeyPressMsg{Code: 'd', Text: "d"})
	if _, ok := cmd().(tea.QuitMsg); !ok || h.o.quits != 0 {
		t.Fatalf("quit question, d: want a detach (%d stops)", h.o.quits)
	}
	h.keys("\x1dx")
	_, cmd = h.m.Update(tea.KeyPressMsg{Code: 's', Text: "s"})
	if _, ok := cmd().(tea.QuitMsg); !ok || h.o.quits != 1 {
		t.Fatalf("quit question, s: want the office stopped (%d stops)", h.o.quits)
	}
}

// TestServerGoneIsSaidAndCanBeStarted: a lost server is on the status line
// until it is back; prefix s starts it; an ended connection ends the UI.
func TestServerGoneIsSaidAndCanBeStarted(t *testing.T) {
	h, r := newRemoteHarness(t, "a")
	h.size(120, 24)
	r.gone = "the office's server is gone; reconnecting"
	h.changed()
	if !strings.Contains(h.text(), "the office's server is gone; reconnecting · Ctrl-] s starts it again") {
		t.Fatalf("no word of the lost server:\n%s", h.text())
	}
	h.keys("\x1ds")
	if r.starts != 1 {
		t.Fatalf("prefix s started the server %d times, want 1", r.starts)
	}
	r.gone = ""
	h.changed()
	if strings.Contains(h.text(), "is gone") {
		t.Fatalf("still says gone after the reconnect:\n%s", h.text())
	}
	h.keys("\x1ds")
	if r.starts != 1 {
		t.Fatal("prefix s starts a server that runs")
	}
	r.ended = true
	_, cmd := h.m.Update(changedMsg{state: true})
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("the UI stays up after the office stopped")
	}
}
