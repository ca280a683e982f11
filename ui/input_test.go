package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func (h *harness) focusedName() string {
	if p := h.m.focused(); p != nil {
		return p.info.Name
	}
	return ""
}

func TestKeysReachOnlyTheFocusedPane(t *testing.T) {
	h := newHarness(t, "a", "b", "c", "d")
	h.size(160, 45)
	keys := "hi\x1b\x03\t\x1b[A\x1b[15~\x1bb\x1b[1;5C\r"
	h.keys(keys)
	if got := h.o.got("a"); got != keys {
		t.Fatalf("a got %q, want %q", got, keys)
	}
	h.keys("\x1d2")
	h.keys("two")
	if got := h.o.got("b"); got != "two" {
		t.Fatalf("b got %q", got)
	}
	for _, n := range []string{"c", "d"} {
		if got := h.o.got(n); got != "" {
			t.Fatalf("%s got %q", n, got)
		}
	}
	// The prefix twice sends the prefix itself.
	h.keys("\x1d\x1d")
	if got := h.o.got("b"); got != "two\x1d" {
		t.Fatalf("b got %q", got)
	}
	// The prefix in the middle of a chunk splits it.
	h.keys("x\x1d3y")
	if got, got3 := h.o.got("b"), h.o.got("c"); got != "two\x1dx" || got3 != "y" {
		t.Fatalf("b got %q, c got %q", got, got3)
	}
}

func TestKeysAndPastesFollowTheAgentsModes(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	h.run(h.m.Update(tea.PasteMsg{Content: "a\nb"}))
	h.keys("\x1b[A\x1b[13;2u")
	if got := h.o.got("a"); got != "a\rb\x1b[A"+LegacyNewline {
		t.Fatalf("without ?2004, ?1 or kitty flags: %q", got)
	}
	h.o.feed("a", "\x1b[?2004h\x1b[?1h\x1b[>1u")
	h.o.set("a", func(a *fakeAgent) { a.input = nil })
	h.changed()
	h.run(h.m.Update(tea.PasteMsg{Content: "a\nb"}))
	h.keys("\x1b[A\x1b[13;2u")
	if got := h.o.got("a"); got != "\x1b[200~a\nb\x1b[201~\x1bOA\x1b[13;2u" {
		t.Fatalf("with ?2004, ?1 and kitty 1: %q", got)
	}
}

func TestPrefixMovesFocusByDirection(t *testing.T) {
	h := newHarness(t, "a", "b", "c", "d")
	h.size(120, 40)
	steps := []struct{ keys, want string }{
		{"\x1d\x1b[C", "b"}, {"\x1dj", "d"}, {"\x1dh", "c"}, {"\x1d\x1b[A", "a"},
		{"\x1dl", "b"}, {"\x1d\x1b[B", "d"}, {"\x1dk", "b"}, {"\x1d3", "c"}, {"\x1d\t", "d"}, {"\x1d\x1b[Z", "c"},
	}
	for _, s := range steps {
		h.keys(s.keys)
		if got := h.focusedName(); got != s.want {
			t.Fatalf("after %q focus is %s, want %s", s.keys, got, s.want)
		}
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		if got := h.o.got(n); got != "" {
			t.Fatalf("office keys leaked to %s: %q", n, got)
		}
	}
}

func TestPagesAndRosterFollowFocus(t *testing.T) {
	h := newHarness(t, names(11)...)
	h.size(150, 40)
	if len(h.m.vis) != 9 {
		t.Fatalf("page 1 shows %d panes", len(h.m.vis))
	}
	h.keys("\x1d>")
	if h.focusedName() != "agent10" || len(h.m.vis) != 2 {
		t.Fatalf("page 2: focus %s, %d panes", h.focusedName(), len(h.m.vis))
	}
	if !strings.Contains(h.text(), "page 2/2") {
		t.Fatalf("no page indicator:\n%s", h.text())
	}
	h.keys("\x1dr")
	if !strings.Contains(h.text(), " agent3 ") {
		t.Fatalf("roster lacks an agent off the page:\n%s", h.text())
	}
	// A click on the roster focuses that agent.
	h.keys("\x1b[<0;140;4M\x1b[<0;140;4m")
	if h.focusedName() != "agent3" {
		t.Fatalf("roster click focused %s", h.focusedName())
	}
}

