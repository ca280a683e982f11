package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Two windows of different sizes on one office: the larger one types last,
// so it decides the agent's size (docs/commands.md, "Several windows"), and the
// smaller one shows the rows around the agent's cursor, as tmux pans a
// smaller client: the prompt row with the typed text and the footer under
// it, not the top of the agent's screen.
func TestASmallerWindowShowsTheAgentsPromptBox(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	big := o.startUI(200, 50)
	o.uiReady(big, 1)
	envs := strings.Join(o.env(), " ")
	big.cmd("new-session", "-d", "-x", "100", "-y", "20", "-s", "small",
		fmt.Sprintf("env -i %s %s --config %s --state %s", envs, officeBin, o.config, o.state))
	small := func() string { return big.cmd("capture-pane", "-p", "-t", sessionTarget("small")) }
	o.waitFor(20*time.Second, "the small window attached", func() bool { return strings.Contains(small(), "a · claude") })
	// The big window acts last: the agent takes its pane's size again.
	big.keys("seen in both")
	o.waitFor(20*time.Second, "the agent sized by the big window", func() bool {
		for _, e := range o.log("a") {
			if e.Event == "resize" && e.Rows > 30 {
				return strings.Contains(big.screen(), "seen in both")
			}
		}
		return false
	})
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("the small window:\n%s", last)
		}
	}()
	o.waitFor(20*time.Second, "the prompt box in the small window", func() bool {
		last = small()
		return strings.Contains(last, "seen in both") && strings.Contains(last, "? for shortcuts")
	})
}
