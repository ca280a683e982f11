package drain_test

// The drain's tunables from the office file: a per-agent cooldown and the
// office's Enter gap (the engine fills them from the settings table).

import (
	"testing"
	"testing/synctest"
	"time"

	"office/drain"
)

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