func TestZoomResizesTheFocusedPTY(t *testing.T) {
	h := newHarness(t, "a", "b", "c", "d")
	h.size(120, 40)
	h.keys("\x1d4")
	h.keys("\x1dz")
	if c, r := h.o.agent("d").scr.Size(); c != 120 || r != 38 {
		t.Fatalf("zoomed PTY is %dx%d, want 120x38", c, r)
	}
	if strings.Count(h.text(), "· claude ·") != 1 {
		t.Fatalf("zoom shows more than one pane:\n%s", h.text())
	}
	h.keys("\x1dz")
	if c, r := h.o.agent("d").scr.Size(); c != 60 || r != 19 {
		t.Fatalf("unzoomed PTY is %dx%d, want 60x19", c, r)
	}
}

func TestMouse(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 30) // a: x 0-48, b: x 50-99; titles on row 0
	h.keys("\x1b[<0;61;6M\x1b[<0;61;6m")
	if h.focusedName() != "b" {
		t.Fatalf("click did not focus b")
	}
	if got := h.o.got("b"); got != "" {
		t.Fatalf("the focusing click reached b: %q", got)
	}
	h.keys("\x1b[<0;61;6M\x1b[<0;61;6m")
	if got := h.o.got("b"); got != "" {
		t.Fatalf("b got mouse reports it did not ask for: %q", got)
	}
	h.o.feed("b", "\x1b[?1000h\x1b[?1006h")
	h.changed()
	h.keys("\x1b[<0;61;6M\x1b[<0;61;6m\x1b[<32;62;6M")
	if got := h.o.got("b"); got != "\x1b[<0;11;5M\x1b[<0;11;5m" {
		t.Fatalf("SGR reports: %q", got)
	}
	h.o.feed("b", "\x1b[?1006l")
	h.o.set("b", func(a *fakeAgent) { a.input = nil })
	h.changed()
	h.keys("\x1b[<0;61;6M\x1b[<0;61;6m")
	if got := h.o.got("b"); got != "\x1b[M +%\x1b[M#+%" {
		t.Fatalf("X10 reports: %q", got)
	}
}

func TestComposerQueuesAndNeverTypes(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(120, 40)
	h.keys("\x1d2\x1dm")
	h.keys("first\x1b[13;2usecond\r")
	if got := h.queued("b"); !slices.Equal(got, []string{"first\nsecond"}) {
		t.Fatalf("queued %q", got)
	}
	if h.o.got("b") != "" || h.o.got("a") != "" {
		t.Fatalf("the composer typed into a PTY: a %q b %q", h.o.got("a"), h.o.got("b"))
	}
	if h.m.overlay != overlayNone || !strings.Contains(h.text(), "queued for b") {
		t.Fatalf("composer still open or no word:\n%s", h.text())
	}
	h.keys("\x1dm\r")
	if !strings.Contains(h.text(), "nothing to queue") {
		t.Fatalf("blank message not refused:\n%s", h.text())
	}
}

func TestComposerButtonsActForThePerson(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 40)
	h.o.set("a", func(a *fakeAgent) { a.info.Picker = true; a.draft = "half done" })
	h.changed()
	h.keys("\x1dm")
	h.keys("\x0f")
	if h.o.agent("a").escs != 1 {
		t.Fatalf("Ctrl-O sent %d Esc", h.o.agent("a").escs)
	}
	h.keys("\x12")
	if got := string(h.m.composer.text); got != "half done" {
		t.Fatalf("recovered %q", got)
	}
}

