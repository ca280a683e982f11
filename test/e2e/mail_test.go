package e2e

import (
	"strings"
	"testing"
	"time"
)

// The receiving agent's turn lasts 6 s, so the test (playing that agent)
// replies with `office mail reply` while its turn runs, after the mail went
// working; at the turn's end the envelope is done, and the reply reaches the
// sender as mail.
func TestMailRequestWithReplyReachesDone(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t,
		teamAgent{name: "lead", args: []string{"--busy", "200ms"}},
		teamAgent{name: "dev", args: []string{"--busy", "6s"}, parent: "lead", role: "reviewer"},
	)
	o.startServe()
	id := o.mustAs("lead", "mail", "send", "--to", "dev", "--request", "--title", "Review", "please review parser.go")
	o.waitFor(20*time.Second, "the request typed into dev, working", func() bool {
		return o.promptWith("dev", `id="`+id+`"`, "office mail reply "+id) && o.mailShow(id).State == "working"
	})
	// A reply from someone else is refused and does not count.
	if _, errOut, code := o.runAs("lead", "mail", "reply", id, "not mine"); code != 2 || !strings.Contains(errOut, "not allowed") {
		t.Fatalf("reply by the sender: exit %d %q", code, errOut)
	}
	rid := o.mustAs("dev", "mail", "reply", id, "LGTM, two nits")
	o.waitFor(20*time.Second, "the request done", o.mailState(id, "done"))
	o.waitFor(20*time.Second, "the reply delivered to lead", func() bool {
		return o.promptWith("lead", `id="`+rid+`"`, `in_reply_to="`+id+`"`, "LGTM, two nits")
	})
	// dev has lead as parent: its turn began with an inbox delivery, so lead
	// also got the completed notice (status not reported, with dev's last lines).
	o.waitFor(20*time.Second, "the parent notice", func() bool {
		return o.promptWith("lead", `Background sub-session "reviewer" (actor_id: dev) ended (status not reported).`)
	})
	m := o.mailShow(id)
	var states []string
	for _, e := range m.Timeline {
		states = append(states, e.State)
	}
	if got := strings.Join(states, ","); !strings.HasPrefix(got, "queued,claimed,working") || !strings.HasSuffix(got, "done") {
		t.Fatalf("timeline %s", got)
	}
	if ls := o.mustAs("", "mail", "ls", "done"); !strings.Contains(ls, id) {
		t.Fatalf("mail ls done:\n%s", ls)
	}
}

// Without a reply, the request fails with no_reply_found at the receiver's
// turn end, and the sender is told.
func TestMailRequestWithoutReplyFailsNoReplyFound(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t,
		teamAgent{name: "lead", args: []string{"--busy", "200ms"}},
		teamAgent{name: "dev", args: []string{"--busy", "300ms"}},
	)
	o.startServe()
	id := o.mustAs("lead", "mail", "send", "--to", "dev", "--request", "--title", "Question", "what is the plan?")
	o.waitFor(25*time.Second, "failed(no_reply_found)", func() bool {
		m := o.mailShow(id)
		return m.State == "failed" && m.Reason == "no_reply_found"
	})
	o.waitFor(20*time.Second, "the sender told", func() bool {
		return o.promptWith("lead", "<actor-notification", id, "no_reply_found")
	})
	if !o.promptWith("dev", "office mail reply "+id) {
		t.Fatal("dev never got the request")
	}
}

func TestMailSendErrorsWriteNothing(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t, teamAgent{name: "a"})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown receiver", []string{"mail", "send", "--to", "nobody", "hi"}, "unknown receiver"},
		{"blank body", []string{"mail", "send", "--to", "a", "  "}, "blank"},
		{"no receiver", []string{"mail", "send", "hi"}, "usage"},
		{"bad deadline", []string{"mail", "send", "--to", "a", "--deadline", "soon", "hi"}, "deadline"},
		{"reply to unknown", []string{"mail", "reply", "01NOSUCHID", "x"}, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := o.runAs("", tc.args...)
			if code != 2 || !strings.Contains(strings.ToLower(errOut), tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 naming %q", code, errOut, tc.want)
			}
		})
	}
	if ls := o.mustAs("", "mail", "ls"); ls != "no mail" {
		t.Fatalf("mail ls: %q", ls)
	}
	// Store-only: works with no office running, and the person is the sender.
	id := o.mustAs("", "mail", "send", "--to", "a", "--title", "hello", "stored, not delivered")
	if m := o.mailShow(id); m.State != "queued" || m.Sender != "person" {
		t.Fatalf("%+v", m)
	}
	if out := o.mustAs("", "inbox", "a"); !strings.Contains(out, id) {
		t.Fatalf("inbox a:\n%s", out)
	}
}
