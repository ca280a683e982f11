package drain_test

import (
	"context"
	"errors"
	"fmt"
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

// TestDialogFingerprintBelowItsRule: Claude Code 2.1.332 draws a rule above
// its dialogs and, for about a second after its start, animates its welcome
// mascot above that rule (frames recorded from the real binary): the dialog
// stays the same dialog. What is below the rule still tells two dialogs
// apart, and a short dash run, a box's top or the dashed line Claude draws
// around a permission dialog's command is no rule.
func TestDialogFingerprintBelowItsRule(t *testing.T) {
	rule := strings.Repeat("─", 120)
	offer := "\n" + rule + "\n  Try the new fullscreen renderer?\n\n  ❯ 1. Yes, try it\n    2. Not now\n\n  Enter to confirm · Esc to cancel"
	frames := []string{
		" ▐▛███▛█   Claude Code v2.1.332\n▝▜██████▀  Opus 5.5 · API Usage Billing\n ▝▝   ▝▝   /proj",
		"▗▟▂███▂█▄  Claude Code v2.1.332\n ▜██████▘  Opus 5.5 · API Usage Billing\n ▝▝   ▝▝   /proj",
		"           Claude Code v2.1.332\n ▐▂███▂█   Opus 5.5 · API Usage Billing\n~▜██████~  /proj",
	}
	fp := drain.DialogFingerprint(frames[0] + offer)
	for i, f := range frames[1:] {
		if got := drain.DialogFingerprint(f + offer); got != fp {
			t.Errorf("mascot frame %d made it another dialog", i+2)
		}
	}
	other := strings.Replace(offer, "Not now", "Never", 1)
	if drain.DialogFingerprint(frames[0]+other) == fp {
		t.Error("another option below the rule has the same fingerprint")
	}
	idle := frames[0] + "\n\n" + rule + "\n❯ \n" + rule + "\n  ? for shortcuts"
	if drain.DialogFingerprint(idle) == fp {
		t.Error("the prompt box after the answer has the dialog's fingerprint")
	}
	for _, notRule := range []string{"  ----------", "──── short ────", "╭" + rule + "╮", strings.Repeat("╌", 120)} {
		a, b := "above one\n"+notRule+"\n"+dialogScreen, "above two\n"+notRule+"\n"+dialogScreen
		if drain.DialogFingerprint(a) == drain.DialogFingerprint(b) {
			t.Errorf("%q was read as a rule: the lines above it were dropped", notRule)
		}
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
		// Looked at by the pass, right before the write, then after it: closed.
		a.set(func(a *fakeAgent) {
			a.status, a.screens = automation.StatusWaiting, []string{movedScreen, movedScreen, closedScreen}
		})
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
		a.set(func(a *fakeAgent) {
			a.status, a.screens = automation.StatusWaiting, []string{dialogScreen, dialogScreen, closedScreen}
		})
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

// Claude Code 2.1.332 draws a blinking `● Running CMD` line and a spinner
// with a timer above its permission dialog: the fingerprint taken when it
// was forwarded still matches at every frame (3 of 4 approvals were refused
// as "another dialog" before).
func TestDialogFingerprintIgnoresWhatAnimates(t *testing.T) {
	frame := func(bullet, spin string, secs int) string {
		return fmt.Sprintf("❯ make the file\n\n%s Running touch a.txt\n%s Sautéing… (%ds · ↓ 1.2k tokens)\n\n"+
			"  Bash command\n    touch a.txt\n  Do you want to proceed?\n  ❯ 1. Yes\n    2. Yes, and switch to auto mode\n    3. No\n\n"+
			"  Tip: auto mode handles these prompts\n  Esc to cancel · Tab to amend · ctrl+e to explain · 0:%02d", bullet, spin, secs, secs)
	}
	fp := drain.DialogFingerprint(frame("●", "✻", 1))
	for i := 0; i < 10; i++ {
		bullet := map[bool]string{true: "●", false: " "}[i%2 == 0]
		spin := []string{"✻", "✶", "✳", "✢", "·", "⠂", "⠐"}[i%7]
		if got := drain.DialogFingerprint(frame(bullet, spin, i+2)); got != fp {
			t.Fatalf("frame %d (bullet %q, spinner %q) is another dialog", i, bullet, spin)
		}
	}
	other := strings.Replace(frame("●", "✻", 1), "touch a.txt", "touch b.txt", 2)
	if drain.DialogFingerprint(other) == fp {
		t.Fatal("a dialog about another command has the same fingerprint")
	}
	other = strings.Replace(frame("●", "✻", 1), "touch a.txt", "touch a1.txt", 2)
	if drain.DialogFingerprint(other) == fp {
		t.Fatal("a command differing by a digit has the same fingerprint")
	}
}

// TestApprovalOfABlinkingDialogSucceedsTenOfTen: approving while the
// dialog's frames change (a blinking bullet, a spinner, a timer) types the
// answer every time.
func TestApprovalOfABlinkingDialogSucceedsTenOfTen(t *testing.T) {
	blink := func(i int) string {
		b := map[bool]string{true: "●", false: " "}[i%2 == 0]
		return fmt.Sprintf("%s Running touch a.txt\n✻ Working… (%ds)\n  Do you want to proceed?\n  ❯ 1. Yes\n    2. No\n\n  Esc to cancel", b, i)
	}
	for try := 0; try < 10; try++ {
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t, []string{"a"}, nil)
			a := h.agent("a")
			a.set(func(a *fakeAgent) {
				a.status, a.screens = automation.StatusWaiting, []string{blink(try + 1), blink(try + 2), closedScreen}
			})
			errc := approve(h.d, drain.Approval{Agent: "a", Keys: "1", Dialog: drain.DialogFingerprint(blink(try))})
			h.until(time.Second)
			if err := <-errc; err != nil {
				t.Fatalf("try %d: %v", try, err)
			}
			checkWrites(t, a.written(), []write{{200 * ms, "1", false}})
			h.stop()
		})
	}
}

