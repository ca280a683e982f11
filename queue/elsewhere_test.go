package queue

import (
	"context"
	"errors"
	"testing"
)

// TestAgentRunElsewhereIsNoReceiver: an agent recorded as run elsewhere
// (another host of the floor has its name) is refused by Enqueue, naming
// that host, as ErrUnknownAgent; its record says so; recording it run here
// again, removing it or adding the name again makes it a receiver as
// before; each change is logged once.
func TestAgentRunElsewhereIsNoReceiver(t *testing.T) {
	s := open(t, Options{}, "x")
	ctx := context.Background()
	for range 2 { // the second writes nothing
		if err := s.SetElsewhere(ctx, "x", "a"); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := s.Agent(ctx, "x"); err != nil || r.Elsewhere != "a" {
		t.Fatalf("x's record %+v, %v: want elsewhere a", r, err)
	}
	_, err := s.Enqueue(ctx, "x", "hello", EnqueueOptions{})
	var ee *ElsewhereError
	if !errors.As(err, &ee) || ee.Host != "a" || ee.Agent != "x" || !errors.Is(err, ErrUnknownAgent) {
		t.Fatalf("enqueue to x run elsewhere: %v, want an ElsewhereError naming host a", err)
	}
	if ms, _ := s.List(ctx, "x"); len(ms) != 0 {
		t.Fatalf("x's queue %+v, want empty", ms)
	}
	if err := s.SetElsewhere(ctx, "x", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(ctx, "x", "hello", EnqueueOptions{}); err != nil {
		t.Fatalf("enqueue to x run here again: %v", err)
	}
	// Removed, then added again: run here.
	if err := s.SetElsewhere(ctx, "x", "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveAgent(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetElsewhere(ctx, "x", "a"); !errors.Is(err, ErrUnknownAgent) {
		t.Fatalf("SetElsewhere of a removed agent: %v, want ErrUnknownAgent", err)
	}
	if err := s.AddAgent(ctx, AgentRecord{Name: "x", Spec: "{}"}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Agent(ctx, "x"); r.Elsewhere != "" {
		t.Fatalf("x added again: %+v, want run here", r)
	}
	if err := s.SetElsewhere(ctx, "nobody", "a"); !errors.Is(err, ErrUnknownAgent) {
		t.Fatalf("SetElsewhere of an unknown agent: %v", err)
	}
	evs, err := s.Events(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range evs {
		kinds[e.Kind]++
	}
	if kinds[EventAgentElsewhere] != 2 || kinds[EventAgentHere] != 1 {
		t.Fatalf("events %v: want agent_elsewhere twice, agent_here once", kinds)
	}
}
