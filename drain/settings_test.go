package drain_test

// The drain's tunables from the office file: a per-agent cooldown and the
// office's Enter gap (the engine fills them from the settings table).

import (
	"testing"
	"testing/synctest"
	"time"

	"office/drain"
)

// The echo_wait setting bounds how long an Enter waits for its text's echo:
// a CLI that never shows the text gets its Enter that long after the gap.
func TestEchoWaitBoundsTheEnter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, func(c *drain.Config) { c.EchoWait = time.Second })
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreText = 1; a.profile.EnterAfterEcho = true })
		h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(4 * time.Second)
		// The text at 200 ms, the gap (140 ms), then up to echo_wait.
		checkWrites(t, a.written()[:2], []write{{200 * ms, "hello", false}, {1340 * ms, "\r", false}})
		h.stop()
	})
}

func TestAgentCooldownOverridesTheOffice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"slow", "fast"}, func(c *drain.Config) {
			c.Cooldown = 2 * time.Second
			c.EnterDelay = 300 * ms
		})
		h.agent("slow").set(func(a *fakeAgent) { a.profile.Cooldown = 6 * time.Second })
		for _, n := range []string{"slow", "fast"} {
			h.store.enqueue(n, "one")
			h.store.enqueue(n, "two")
		}
		h.d.Wake()
		h.until(7 * time.Second)
		// Enter 300 ms after the text (the office's enter_gap); the second
		// message after each agent's own cooldown from the first attempt.
		checkWrites(t, h.agent("fast").written(), []write{
			{200 * ms, "one", false}, {500 * ms, "\r", false},
			{2200 * ms, "two", false}, {2500 * ms, "\r", false},
		})
		checkWrites(t, h.agent("slow").written(), []write{
			{200 * ms, "one", false}, {500 * ms, "\r", false},
			{6200 * ms, "two", false}, {6500 * ms, "\r", false},
		})
		h.stop()
	})
}