func TestQueuePanelActions(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 40)
	h.enqueue("a", "one")
	h.enqueue("a", "two")
	h.enqueue("a", "three")
	h.keys("\x1dq")
	if !strings.Contains(h.text(), "queue of a · 3 queued") {
		t.Fatalf("panel:\n%s", h.text())
	}
	h.keys("s") // not offered while not paused
	if m := h.o.msgs["a"][0]; m.Manual {
		t.Fatalf("send now while not paused")
	}
	h.keys("jd")
	if got := h.queued("a"); !slices.Equal(got, []string{"one", "three"}) {
		t.Fatalf("after delete: %q", got)
	}
	h.o.SetFloorPaused(t.Context(), true)
	h.changed()
	h.keys("ks")
	if !h.o.msgs["a"][0].Manual {
		t.Fatalf("send now while paused did nothing")
	}
	h.keys("cn")
	if len(h.queued("a")) != 2 {
		t.Fatalf("clear without yes")
	}
	h.keys("cy")
	if len(h.queued("a")) != 0 {
		t.Fatalf("clear with yes left %q", h.queued("a"))
	}
}

func TestNoticesListed(t *testing.T) {
	h := newHarness(t, "a")
	h.size(100, 30)
	h.run(h.m.Update(changedMsg{notices: []Notice{{Agent: "a", Kind: "exit", Text: "exited with code 2"}}}))
	if !strings.Contains(h.text(), "! a: exited with code 2") || !strings.Contains(h.text(), "1 new notice") {
		t.Fatalf("status line:\n%s", h.text())
	}
	h.keys("\x1dn")
	if !strings.Contains(h.text(), "notices (1)") || h.m.notices.unread != 0 {
		t.Fatalf("list:\n%s", h.text())
	}
}

func TestRosterChangesWhileRunning(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(120, 40)
	h.keys("\x1d2")
	h.o.addFake("c", "hello from c")
	h.changed()
	if len(h.m.panes) != 3 || h.focusedName() != "b" || !strings.Contains(h.text(), "hello from c") {
		t.Fatalf("after a join: %d panes, focus %s:\n%s", len(h.m.panes), h.focusedName(), h.text())
	}
}

func TestAddAgentForm(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 40)
	h.o.addErr = errors.New(`engine: team add "a": agent name already in use`)
	h.keys("\x1da")
	h.keys("a\r")
	if !strings.Contains(h.text(), "agent name already in use") || h.m.overlay != overlayForm {
		t.Fatalf("the office's error is not in the form:\n%s", h.text())
	}
	h.o.addErr = nil
	h.keys("\x7fhelper\tshell\t/tmp\tbash -l\r")
	if len(h.o.added) != 1 {
		t.Fatalf("added %+v", h.o.added)
	}
	got := h.o.added[0]
	if got.Name != "helper" || got.Profile != "shell" || got.Cwd != "/tmp" || !slices.Equal(got.Command, []string{"bash", "-l"}) {
		t.Fatalf("spec %+v", got)
	}
	if h.m.overlay != overlayNone || len(h.m.panes) != 2 {
		t.Fatalf("form open %v, %d panes", h.m.overlay, len(h.m.panes))
	}
}

func TestRestartAsksFirst(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(120, 40)
	h.o.set("a", func(a *fakeAgent) { a.info.Status = "busy" })
	h.changed()
	h.keys("\x1dR")
	if !strings.Contains(h.text(), "a is in the middle of a turn") {
		t.Fatalf("the question does not name the turn:\n%s", h.text())
	}
	h.keys("n")
	if len(h.o.restarts) != 0 {
		t.Fatalf("restarted without yes")
	}
	h.keys("\x1dRy")
	if !slices.Equal(h.o.restarts, []string{"a"}) {
		t.Fatalf("restarts %q", h.o.restarts)
	}
}

