package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

// limitBanner makes the fake agent's reply to "LIMITX …" the claude
// profile's usage-limit banner (the fake agent answers "● reply: TEXT"),
// its "again in …" the reset.
const limitBanner = "\n[profile.claude.limits]\nbanners = [\"reply: LIMITX\"]\nresets = [\"again in \"]\n"

// The terminal UI ends a usage-limit hold early: r on the needs-you list's
// usage-limit item calls the running server's limit_release (the real
// binary in tmux, the fake agent in a PTY printing the banner), the status
// line names the agent, and the message held for the limit is typed hours
// before the reset it printed.
func TestUIResumesAUsageLimitFromTheNeedsList(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a0", args: []string{"--busy", "50ms"}})
	f, err := os.OpenFile(o.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(limitBanner); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	tm := o.startUI(120, 40)
	o.uiReady(tm, 1)
	o.send("a0", "LIMITX again in 5 hours")
	o.waitFor(20*time.Second, "a0 held for its usage limit", o.statusIs("a0", "usage limit"))
	// The list has the hold once a message waits on it.
	o.send("a0", "hello")
	tm.key("C-]")
	tm.keys("!")
	o.waitFor(10*time.Second, "the usage-limit item in the list", func() bool {
		s := tm.screen()
		return strings.Contains(s, "a0 usage limit") && strings.Contains(s, "r resume a usage limit now")
	})
	tm.keys("r")
	o.waitFor(10*time.Second, "the release said", func() bool {
		return strings.Contains(tm.screen(), "usage-limit hold ended early: a0 resume")
	})
	o.waitFor(20*time.Second, "the held message typed hours before the reset", func() bool {
		p := o.prompts("a0")
		return len(p) == 2 && p[1] == "hello"
	})
}
