package engine

import (
	"testing"
	"time"

	"office/wire"
)

// TestPassIntervalSleepsWhileQuiet: with every agent settled and nothing
// queued or held, the state loop sleeps quietTick (requests, calls and
// terminal events wake it); anything that can change without an event
// keeps it at stateTick.
func TestPassIntervalSleepsWhileQuiet(t *testing.T) {
	idle := wire.AgentState{Name: "a", Status: "idle"}
	for _, c := range []struct {
		name  string
		a     wire.AgentState
		since time.Duration
		want  time.Duration
	}{
		{"quiet", idle, time.Minute, quietTick},
		{"busy agents change by terminal events", wire.AgentState{Name: "a", Status: "busy"}, time.Minute, quietTick},
		{"just changed: the drain's trailing writes", idle, stateLinger - time.Millisecond, stateTick},
		{"a message queued", wire.AgentState{Name: "a", Status: "idle", Queued: 1}, time.Minute, stateTick},
		{"a hold", wire.AgentState{Name: "a", Status: "idle", Hold: "cooling down"}, time.Minute, stateTick},
		{"starting", wire.AgentState{Name: "a", Status: "starting"}, time.Minute, stateTick},
	} {
		st := wire.State{Agents: []wire.AgentState{{Name: "b", Status: "idle"}, c.a}}
		if got := passInterval(st, c.since); got != c.want {
			t.Errorf("%s: passInterval = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFocusedScreenSkipsTheFramePace: a change of the client's focused
// agent's screen (a typed key's echo) is flushed at once, a background
// one waits for the frame pace, and replies or events alone never wait.
func TestFocusedScreenSkipsTheFramePace(t *testing.T) {
	s := &server{e: &Engine{}} // an office with no agents
	c := &client{s: s, dirty: map[string]bool{}, wake: make(chan struct{}, 1)}
	c.view(wire.View{Focus: "front"})
	if !c.urgent() {
		t.Error("nothing but events or replies pending waits for the frame pace")
	}
	s.mu.Lock()
	c.markDirty("back")
	s.mu.Unlock()
	if c.urgent() {
		t.Error("a background screen skips the frame pace")
	}
	s.mu.Lock()
	c.markDirty("front")
	s.mu.Unlock()
	if !c.urgent() {
		t.Error("the focused agent's screen waits for the frame pace")
	}
}
