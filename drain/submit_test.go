package drain_test

// The submit protocol: plain text, bracketed paste, line by line, the
// no-paste-mode hold, and sanitizing on the way.

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
	"office/queue"
)

func TestMultiLineIsOnePasteThenEnterAfterPasteDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"gemini"}, nil)
		a := h.agent("gemini")
		a.set(func(a *fakeAgent) {
			a.paste = true
			a.profile = drain.SubmitProfile{PasteEnterDelay: 700 * ms}
		})
		id := h.store.enqueue("gemini", "line one\n\tline two\x1b[201~\x03")
		h.d.Wake()
		h.until(2 * time.Second)
		checkWrites(t, a.written(), []write{
			{200 * ms, "\x1b[200~line one\n\tline two[201~\x1b[201~", false},
			{900 * ms, "\r", false},
		})
		checkCalls(t, h.store, "Delivered", []call{{at: 1000 * ms, id: id, agent: "gemini", arg: "verified"}})
		h.stop()
	})
}

func TestPasteDelayDefaultsToEnterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.paste = true; a.profile = drain.SubmitProfile{EnterDelay: 50 * ms} })
		h.store.enqueue("a", "x\ny")
		h.d.Wake()
		h.until(time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "\x1b[200~x\ny\x1b[201~", false}, {250 * ms, "\r", false}})
		h.stop()
	})
}

func TestLongSingleLineIsPastedOnlyWithPasteMode(t *testing.T) {
	long := strings.Repeat("x", 513)
	for _, paste := range []bool{true, false} {
		t.Run(map[bool]string{true: "paste on", false: "paste off"}[paste], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(func(a *fakeAgent) { a.paste = paste })
				h.store.enqueue("a", long)
				h.d.Wake()
				h.until(time.Second)
				text := long
				if paste {
					text = "\x1b[200~" + long + "\x1b[201~"
				}
				checkWrites(t, a.written(), []write{{200 * ms, text, false}, {340 * ms, "\r", false}})
				h.stop()
			})
		})
	}
}

func TestMultiLineWithoutPasteModeIsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.store.enqueue("a", "one\ntwo")
		h.d.Wake()
		h.until(10 * time.Second)
		if got := h.d.Holds()["a"]; got != drain.HoldNoPasteMode {
			t.Errorf("hold = %q, want %q", got, drain.HoldNoPasteMode)
		}
		if w := h.agent("a").written(); len(w) != 0 {
			t.Errorf("writes = %v, want none (never split)", w)
		}
		if q := h.store.queued("a"); len(q) != 1 {
			t.Errorf("queue = %+v, want the message kept", q)
		}
		h.stop()
	})
}

func TestCarriageReturnCountsAsANewline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		h.store.enqueue("a", "one\rtwo") // a CR would press Enter mid-text
		h.d.Wake()
		h.until(time.Second)
		if got := h.d.Holds()["a"]; got != drain.HoldNoPasteMode {
			t.Errorf("hold = %q, want %q", got, drain.HoldNoPasteMode)
		}
		h.stop()
	})
}

func TestLineByLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"sh"}, nil)
		a := h.agent("sh")
		a.set(func(a *fakeAgent) {
			a.profile = drain.SubmitProfile{LineByLine: true, Unverifiable: true}
		})
		id := h.store.enqueue("sh", "cd /tmp\r\n\nls\t-l")
		h.d.Wake()
		h.until(time.Second)
		checkWrites(t, a.written(), []write{
			{200 * ms, "cd /tmp", false}, {340 * ms, "\r", false},
			{340 * ms, "\r", false}, // the empty line: Enter alone
			{340 * ms, "ls -l", false}, {480 * ms, "\r", false},
		})
		checkCalls(t, h.store, "Delivered", []call{{at: 480 * ms, id: id, agent: "sh", arg: "unverified"}})
		h.stop()
	})
}

func TestPlainTextIsSanitized(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		h.store.enqueue("a", "你好\x1b[2J\tworld\x15\x7f\xff")
		h.d.Wake()
		h.until(time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "你好[2J world\ufffd", false}, {340 * ms, "\r", false}})
		h.stop()
	})
}

func TestNothingLeftAfterSanitizingIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		id := h.store.enqueue("a", "\x1b\x03")
		h.d.Wake()
		h.until(time.Second)
		if w := h.agent("a").written(); len(w) != 0 {
			t.Errorf("writes = %v, want none", w)
		}
		checkCalls(t, h.store, "Drop", []call{{at: 200 * ms, id: id, agent: "a", arg: "nothing left to type after sanitizing"}})
		if n := h.noticeList(); len(n) != 1 || n[0].Kind != drain.NoticeDropped {
			t.Errorf("notices = %+v, want one %q", n, drain.NoticeDropped)
		}
		h.stop()
	})
}

func TestTextRenderedAtAttemptIsWhatIsTyped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		h.store.mu.Lock()
		h.store.renderAt = func(m queue.Message) string { return "rendered: " + m.Text }
		h.store.mu.Unlock()
		id := h.store.enqueue("a", "placeholder")
		h.d.Wake()
		h.until(time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "rendered: placeholder", false}, {340 * ms, "\r", false}})
		checkCalls(t, h.store, "Delivered", []call{{at: 440 * ms, id: id, agent: "a", arg: "verified"}})
		h.stop()
	})
}

func TestPersonTypingInTheGapStopsTheEnter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		id := h.store.enqueue("a", "from the queue")
		h.d.Wake()
		// The text goes at 200 ms; the person types at 250 ms, before the
		// Enter due at 340 ms.
		go func() {
			time.Sleep(250 * time.Millisecond)
			a.set(func(a *fakeAgent) { a.block = automation.BlockDraft })
		}()
		h.until(2 * time.Second)
		checkWrites(t, a.written(), []write{{200 * ms, "from the queue", false}})
		checkCalls(t, h.store, "TypedNotSubmitted", []call{{at: 340 * ms, id: id, agent: "a"}})
		if n := len(h.store.callsOf("AttemptFailed")); n != 0 {
			t.Errorf("AttemptFailed calls = %d, want 0: nothing failed", n)
		}
		if got := h.noticeList(); len(got) != 1 || got[0].Kind != drain.NoticeTypedNotSubmitted {
			t.Errorf("notices = %+v, want one typed_not_submitted", got)
		}
		h.stop()
	})
}
