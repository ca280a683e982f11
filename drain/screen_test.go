package drain_test

// The screen gate (gate 3b): an agent whose profile defines its prompt is
// typed into only while its prompt row is found and empty and no dialog
// shows; anything else holds "unknown screen", tells the person once, and
// never times out into typing.

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"office/drain"
)

// fullscreenOffer is Claude Code 2.1.332's first-run offer: no prompt row,
// and an Enter chooses "Yes" (it writes the person's settings).
const fullscreenOffer = " Try the new fullscreen renderer?\n\n ❯ 1. Yes, try it\n   2. Not now\n\n Enter to confirm · Esc to cancel"

const idleScreen = "────────\n❯\u00a0\n────────\n  ⏵⏵ auto mode on (shift+tab to cycle)"

func TestScreenGateHolds(t *testing.T) {
	cases := []struct {
		name     string
		screen   string
		promptOK bool
		prompt   string
		want     drain.Hold
		told     bool
	}{
		{"a first-run dialog no profile lists", fullscreenOffer, false, "", drain.HoldUnknownScreen, true},
		{"a dialog shape below the prompt", idleScreen + "\n Enter to confirm · Esc to cancel", true, "", drain.HoldUnknownScreen, true},
		{"no prompt row and no dialog", "Welcome to Claude Code v2.1.332", false, "", drain.HoldUnknownScreen, true},
		{"text on the prompt row", idleScreen, true, "someone's words", drain.HoldDraft, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(func(a *fakeAgent) {
					a.profile.KnownPrompt = true
					a.screens, a.promptOK, a.prompt = []string{c.screen}, c.promptOK, c.prompt
				})
				h.store.enqueue("a", "hi")
				h.d.Wake()
				// Far past any boot grace: the hold never times out into typing.
				h.until(10 * time.Minute)
				if got := h.d.Holds()["a"]; got != c.want {
					t.Errorf("hold = %q, want %q", got, c.want)
				}
				if w := a.written(); len(w) != 0 {
					t.Errorf("writes = %v, want none", w)
				}
				if n := len(h.store.callsOf("Attempt")); n != 0 {
					t.Errorf("%d attempts, want none", n)
				}
				var told []drain.Notice
				for _, n := range h.noticeList() {
					if n.Kind == drain.NoticeUnknownScreen {
						told = append(told, n)
					}
				}
				switch {
				case !c.told && len(told) != 0:
					t.Errorf("notices %+v, want none", told)
				case c.told && len(told) != 1:
					t.Errorf("%d unknown-screen notices over 10 minutes, want exactly 1: %+v", len(told), told)
				case c.told && (told[0].Agent != "a" || !strings.Contains(told[0].Text, strings.TrimSpace(strings.SplitN(c.screen, "\n", 2)[0]))):
					t.Errorf("notice %+v does not name the agent with the screen's first line", told[0])
				}
				h.stop()
			})
		})
	}
}

// TestScreenGateTypesUnderATranscriptOfNumberedRows: Claude Code
// 2.1.332's transcript above an empty prompt draws the shape of numbered
// options (a past prompt `❯ 1. fix foo` / `  2. fix bar`, a reply `● 1.
// Fixed foo`); a dialog never sits above an empty prompt, so the message is
// typed and the person is not told of an unknown screen.
func TestScreenGateTypesUnderATranscriptOfNumberedRows(t *testing.T) {
	for name, transcript := range map[string]string{
		"a past prompt": "❯ 1. fix foo\n  2. fix bar\n\n● Done.\n\n",
		"a reply":       "❯ fix both\n\n● 1. Fixed foo\n  2. Fixed bar\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(func(a *fakeAgent) {
					a.profile.KnownPrompt = true
					a.screens = []string{transcript + idleScreen}
				})
				h.store.enqueue("a", "hi")
				h.d.Wake()
				h.until(time.Minute)
				if got := a.tookPrompts(); len(got) != 1 || got[0] != "hi" {
					t.Fatalf("prompts taken = %q, want [hi]; hold %q", got, h.d.Holds()["a"])
				}
				for _, n := range h.noticeList() {
					if n.Kind == drain.NoticeUnknownScreen {
						t.Fatalf("told of an unknown screen: %+v", n)
					}
				}
				h.stop()
			})
		})
	}
}

// TestScreenGateTypesOnceThePromptShows: the held message goes as soon as
// the dialog is gone and the empty prompt shows; a second unknown screen
// later is told again.
func TestScreenGateTypesOnceThePromptShows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) {
			a.profile.KnownPrompt = true
			a.screens, a.promptOK = []string{fullscreenOffer}, false
		})
		h.store.enqueue("a", "first")
		h.d.Wake()
		h.until(time.Minute)
		if w := a.written(); len(w) != 0 {
			t.Fatalf("typed into the dialog: %v", w)
		}
		a.set(func(a *fakeAgent) { a.screens, a.promptOK = []string{idleScreen}, true })
		h.d.Wake()
		h.until(2 * time.Minute)
		if got := a.tookPrompts(); len(got) != 1 || got[0] != "first" {
			t.Fatalf("prompts taken = %q, want [first]", got)
		}
		a.set(func(a *fakeAgent) { a.screens, a.promptOK = []string{fullscreenOffer}, false })
		h.store.enqueue("a", "second")
		h.d.Wake()
		h.until(3 * time.Minute)
		n := 0
		for _, no := range h.noticeList() {
			if no.Kind == drain.NoticeUnknownScreen {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d unknown-screen notices, want 2 (one per episode)", n)
		}
		if got := a.tookPrompts(); len(got) != 1 {
			t.Errorf("prompts taken = %q, want only the first", got)
		}
		h.stop()
	})
}

// TestScreenGateLeavesShellAlone: a profile that does not define its prompt
// (shell, custom) keeps today's rule: an unreadable screen does not hold.
func TestScreenGateLeavesShellAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) {
			a.profile.Unverifiable = true
			a.screens, a.promptOK = []string{fullscreenOffer}, false
		})
		h.store.enqueue("a", "echo hi")
		h.d.Wake()
		h.until(time.Minute)
		if len(a.written()) == 0 {
			t.Fatal("nothing typed into a shell agent")
		}
		h.stop()
	})
}