func TestQuitAsksFirst(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	h.keys("\x1dx")
	if h.m.overlay != overlayQuit {
		t.Fatalf("no question")
	}
	_, cmd := h.m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if cmd != nil || h.m.overlay != overlayNone {
		t.Fatalf("n quits or stays open")
	}
	h.keys("\x1dx")
	_, cmd = h.m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	if cmd == nil {
		t.Fatalf("y does not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok || h.o.quits != 1 {
		t.Fatalf("y does not stop the office and quit (%d stops)", h.o.quits)
	}
}

func TestParsePrefix(t *testing.T) {
	for in, want := range map[string]byte{"C-]": 0x1d, "C-a": 1, "Ctrl-B": 2, "^A": 1, "`": '`'} {
		if got, err := ParsePrefix(in); err != nil || got != want {
			t.Errorf("ParsePrefix(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "C-", "C-ab", "ab", "C-1", "C-@", "^@"} {
		if _, err := ParsePrefix(bad); err == nil {
			t.Errorf("ParsePrefix(%q) accepted", bad)
		}
	}
}

func TestCustomPrefix(t *testing.T) {
	h := newHarnessOpts(t, Options{Prefix: 1}, "a", "b")
	h.size(100, 30)
	h.keys("\x1d\x012x")
	if h.o.got("a") != "\x1d" || h.o.got("b") != "x" {
		t.Fatalf("a %q b %q", h.o.got("a"), h.o.got("b"))
	}
}

func TestTinyTerminalsDoNotBreak(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {2, 3}, {10, 4}, {30, 5}} {
		h := newHarness(t, "a", "b", "c")
		h.size(sz[0], sz[1])
		h.keys("\x1dr\x1d?")
		h.keys("\x1dm")
		_ = h.text()
	}
}

func TestStartingPaneSaysWhatItWaitsFor(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 30)
	h.o.set("a", func(a *fakeAgent) {
		a.info.Status, a.info.ReadyMarkers, a.info.BootGrace, a.info.Started = "starting", []string{"? for shortcuts"}, 35*time.Second, testClock.Add(-5*time.Second)
	})
	h.changed()
	if !strings.Contains(h.text(), "waiting for “? for shortcuts” · 5s") {
		t.Fatalf("starting pane:\n%s", h.text())
	}
	h.run(h.m.Update(startingMsg{}))
	if len(h.m.notices.items) != 0 {
		t.Fatalf("a notice before the grace: %+v", h.m.notices.items)
	}
	h.m.now = func() time.Time { return testClock.Add(31 * time.Second) }
	h.run(h.m.Update(startingMsg{}))
	h.run(h.m.Update(startingMsg{}))
	if len(h.m.notices.items) != 1 || !strings.Contains(h.m.notices.items[0].Text, "has not shown its prompt") {
		t.Fatalf("notices %+v", h.m.notices.items)
	}
	if !strings.Contains(h.text(), "no prompt after 36s") {
		t.Fatalf("pane past the grace:\n%s", h.text())
	}
}

// TestFocusSurvivesAReconnect: after a server restart the new roster comes
// after the connection (empty at first) and with new start times; the
// person's focus, and so its page, stays on the agent they had (it jumped
// back to page 1). Once they move focus themselves, the old one is not
// taken back.
func TestFocusSurvivesAReconnect(t *testing.T) {
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("a%d", i))
	}
	h := newHarness(t, names...)
	h.size(120, 40)
	h.keys("\x1d>") // page 2
	h.keys("\x1d2") // its second pane: a10
	if h.focusedName() != "a10" {
		t.Fatalf("focus %s, want a10", h.focusedName())
	}
	agents := h.o.agents
	h.o.mu.Lock()
	h.o.agents = nil // the new connection, before its roster
	h.o.mu.Unlock()
	h.o.emit(Change{Kind: ChangeRoster})
	h.changed()
	h.o.mu.Lock()
	h.o.agents = agents[:4] // a roster without a10 yet
	h.o.mu.Unlock()
	h.o.emit(Change{Kind: ChangeRoster})
	h.changed()
	h.o.mu.Lock()
	for _, a := range agents {
		a.info.Started = a.info.Started.Add(time.Minute) // new processes
	}
	h.o.agents = agents
	h.o.mu.Unlock()
	h.o.emit(Change{Kind: ChangeRoster})
	h.changed()
	if page, _ := h.m.page(); h.focusedName() != "a10" || page != 1 {
		t.Fatalf("after the reconnect: focus %s on page %d, want a10 on page 2", h.focusedName(), page+1)
	}

	// Moved by the person while a10 is away: a10's return does not take it.
	h.o.mu.Lock()
	h.o.agents = agents[:4]
	h.o.mu.Unlock()
	h.o.emit(Change{Kind: ChangeRoster})
	h.changed()
	h.keys("\x1d2")
	h.o.mu.Lock()
	h.o.agents = agents
	h.o.mu.Unlock()
	h.o.emit(Change{Kind: ChangeRoster})
	h.changed()
	if h.focusedName() != "a1" {
		t.Fatalf("focus %s, want a1 (the person's own choice)", h.focusedName())
	}
}

