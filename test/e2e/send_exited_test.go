package e2e

import (
	"strings"
	"testing"
	"time"
)

// A message sent to an agent whose process exited is queued (it is typed
// once the agent runs again), and `office send` says so on stderr rather
// than print an id alone as if it were on its way; a send to a running
// agent says nothing more.
func TestSendToAnExitedAgentSaysItWaits(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--exit-code", "3"}}, agentSpec{name: "b"})
	o.startServe()
	if _, errOut, code := o.run("hello", "send", "b", "-"); code != 0 || errOut != "" {
		t.Fatalf("send to a running agent: exit %d, stderr %q", code, errOut)
	}
	o.send("a", "/exit")
	o.waitFor(20*time.Second, "a exited", func() bool {
		st, _ := o.status()
		for _, s := range st {
			if s.Name == "a" {
				return s.Status == "exited"
			}
		}
		return false
	})
	out, errOut, code := o.run("after the exit", "send", "a", "-")
	id := strings.TrimSpace(out)
	if code != 0 || id == "" {
		t.Fatalf("send to an exited agent: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if want := "office: a exited with code 3: message " + id + " waits until it runs again"; !strings.Contains(errOut, want) {
		t.Fatalf("stderr %q, want it to say %q", errOut, want)
	}
	o.waitFor(20*time.Second, "the message held: exited", func() bool {
		for _, q := range o.queue() {
			if q.Text == "after the exit" {
				return q.Held == "exited"
			}
		}
		return false
	})
}
