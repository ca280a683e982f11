package e2e

import (
	"strings"
	"testing"
	"time"
)

// `office queue rm` (or clear) of a message the drain is typing now removes
// it, and says what that means: the drain finishes typing, finds it gone and
// does not press Enter, so what was typed stays on the prompt, not submitted.
func TestQueueRmWhileTypingSaysTheTextStaysUnsubmitted(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"}, agentSpec{name: "b"})
	o.startServe()
	// catch queues a long message (typed for a few seconds) for agent and
	// runs edit while the drain types it; on a loaded machine the drain may
	// get to its Enter first, so it tries again, up to 3 times. It returns the message's id,
	// edit's stdout and stderr, and how many prompts agent had submitted before that try.
	catch := func(agent string, fill string, edit func(id string) []string) (string, string, string, int) {
		t.Helper()
		for try := 0; try < 3; try++ {
			before := len(o.prompts(agent))
			id := o.send(agent, strings.Repeat(fill, 1_000_000))
			o.waitFor(30*time.Second, agent+"'s message being typed", func() bool {
				for _, q := range o.queue() {
					if q.Agent == agent {
						return q.Held == "delivering"
					}
				}
				return true // delivered already
			})
			out, errOut, code := o.run("", edit(id)...)
			if code == 0 && strings.Contains(errOut, "was being typed") {
				return id, out, errOut, before
			}
			// Else the edit missed the typing: the message was delivered
			// before it (not found, nothing cleared), its Enter was under
			// way (the edit says it may have reached the agent), or the
			// drain had claimed it but not begun to write (the queue says
			// delivering from the claim on; removed silently, nothing is
			// typed: were it typed, it would hold the next try's message
			// behind a draft and that try would time out).
			raced := code != 0 && strings.Contains(errOut, "not found") ||
				code == 0 && (errOut == "" || strings.Contains(errOut, "was being submitted to "+agent+": it may have reached the agent"))
			if !raced {
				t.Fatalf("office %q: exit %d, stdout %q, stderr %q", edit(id), code, out, errOut)
			}
			// Wait for the turn, then again.
			o.waitFor(60*time.Second, agent+" idle", func() bool {
				st, _ := o.status()
				for _, s := range st {
					if s.Name == agent {
						return s.Status == "idle" && len(o.queue()) == 0
					}
				}
				return false
			})
		}
		t.Fatalf("the drain finished typing %s's message before every edit", agent)
		return "", "", "", 0
	}
	id, _, errOut, before := catch("a", "q", func(id string) []string { return []string{"queue", "rm", id} })
	if want := "message " + id + " was being typed into a: what was typed stays on its prompt, not submitted"; !strings.Contains(errOut, want) {
		t.Fatalf("queue rm said %q, want it to say %q", errOut, want)
	}
	o.waitFor(60*time.Second, "the typed text left as a draft", func() bool { return o.draft("a") })
	if p := o.prompts("a"); len(p) != before {
		t.Fatalf("a removed message was submitted: %d prompt(s), %d before", len(p), before)
	}

	// clear says the same of the message it finds being typed.
	id, out, errOut, _ := catch("b", "r", func(string) []string { return []string{"queue", "clear", "b"} })
	if !strings.Contains(out, "cleared 1 message(s) for b") || !strings.Contains(errOut, "message "+id+" was being typed into b") {
		t.Fatalf("queue clear: stdout %q, stderr %q", out, errOut)
	}

	// A message that is only queued goes without a word.
	o.must("pause", "a")
	id = o.send("a", "later")
	if _, errOut, code := o.run("", "queue", "rm", id); code != 0 || errOut != "" {
		t.Fatalf("queue rm of a queued message: exit %d, %q", code, errOut)
	}
}
