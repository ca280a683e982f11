package inbox

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"office/queue"
)

// BenchmarkScheduleBacklog measures Schedule, what the engine runs at every
// poke, with a backlog of pending items and queued messages ahead of the
// agent's inbox delivery (floor paused: nothing drains). Its time must not
// grow with the backlog: it was a scan of every pending item, each with a
// scan of the agent's queue (0.46 s per poke at 1,500 in issue 15).
func BenchmarkScheduleBacklog(b *testing.B) {
	for _, n := range []int{100, 1500, 15000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			s, err := queue.Open(filepath.Join(b.TempDir(), "office.db"), queue.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.EnsureAgents(ctx, []string{"a", "b"}); err != nil {
				b.Fatal(err)
			}
			svc, err := Open(ctx, s, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Update(ctx, func(tx *queue.Tx) error {
				for i := range n {
					if _, _, err := svc.SendTx(tx, Message{To: "a", From: Person, Body: fmt.Sprintf("item %d", i)}); err != nil {
						return err
					}
					if _, err := tx.Enqueue("a", fmt.Sprintf("queued %d", i), queue.EnqueueOptions{}); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			if q, err := svc.Schedule(ctx); err != nil || len(q) != 1 {
				b.Fatalf("first Schedule queued %v, %v; want [a]", q, err)
			}
			b.ResetTimer()
			for b.Loop() {
				if q, err := svc.Schedule(ctx); err != nil || len(q) != 0 {
					b.Fatalf("Schedule queued %v, %v; want nothing (a's delivery is queued)", q, err)
				}
			}
		})
	}
}