// TestApprovalTheScreenDoesNotTakeIsNotAnswered: the keys were typed but
// the dialog stays: "answered" would be a lie; the error says what the
// screen shows.
func TestApprovalTheScreenDoesNotTakeIsNotAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.status, a.screens = automation.StatusWaiting, []string{dialogScreen} })
		errc := approve(h.d, drain.Approval{Agent: "a", Keys: "2", Dialog: drain.DialogFingerprint(dialogScreen)})
		h.until(5 * time.Second)
		err := <-errc
		if !errors.Is(err, drain.ErrDialogUnchanged) || !strings.Contains(err.Error(), "Do you want to proceed?") {
			t.Fatalf("Approve = %v, want ErrDialogUnchanged quoting the screen", err)
		}
		h.stop()
	})
}

// The trust dialog of Claude Code 2.1.332, with the pointer on its first
// option (as forwarded) and on its second (the person pressed Down in the
// pane since).
const (
	trustNo  = " Quick safety check: Is this a project you created or one you trust?\n\n ❯ No, exit\n   Yes, I trust this folder\n\n Enter to confirm · Esc to cancel"
	trustYes = " Quick safety check: Is this a project you created or one you trust?\n\n   No, exit\n ❯ Yes, I trust this folder\n\n Enter to confirm · Esc to cancel"
)

// keysOf is the written keys joined by "|".
func keysOf(ws []write) string {
	var keys []string
	for _, w := range ws {
		keys = append(keys, w.data)
	}
	return strings.Join(keys, "|")
}

// TestApprovalMovesThePointerForAnUnnumberedOption: the pointer moves with
// the arrow keys from where the live screen shows it, then Enter picks the
// option.
func TestApprovalMovesThePointerForAnUnnumberedOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		// The pass, right before the write, the pointer read, before the
		// Enter; then closed.
		a.set(func(a *fakeAgent) {
			a.status, a.screens = automation.StatusWaiting, []string{trustNo, trustNo, trustNo, trustNo, closedScreen}
		})
		errc := approve(h.d, drain.Approval{Agent: "a", Target: 2, Label: "Yes, I trust this folder", Dialog: drain.DialogFingerprint(trustNo)})
		h.until(2 * time.Second)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if k := keysOf(a.written()); k != "\x1b[B|\r" {
			t.Fatalf("keys %q, want Down then Enter", k)
		}
		h.stop()
	})
}

