package queue_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"office/queue"
)

// Enqueue two messages, pause the agent, then "send now" the second one: it
// moves to the front and becomes manual, so the drain may type it even while
// the agent is paused.
func Example() {
	dir, err := os.MkdirTemp("", "queue-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	s, err := queue.Open(filepath.Join(dir, "state", "queue.db"), queue.Options{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if err := s.EnsureAgents(ctx, []string{"alice"}); err != nil {
		panic(err)
	}

	first, _ := s.Enqueue(ctx, "alice", "  run the tests  ", queue.EnqueueOptions{Source: "send"})
	second, _ := s.Enqueue(ctx, "alice", "/compact", queue.EnqueueOptions{Source: "composer"})
	_, err = s.Enqueue(ctx, "alice", "/compact again", queue.EnqueueOptions{})
	fmt.Println("duplicate:", err)

	if err := s.SetPaused(ctx, "alice", true); err != nil {
		panic(err)
	}
	agentPaused, floorPaused, _ := s.Paused(ctx, "alice")
	fmt.Println("paused:", agentPaused, "floor:", floorPaused)

	if err := s.Release(ctx, second); err != nil { // send now
		panic(err)
	}
	list, _ := s.List(ctx, "alice")
	for _, m := range list {
		fmt.Printf("%d %q manual=%v\n", m.ID, m.Text, m.Manual)
	}
	head, _, _ := s.Head(ctx, "alice")
	fmt.Println("next:", head.ID == second, "then:", list[1].ID == first)

	// Output:
	// duplicate: queue: agent "alice" already has a pending compaction command (message 2); not added
	// paused: true floor: false
	// 2 "/compact" manual=true
	// 1 "run the tests" manual=false
	// next: true then: true
}
