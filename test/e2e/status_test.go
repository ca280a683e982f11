package e2e

// End-to-end tests of the status judge and of text the CLI itself puts on
// the prompt (history recall, the prompt Claude restores after Esc).

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// statusOf returns agent's status line from `office status --json`.
func (o *office) statusOf(agent string) agentStatus {
	st, _ := o.status()
	for _, s := range st {
		if s.Name == agent {
			return s
		}
	}
	return agentStatus{}
}

// A custom command that prints nothing at all (it reads its input into a
// file) is starting during the boot grace and idle after it: a queued
// message and a mail both reach it, each once.
func TestSilentCustomAgentGetsMessageAndMailAfterBootGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the 35 s boot grace")
	}
	t.Parallel()
	o := newOffice(t)
	got := filepath.Join(o.dir, "received.txt")
	f, err := os.OpenFile(o.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[[agent]]\nname = \"quiet\"\ncommand = [\"sh\", \"-c\", %q]\n", "stty -echo; exec cat > "+got)
	f.Close()
	o.startServeUntil("the agent running", func() bool { return o.statusOf("quiet").Name != "" })
	start := time.Now()
	if s := o.statusOf("quiet"); s.Status != "starting" {
		t.Fatalf("a silent agent within the boot grace: %+v, want starting", s)
	}
	o.send("quiet", "hello silent agent")
	id := o.mustAs("", "mail", "send", "--to", "quiet", "--title", "Note", "mail body for the silent agent")
	read := func() string { b, _ := os.ReadFile(got); return string(b) }
	o.waitFor(60*time.Second, "the queued message at the agent", func() bool { return strings.Contains(read(), "hello silent agent") })
	if d := time.Since(start); d < 30*time.Second {
		t.Fatalf("delivered after %v, before the boot grace", d)
	}
	o.waitFor(30*time.Second, "the mail at the agent", func() bool { return strings.Contains(read(), "mail body for the silent agent") })
	o.waitFor(10*time.Second, "queue empty", func() bool { return len(o.queue()) == 0 })
	if s := o.statusOf("quiet"); s.Status != "idle" || s.Signal != "quiescence" {
		t.Fatalf("after the grace: %+v, want idle by quiescence", s)
	}
	text := read()
	if n := strings.Count(text, "hello silent agent"); n != 1 {
		t.Fatalf("the message arrived %d times:\n%s", n, text)
	}
	if n := strings.Count(text, "mail body for the silent agent"); n != 1 || !strings.Contains(text, id) {
		t.Fatalf("the mail %s arrived %d times:\n%s", id, n, text)
	}
	// --explain prints the judge's steps: the grace is over, quiet decides.
	out := o.must("status", "quiet", "--explain")
	if !strings.Contains(out, "boot grace 35s over") || !strings.Contains(out, "* output") {
		t.Fatalf("office status --explain:\n%s", out)
	}
}

// recallOffice is an office with one fake agent under the UI that has
// answered one prompt of the person's, now idle.
func recallOffice(t *testing.T, busy string) (*office, *tmux) {
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", busy}})
	tm := o.startUI(160, 45)
	o.uiReady(tm, 1)
	return o, tm
}

// holdsAsDraftThenArrivesAlone checks that the queued text is held as "your
// draft" while text the CLI put on the prompt sits there, and that once the
// person clears the prompt (Ctrl-U) it arrives once, alone, after want.
func holdsAsDraftThenArrivesAlone(t *testing.T, o *office, tm *tmux, queued string, want []string) {
	t.Helper()
	o.waitFor(10*time.Second, "held: your draft", o.heldAs("a", "your draft"))
	if !o.draft("a") {
		t.Fatalf("status shows no draft\n%s", o.diagnose())
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if p := o.prompts("a"); len(p) != len(want) {
			t.Fatalf("delivered into the CLI's text: %q", p)
		}
		time.Sleep(100 * time.Millisecond)
	}
	tm.key("C-u")
	o.waitFor(30*time.Second, "the queued message delivered", func() bool { return len(o.prompts("a")) == len(want)+1 })
	o.waitFor(10*time.Second, "queue empty", func() bool { return len(o.queue()) == 0 })
	if got := o.prompts("a"); !reflect.DeepEqual(got, append(want, queued)) {
		t.Fatalf("agent got %q, want %q", got, append(want, queued))
	}
}

// Up recalls the previous prompt into the input box: office did not type
// it, so it is the person's draft and holds a queued message.
func TestRecalledPromptHoldsAQueuedMessage(t *testing.T) {
	t.Parallel()
	o, tm := recallOffice(t, "200ms")
	tm.keys("my earlier prompt")
	tm.key("Enter")
	o.waitFor(20*time.Second, "the person's prompt answered", func() bool {
		return len(o.prompts("a")) == 1 && o.statusOf("a").Status == "idle"
	})
	tm.key("Up")
	o.waitFor(10*time.Second, "the recalled prompt on screen and as a draft", func() bool {
		return o.draft("a") && strings.Count(tm.screen(), "my earlier prompt") >= 2
	})
	o.send("a", "queued after the recall")
	holdsAsDraftThenArrivesAlone(t, o, tm, "queued after the recall", []string{"my earlier prompt"})
}

// Esc during a turn puts the interrupted prompt back into the input box (as
// Claude does): a message queued during the turn is held as "your draft",
// never typed after the restored text.
func TestEscRestoredPromptHoldsAQueuedMessage(t *testing.T) {
	t.Parallel()
	o, tm := recallOffice(t, "20s")
	tm.keys("a long task")
	tm.key("Enter")
	o.waitFor(10*time.Second, "busy", func() bool { return o.statusOf("a").Status == "busy" })
	o.send("a", "queued during the turn")
	o.waitFor(10*time.Second, "held: busy", o.heldAs("a", "busy"))
	tm.key("Escape")
	holdsAsDraftThenArrivesAlone(t, o, tm, "queued during the turn", []string{"a long task"})
}
