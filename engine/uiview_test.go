package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"office/drain"
	"office/engine"
	"office/ui"
)

// changes records what a UIView pushes.
type changes struct {
	mu   sync.Mutex
	list []ui.Change
}

func (c *changes) add(ch ui.Change) { c.mu.Lock(); c.list = append(c.list, ch); c.mu.Unlock() }

func (c *changes) has(kind ui.ChangeKind, agent string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.list {
		if ch.Kind == kind && ch.Agent == agent {
			return true
		}
	}
	return false
}

// TestUIViewPushesScreensAndCarriesIntents drives the engine through the
// UI's interface with real fake-agent terminals: the person's key reaches
// the agent and its echo is pushed as a screen change (no polling), the
// composer's message is queued through the store, the floor pause and the
// queue listing read back, and a restart gives the agent a new process.
func TestUIViewPushesScreensAndCarriesIntents(t *testing.T) {
	dir := t.TempDir()
	view := engine.NewUIView()
	var ch changes
	stop := view.Watch(ch.add)
	defer stop()
	e, err := engine.Open(engine.Options{Config: fakeConfig(t, dir, 2), StateDir: filepath.Join(dir, "state"), HostEnv: hostEnv(),
		OnTerminal: view.TerminalEvent, OnNotice: view.DrainNotice})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	view.Attach(e)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.Run(ctx)
	go view.Run(ctx)

	agents := view.Agents()
	if len(agents) != 2 || agents[0].Name != "a0" || agents[0].Profile != "claude" || len(agents[0].ReadyMarkers) == 0 {
		t.Fatalf("agents %+v", agents)
	}
	waitCond(t, 30*time.Second, "a0 idle", func() bool { return view.Agents()[0].Status == "idle" })
	var scr ui.Screen
	if !view.Screen("a0", &scr) || !strings.Contains(scr.Text(), "? for shortcuts") {
		t.Fatalf("screen %q", scr.Text())
	}
	if view.Screen("a0", &scr) {
		t.Fatalf("an unchanged screen was copied again")
	}
	if err := view.Input("a0", []byte("xyz")); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 10*time.Second, "the echo pushed", func() bool {
		return ch.has(ui.ChangeScreen, "a0") && view.Screen("a0", &scr) && strings.Contains(scr.Text(), "xyz")
	})

	id, err := view.Enqueue(ctx, "a1", "from the composer")
	if err != nil || id == 0 {
		t.Fatalf("enqueue: %d %v", id, err)
	}
	if err := view.SetFloorPaused(ctx, true); err != nil {
		t.Fatal(err)
	}
	waitCond(t, 10*time.Second, "the floor pushed", func() bool { f := view.Floor(); return f.Paused && f.Counts["a1"] == 1 })
	l, err := view.Queue(ctx, "a1")
	if err != nil || len(l.Messages) != 1 || l.Messages[0].Text != "from the composer" {
		t.Fatalf("queue %+v %v", l, err)
	}
	if _, err := view.Enqueue(ctx, "nobody", "x"); err == nil {
		t.Fatalf("enqueue to an unknown agent accepted")
	}

	before := view.Agents()[1].Started
	ch.mu.Lock()
	ch.list = nil
	ch.mu.Unlock()
	if err := view.RestartAgent(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if after := view.Agents()[1].Started; !after.After(before) {
		t.Fatalf("restart kept the process started at %v", before)
	}
	waitCond(t, 10*time.Second, "the roster change pushed", func() bool { return ch.has(ui.ChangeRoster, "") })
	if err := view.AddAgent(ctx, ui.AgentSpec{Name: "a0"}); err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("adding a second a0: %v", err)
	}
}

// TestUIViewDrainNoticesInThePersonsWords: the drain's notices reach the UI
// as the person reads them.
func TestUIViewDrainNoticesInThePersonsWords(t *testing.T) {
	view := engine.NewUIView()
	var ch changes
	defer view.Watch(ch.add)()
	view.DrainNotice(drain.Notice{Agent: "a", Kind: drain.NoticeDropped, MsgID: 7, Text: "first line\nsecond"})
	view.DrainNotice(drain.Notice{Agent: "a", Kind: drain.NoticeTypedNotSubmitted, MsgID: 8})
	want := []string{
		"message 7 dropped after its last failed attempt: first line …",
		"message 8 typed but not submitted; it sits on the prompt as your draft",
	}
	if len(ch.list) != len(want) {
		t.Fatalf("changes %+v", ch.list)
	}
	for i, c := range ch.list {
		if c.Kind != ui.ChangeNotice || c.Notice.Agent != "a" || c.Notice.Text != want[i] {
			t.Errorf("notice %d: %+v, want %q", i, c, want[i])
		}
	}
}
