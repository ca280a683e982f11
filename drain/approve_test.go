package drain_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
)

const (
	dialogScreen = "❯ first\n\n  Do you want to proceed?\n  ❯ 1. Yes\n    2. No\n\n  Esc to cancel"
	movedScreen  = "❯ first\n\n  Do you want to proceed?\n    1. Yes\n  ❯ 2. No\n\n  Esc to cancel"
	otherDialog  = "❯ second\n\n  Do you want to proceed?\n  ❯ 1. Yes\n    2. No\n\n  Esc to cancel"
	closedScreen = "❯ first\n\n● reply: first\n\n❯ \n  ? for shortcuts"
)

func TestDialogFingerprint(t *testing.T) {
	fp := drain.DialogFingerprint(dialogScreen)
	if drain.DialogFingerprint(movedScreen) != fp {
		t.Error("moving the highlight made it another dialog")
	}
	if drain.DialogFingerprint("\n\n"+dialogScreen+"\n\n   \n") != fp {
		t.Error("blank rows around the dialog made it another dialog")
	}
	if drain.DialogFingerprint(otherDialog) == fp || drain.DialogFingerprint(closedScreen) == fp {
		t.Error("another dialog, or no dialog, has the same fingerprint")
	}
}

// approve runs Approve on its own goroutine and returns its result channel.
func approve(d *drain.Drainer, ap drain.Approval) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- d.Approve(context.Background(), ap) }()
	return errc
}

func TestApprovalIsTypedWhileItsDialogIsOpenIgnoringPauseAndCooldown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.status, a.screens = automation.StatusWaiting, []string{movedScreen} })
		h.store.setFloorPaused(true)
		errc := approve(h.d, drain.Approval{Agent: "a", Keys: "1", Dialog: drain.DialogFingerprint(dialogScreen), By: "person"})
		h.until(time.Second)
		if err := <-errc; err != nil {
			t.Fatalf("Approve = %v, want typed", err)
		}
		checkWrites(t, a.written(), []write{{200 * ms, "1", false}})
		if n := len(a.enterCauses()); n != 0 {
			t.Errorf("an approval pressed Enter %d times", n)
		}
		if !strings.Contains(h.log.String(), "dialog answered") || !strings.Contains(h.log.String(), "by=person") {
			t.Errorf("the approval is not logged with who approved:\n%s", h.log.String())
		}
		// No cooldown was stamped: a message right after goes at once.
		h.store.setFloorPaused(false)
		a.set(func(a *fakeAgent) { a.status = automation.StatusIdle })
		h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "1", false}, {1200 * ms, "hello", false}, {1340 * ms, "\r", false}})
		h.stop()
	})
}

func TestApprovalAfterTheDialogClosedTypesNothing(t *testing.T) {
	cases := []struct {
		name   string
		status automation.Status
		screen []string
	}{
		{"the agent went back to work", automation.StatusBusy, []string{closedScreen}},
		{"the agent is idle", automation.StatusIdle, []string{closedScreen}},
		{"another dialog replaced it", automation.StatusWaiting, []string{otherDialog}},
		{"it closed between the pass and the write", automation.StatusWaiting, []string{dialogScreen, closedScreen}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(func(a *fakeAgent) { a.status, a.screens = c.status, c.screen })
				errc := approve(h.d, drain.Approval{Agent: "a", Keys: "1", Dialog: drain.DialogFingerprint(dialogScreen)})
				h.until(time.Second)
				if err := <-errc; !errors.Is(err, drain.ErrDialogGone) {
					t.Fatalf("Approve = %v, want ErrDialogGone", err)
				}
				if w := a.written(); len(w) != 0 {
					t.Fatalf("typed %+v into a closed dialog", w)
				}
				// The next message is typed as it is, never after a digit.
				a.set(func(a *fakeAgent) { a.status = automation.StatusIdle })
				h.store.enqueue("a", "hello")
				h.d.Wake()
				h.until(2 * time.Second)
				checkWrites(t, a.written(), []write{{1200 * ms, "hello", false}, {1340 * ms, "\r", false}})
				h.stop()
			})
		})
	}
}

func TestApprovalWithdrawnWhenItsCallerGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.status, a.screens = automation.StatusWaiting, []string{dialogScreen} })
		ctx, cancel := context.WithTimeout(context.Background(), 100*ms)
		defer cancel()
		if err := h.d.Approve(ctx, drain.Approval{Agent: "a", Keys: "1", Dialog: drain.DialogFingerprint(dialogScreen)}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Approve = %v, want the deadline", err)
		}
		h.until(time.Second)
		if w := a.written(); len(w) != 0 {
			t.Fatalf("a withdrawn approval was typed: %+v", w)
		}
		h.stop()
	})
}

func TestApprovalRefusesBadKeysAndASecondPendingOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		for _, keys := range []string{"", "1\r", "\x1b", "123456789"} {
			if err := h.d.Approve(context.Background(), drain.Approval{Agent: "a", Keys: keys}); err == nil {
				t.Errorf("keys %q accepted", keys)
			}
		}
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.status, a.screens = automation.StatusWaiting, []string{dialogScreen} })
		ap := drain.Approval{Agent: "a", Keys: "1", Dialog: drain.DialogFingerprint(dialogScreen)}
		first := approve(h.d, ap)
		synctest.Wait()
		if err := h.d.Approve(context.Background(), ap); !errors.Is(err, drain.ErrApprovalPending) {
			t.Fatalf("second Approve = %v, want ErrApprovalPending", err)
		}
		h.until(time.Second)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		checkWrites(t, a.written(), []write{{200 * ms, "1", false}})
		h.stop()
	})
}
