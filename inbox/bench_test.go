package inbox

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"office/queue"
)

// BenchmarkSend measures durable sends (each returns after its fsynced
// commit) on a real SQLite file.
func BenchmarkSend(b *testing.B) {
	ctx := context.Background()
	s, err := queue.Open(filepath.Join(b.TempDir(), "office.db"), queue.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.EnsureAgents(ctx, []string{"a"}); err != nil {
		b.Fatal(err)
	}
	svc, err := Open(ctx, s, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, _, err := svc.Send(ctx, Message{To: "a", From: "b", Body: fmt.Sprintf("message %d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sends/s")
}

// BenchmarkRender100 measures rendering one full batch of 100 items.
func BenchmarkRender100(b *testing.B) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	its := make([]Item, 100)
	for i := range its {
		its[i] = Item{ID: fmt.Sprintf("01JD%022d", i), Sender: "lead", Kind: KindText, Body: fmt.Sprintf("item %d: please look at file_%d.go and report", i, i), Created: at}
		if i%3 == 0 {
			its[i].Kind = KindMail
			its[i].Mail = &Mail{ID: its[i].ID, Sender: "lead", Receiver: "dev", Type: MailRequest, Title: "Review"}
		}
	}
	for b.Loop() {
		if _, n := Batch(its, 100, 32<<10); n != 100 {
			b.Fatal(n)
		}
	}
}
