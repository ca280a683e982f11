package drain_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"office/drain"
)

// TestAHeldMessageChangedAsItIsSetAsideIsNotReportedSetAside: the agent of
// a held message is restarted, and in the instant the drain sets the
// message aside the person removes it (`office queue rm`) or releases it
// (`office queue release`). It was not set aside, so no "set aside" notice
// is sent; a removed one is gone and the message behind it goes to the new
// process, once; a released one is typed again (the person asked for it),
// then the message behind it.
func TestAHeldMessageChangedAsItIsSetAsideIsNotReportedSetAside(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // what a is typed after the first "hello"
	}{
		{"removed", "[hello behind it]"},
		{"released", "[hello hello behind it]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, nil)
				a := h.agent("a")
				a.set(func(a *fakeAgent) { a.ignoreText = 1 })
				id := h.store.enqueue("a", "hello")
				h.store.enqueue("a", "behind it")
				h.d.Wake()
				h.until(60 * time.Second)
				if got := h.d.Holds()["a"]; got != drain.HoldInterrupted {
					t.Fatalf("hold %q, want %q", got, drain.HoldInterrupted)
				}
				h.store.beforeSetAside = func(got int64) {
					if got != id {
						return
					}
					if tc.name == "removed" {
						h.store.mu.Lock()
						h.store.remove(id)
						h.store.mu.Unlock()
					} else {
						h.store.sendNow(id)
					}
				}
				a.set(func(a *fakeAgent) { a.spawned = time.Now(); a.ignoreText = 0 })
				h.d.Wake()
				h.until(140 * time.Second)
				if c := h.store.callsOf("SetAsideHeld"); len(c) != 0 {
					t.Fatalf("SetAsideHeld succeeded %+v for a message the person changed first", c)
				}
				for _, n := range h.noticeList() {
					if n.Kind == drain.NoticeSetAside {
						t.Fatalf("notice %+v: message %d was %s, not set aside", n, id, tc.name)
					}
				}
				var texts []string
				for _, w := range a.written() {
					if w.data != "\r" {
						texts = append(texts, w.data)
					}
				}
				if fmt.Sprint(texts) != tc.want {
					t.Fatalf("a got %q, want %s", texts, tc.want)
				}
				if got := h.d.Holds()["a"]; got != drain.HoldNone {
					t.Fatalf("hold %q after the queue emptied, want none", got)
				}
				h.stop()
			})
		})
	}
}
