package e2e

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// The person interrupts a message office just delivered (Esc in the first
// second of the turn): the CLI puts the interrupted prompt back on its input
// row, as Claude Code does. That text is the person's to keep or clear: the
// next queued message waits for it ("your draft") and is never typed after
// it, so the agent never gets the two merged into one prompt.
func TestRestoredPromptAfterEscHoldsTheNextMessage(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "3s"}})
	tm := o.startUI(160, 45)
	o.uiReady(tm, 1)
	o.send("a", "task one")
	o.waitFor(10*time.Second, "the delivery", func() bool { return len(o.prompts("a")) == 1 })
	tm.key("Escape")
	o.waitFor(10*time.Second, "the interrupt", func() bool {
		for _, e := range o.log("a") {
			if e.Event == "interrupt" {
				return true
			}
		}
		return false
	})
	o.send("a", "next msg")
	// The cooldown after a delivery is 4.5 s: past it, the restored prompt
	// must hold the message as the person's draft.
	o.waitFor(20*time.Second, "held: your draft", o.heldAs("a", "your draft"))
	if got := o.prompts("a"); !reflect.DeepEqual(got, []string{"task one"}) {
		t.Fatalf("typed into the restored prompt: the agent got %q", got)
	}
	tm.key("C-u")
	o.waitFor(30*time.Second, "the next message alone", func() bool { return len(o.prompts("a")) == 2 })
	if got := o.prompts("a"); got[1] != "next msg" || strings.Contains(got[1], "task one") {
		t.Fatalf("the agent got %q", got)
	}
}