// TestApprovalReadsThePointerOnTheLiveScreen: the dialog was forwarded with
// the pointer on "No, exit"; the person moved it to "Yes" in the pane
// without confirming. "No" is then one move up, not zero moves: Enter alone
// would pick the opposite of the answer.
func TestApprovalReadsThePointerOnTheLiveScreen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) {
			a.status, a.screens = automation.StatusWaiting, []string{trustYes, trustYes, trustYes, trustYes, closedScreen}
		})
		errc := approve(h.d, drain.Approval{Agent: "a", Target: 1, Label: "No, exit", Dialog: drain.DialogFingerprint(trustNo)})
		h.until(2 * time.Second)
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if k := keysOf(a.written()); k != "\x1b[A|\r" {
			t.Fatalf("keys %q, want Up then Enter", k)
		}
		h.stop()
	})
}

// TestApprovalRefusesAnOptionNotWhereItWas: the option's label is not at
// its place on the live screen: nothing is typed.
func TestApprovalRefusesAnOptionNotWhereItWas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.status, a.screens = automation.StatusWaiting, []string{trustNo} })
		errc := approve(h.d, drain.Approval{Agent: "a", Target: 2, Label: "No, exit", Dialog: drain.DialogFingerprint(trustNo)})
		h.until(2 * time.Second)
		err := <-errc
		if !errors.Is(err, drain.ErrDialogGone) || !strings.Contains(err.Error(), "nothing was typed") {
			t.Fatalf("Approve = %v, want ErrDialogGone, nothing typed", err)
		}
		if w := a.written(); len(w) != 0 {
			t.Fatalf("typed %+v for an option not where it was", w)
		}
		h.stop()
	})
}

// TestApprovalStopsWhenTheDialogClosesBetweenItsKeys: the dialog closed
// after the Down: the Enter is not typed (on Claude's prompt Up recalls the
// previous prompt and Enter submits it), and the error says what was typed.
func TestApprovalStopsWhenTheDialogClosesBetweenItsKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		// The pass, right before the write, the pointer read; then closed.
		a.set(func(a *fakeAgent) {
			a.status, a.screens = automation.StatusWaiting, []string{trustNo, trustNo, trustNo, closedScreen}
		})
		errc := approve(h.d, drain.Approval{Agent: "a", Target: 2, Label: "Yes, I trust this folder", Dialog: drain.DialogFingerprint(trustNo)})
		h.until(2 * time.Second)
		err := <-errc
		if !errors.Is(err, drain.ErrDialogGone) || !strings.Contains(err.Error(), "1 of its keys were typed") {
			t.Fatalf("Approve = %v, want ErrDialogGone naming the one key typed", err)
		}
		if k := keysOf(a.written()); k != "\x1b[B" {
			t.Fatalf("keys %q, want the Down only", k)
		}
		if strings.Contains(h.log.String(), "dialog answered") {
			t.Fatalf("logged answered:\n%s", h.log.String())
		}
		h.stop()
	})
}

// TestApprovalOfATranscriptShapeOnAnIdlePromptTypesNothing: an idle agent
// whose transcript draws numbered rows (a past prompt, a reply) above its
// empty prompt shows no dialog: an approval of it would type the option
// into the prompt and report it answered.
func TestApprovalOfATranscriptShapeOnAnIdlePromptTypesNothing(t *testing.T) {
	for name, transcript := range map[string]string{
		"a past prompt": "❯ 1. fix foo\n  2. fix bar\n\n● Done.\n\n",
		"a reply":       "❯ fix both\n\n● 1. Fixed foo\n  2. Fixed bar\n\n",
	} {
		for _, known := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, known prompt %v", name, known), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					screen := transcript + "❯ \n  ? for shortcuts"
					h := newHarness(t, []string{"a"}, nil)
					a := h.agent("a")
					a.set(func(a *fakeAgent) {
						a.profile.KnownPrompt = known
						a.status, a.screens = automation.StatusIdle, []string{screen}
					})
					errc := approve(h.d, drain.Approval{Agent: "a", Keys: "1", Dialog: drain.DialogFingerprint(screen)})
					h.until(time.Second)
					if err := <-errc; !errors.Is(err, drain.ErrDialogGone) {
						t.Fatalf("Approve = %v, want ErrDialogGone", err)
					}
					if w := a.written(); len(w) != 0 {
						t.Fatalf("typed %+v into the idle prompt", w)
					}
					h.stop()
				})
			})
		}
	}
}
