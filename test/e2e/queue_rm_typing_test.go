package e2e

import (
	"strings"
	"testing"
	"time"
)

// `office queue rm` (or clear) of a message the drain is typing now removes
// it, and says what that means: the drain finishes typing, finds it gone and does
// not press Enter, so what was typed stays on the prompt, not submitted.
func TestQueueRmWhileTypingSaysTheTextStaysUnsubmitted(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"}, agentSpec{name: "b"})
	o.startServe()
	// Long enough to be typed for several seconds.
	id := o.send("a", strings.Repeat("q", 400_000))
	o.waitFor(20*time.Second, "the message being typed", o.heldAs("a", "delivering"))
	_, errOut, code := o.run("", "queue", "rm", id)
	if code != 0 {
		t.Fatalf("queue rm %s: exit %d: %s", id, code, errOut)
	}
	if want := "message " + id + " was being typed into a: what was typed stays on its prompt, not submitted"; !strings.Contains(errOut, want) {
		t.Fatalf("queue rm said %q, want it to say %q", errOut, want)
	}
	o.waitFor(60*time.Second, "the typed text left as a draft", func() bool { return o.draft("a") })
	if p := o.prompts("a"); len(p) != 0 {
		t.Fatalf("a removed message was submitted: %d prompt(s)", len(p))
	}
	// clear says the same of the message it finds being typed.
	id = o.send("b", strings.Repeat("r", 400_000))
	o.waitFor(20*time.Second, "b's message being typed", o.heldAs("b", "delivering"))
	out, errOut, code := o.run("", "queue", "clear", "b")
	if code != 0 || !strings.Contains(out, "cleared 1 message(s) for b") ||
		!strings.Contains(errOut, "message "+id+" was being typed into b") {
		t.Fatalf("queue clear: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	// A message that is only queued goes without a word.
	o.must("pause", "a")
	id = o.send("a", "later")
	if _, errOut, code = o.run("", "queue", "rm", id); code != 0 || errOut != "" {
		t.Fatalf("queue rm of a queued message: exit %d, %q", code, errOut)
	}
}
