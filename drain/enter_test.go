package drain_test

// The screen is read again after the durable Writing record, before the
// first byte.

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestADialogDrawnWhileWritingIsRecordedStopsTheTyping: the screen is read
// again after the durable Writing write (it may wait on the store's lock),
// so a dialog drawn meanwhile gets no byte at all.
func TestADialogDrawnWhileWritingIsRecordedStopsTheTyping(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		defer h.stop() // also after a Fatal: Run must end inside the bubble
		a := h.agent("a")
		a.set(func(a *fakeAgent) {
			a.profile.KnownPrompt = true
			a.screens = []string{idleScreen}
		})
		h.store.mu.Lock()
		h.store.onWriting = func() {
			a.set(func(a *fakeAgent) { a.screens = []string{fullscreenOffer}; a.promptOK = false })
		}
		h.store.mu.Unlock()
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		if w := a.written(); len(w) != 0 {
			t.Fatalf("typed into a dialog drawn while writing was recorded: %+v", w)
		}
		if c := h.store.callsOf("Unattempt"); len(c) != 1 || c[0].id != id {
			t.Fatalf("Unattempt calls %+v, want one for %d", c, id)
		}
	})
}
