package ui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"
)

// TestProgramComposerRoundTrip runs the model in a real Bubble Tea program
// (teatest): the frame tick, the store ticks and the commands run on their
// own goroutines, as in office.
func TestProgramComposerRoundTrip(t *testing.T) {
	h := newHarness(t, "a", "b")
	out := &lockedBuffer{}
	h.m.out = out
	tm := teatest.NewTestModel(t, h.m, teatest.WithInitialTermSize(120, 40))
	waitOut := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	waitOut("b · claude · idle")
	tm.Send(inputMsg("\x1d2"))
	tm.Send(inputMsg("\x1dm"))
	tm.Send(inputMsg("from the composer"))
	tm.Send(inputMsg("\r"))
	waitOut("queued for b")
	tm.Send(inputMsg("typed"))
	h.m.intake.add(notice{agent: "a", text: "is waiting for you"})
	waitOut("a: is waiting for you")
	tm.Send(inputMsg("\x1dx"))
	tm.Send(inputMsg("y"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))

	msgs, err := h.src.store.List(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Text != "from the composer" || msgs[0].Source != "composer" {
		t.Fatalf("queued %+v", msgs)
	}
	if got := h.terms["b"].got(); got != "typed" {
		t.Fatalf("b got %q, want only the person's keys", got)
	}
	if got := h.terms["a"].got(); got != "" {
		t.Fatalf("a got %q", got)
	}
	if !strings.Contains(out.String(), "\x1b]9;office: a: is waiting for you\a") {
		t.Fatalf("no OSC 9: %q", out.String())
	}
}