// personErr is an office error with a person's message, as the client's
// call errors carry the server's reason.
type personErr struct{ full, reason string }

func (e personErr) Error() string         { return e.full }
func (e personErr) PersonMessage() string { return e.reason }

// TestAddAgentFormShowsThePersonsMessage: the add form shows the reason of
// a refusal, not the error's package prefixes.
func TestAddAgentFormShowsThePersonsMessage(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 40)
	h.o.addErr = personErr{full: `engine: team add "x1": bad input: cwd "rel" is not absolute`, reason: `cwd "rel" is not absolute`}
	h.keys("\x1da")
	h.keys("x1\r")
	if text := h.text(); !strings.Contains(text, `cwd "rel" is not absolute`) || strings.Contains(text, "engine:") || strings.Contains(text, "bad input") {
		t.Fatalf("the form does not show the reason alone:\n%s", text)
	}
}

// setRoster makes the fake office's roster agents and tells the UI.
func (h *harness) setRoster(agents []*fakeAgent) {
	h.o.mu.Lock()
	h.o.agents = agents
	h.o.mu.Unlock()
	h.o.emit(Change{Kind: ChangeRoster})
	h.changed()
}

// TestKeptFocusDoesNotGoStale: the focus kept across a reconnect is given
// up once the person types into the pane focus fell back to (the agent
// arriving much later does not take the keys); an agent removed with no
// reconnect (team rm) and added again later does not take focus either;
// nor does one that was there all along when the connection came back.
func TestKeptFocusDoesNotGoStale(t *testing.T) {
	t.Run("typed into the fallback", func(t *testing.T) {
		h := newHarness(t, "a0", "a1", "a2")
		h.size(120, 40)
		h.keys("\x1d3")
		agents := h.o.agents
		h.setRoster(nil)        // a new connection, before its roster
		h.setRoster(agents[:2]) // a2 not back yet: focus on a0
		if h.focusedName() != "a0" {
			t.Fatalf("focus %s, want a0 while a2 is away", h.focusedName())
		}
		h.keys("x") // the person types into a0
		h.setRoster(agents)
		if h.focusedName() != "a0" {
			t.Fatalf("focus %s after a2 came back, want a0 (the person typed there)", h.focusedName())
		}
		if got := h.o.got("a0"); got != "x" {
			t.Fatalf("a0 got %q, want x", got)
		}
	})
	t.Run("removed, added again", func(t *testing.T) {
		h := newHarness(t, "a0", "a1", "a2")
		h.size(120, 40)
		h.keys("\x1d3")
		agents := h.o.agents
		h.setRoster(agents[:2]) // team rm a2: no reconnect
		h.setRoster(agents)     // hours later, a2 again
		if h.focusedName() != "a0" {
			t.Fatalf("focus %s, want a0 (a removed agent's return takes nothing)", h.focusedName())
		}
	})
	t.Run("there all along", func(t *testing.T) {
		h, r := newRemoteHarness(t, "a0", "a1", "a2")
		h.size(120, 40)
		h.keys("\x1d3")
		agents := h.o.agents
		r.mu.Lock()
		r.gone = "the office's server is gone; reconnecting"
		r.mu.Unlock()
		h.o.emit(Change{Kind: ChangeConnection})
		h.changed()
		r.mu.Lock()
		r.gone = ""
		r.mu.Unlock()
		h.o.emit(Change{Kind: ChangeConnection})
		h.changed()
		if h.focusedName() != "a2" {
			t.Fatalf("focus %s after the reconnect, want a2", h.focusedName())
		}
		h.setRoster(agents[:2])
		h.setRoster(agents)
		if h.focusedName() != "a0" {
			t.Fatalf("focus %s, want a0 (the kept focus was spent at the reconnect)", h.focusedName())
		}
	})
}
