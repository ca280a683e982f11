package e2e

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"office/wire"
)

// A parent's notice carries the child's real last reply: from the CLI's own
// record (here the Stop hook a Claude-like agent runs) when it keeps one, and
// otherwise the reply region of its screen, without the input box and its
// footer (issue 13.4).
func TestParentNoticeCarriesTheChildsReply(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t,
		teamAgent{name: "lead", args: []string{"--busy", "200ms"}},
		teamAgent{name: "hooked", args: []string{"--busy", "200ms", "--hook-evidence"}, parent: "lead", role: "hooked"},
		teamAgent{name: "plain", args: []string{"--busy", "200ms"}, parent: "lead", role: "plain"},
	)
	o.startServe()
	o.mustAs("lead", "mail", "send", "--to", "hooked", "--title", "job", "summarise the parser")
	o.mustAs("lead", "mail", "send", "--to", "plain", "--title", "job", "summarise the lexer")
	// notice returns the inbox item about child (one delivery may carry
	// both notices).
	notice := func(child string) string {
		for _, p := range o.prompts("lead") {
			for item := range strings.SplitSeq(p, "</actor-notification>") {
				if strings.Contains(item, `(actor_id: `+child+`)`) {
					return item
				}
			}
		}
		return ""
	}
	o.waitFor(30*time.Second, "both notices at lead", func() bool { return notice("hooked") != "" && notice("plain") != "" })
	for _, child := range []string{"hooked", "plain"} {
		n := notice(child)
		_, result, ok := strings.Cut(n, "Result: ")
		if !ok {
			t.Fatalf("%s's notice has no result:\n%s", child, n)
		}
		for _, chrome := range []string{"? for shortcuts", "❯", "────", "esc to interrupt", "<inbox", "You have mail"} {
			if strings.Contains(result, chrome) {
				t.Errorf("%s's notice carries the screen's chrome %q:\n%s", child, chrome, n)
			}
		}
		if !strings.Contains(result, "reply: ") {
			t.Errorf("%s's notice does not carry its reply:\n%s", child, n)
		}
	}
	// The hooked child's result is exactly what its Stop hook reported: one
	// line, the reply, nothing around it.
	_, hooked, _ := strings.Cut(notice("hooked"), "Result: ")
	hooked, _, _ = strings.Cut(hooked, "\n")
	var reply string
	for _, e := range o.log("hooked") {
		if e.Event == "reply" {
			reply = e.Text
		}
	}
	if want := "reply: " + reply; reply == "" || hooked != want {
		t.Errorf("hooked result %q, want the Stop hook's reply %q\n%q", hooked, want, o.prompts("lead"))
	}
}

// The turn event carries the agent's last reply as its CLI recorded it (the
// Stop hook's), so a script following `office events` need not scrape
// `office history`; its detail names the delivery that started the turn.
func TestTurnEventCarriesTheReply(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t, teamAgent{name: "hooked", args: []string{"--busy", "200ms", "--hook-evidence"}})
	o.startServe()
	evs, stop := o.eventLines("hooked")
	defer stop()
	id := strings.TrimSpace(o.mustAs("", "send", "hooked", "summarise the parser"))
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-evs:
			if !ok {
				t.Fatal("office events ended")
			}
			if ev.Type != wire.EventTurn {
				continue
			}
			// The agent logs its reply on its own schedule, not before the
			// hook that ended the turn: wait for the line.
			var reply string
			o.waitFor(10*time.Second, "the agent's reply in its log", func() bool {
				for _, e := range o.log("hooked") {
					if e.Event == "reply" {
						reply = e.Text
					}
				}
				return reply != ""
			})
			if want := "reply: " + reply; ev.Text != want || ev.Kind != wire.TurnEnded {
				t.Fatalf("turn event %+v; want kind ended with text %q", ev, want)
			}
			// The CLI's hook reported the same prompt: it joins the turn.
			// The causes are listed as they arrived (under load the
			// hook's report can come before the drain's note of its
			// delivery); the delivery is one of them, and the event's
			// message.
			if want := "delivery " + id; !slices.Contains(strings.Split(ev.Detail, ", "), want) || strconv.FormatInt(ev.MsgID, 10) != id {
				t.Fatalf("turn event detail %q msg %d; want %q among its causes, and msg %s", ev.Detail, ev.MsgID, want, id)
			}
			return
		case <-timeout:
			t.Fatal("no turn event within 30 s")
		}
	}
}
