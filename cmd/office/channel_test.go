package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"office/queue"
)

// The channel end to end through the real server, socket and store
// (docs/channels.md): mail from another agent, queued while the agent is
// busy, is handed over by `office hook Stop`'s answer
// ({"decision":"block","reason":TEXT}) instead of typed, claimed in the
// store (the attempt, then "handed" naming the channel) and delivered;
// the judge reads the agent busy through the Stop it answered; `office
// status --explain` names the channel; and the person's own message is
// not handed over (the hook prints nothing) but typed.
func TestHookStopHandsMailOver(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	// A CLI whose hooks are Claude's (office writes its settings file and
	// passes --settings, which sh takes as $1 $2): the agent is cat.
	body := "brief = false\n\n[profile.ch]\ncommand = [\"sh\", \"-c\", \"exec cat\", \"sh\"]\nhooks = \"claude\"\nchannel = \"stop_hook\"\n\n" +
		"[[agent]]\nname = \"a1\"\nprofile = \"ch\"\nboot_grace = \"1s\"\n\n[[agent]]\nname = \"b2\"\ncommand = [\"cat\"]\n"
	if err := os.WriteFile(o.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o.serve()
	hook := func(event, payload string) result {
		t.Helper()
		o.env["OFFICE_AGENT"] = "a1"
		defer delete(o.env, "OFFICE_AGENT")
		r := o.cmd(payload, "hook", event)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("office hook %s: %d %q", event, r.code, r.stderr)
		}
		return r
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waited 15 s for %s", what)
			}
		}
	}
	// Busy: a prompt's turn runs (past the boot grace).
	waitFor("a1 out of its boot grace", func() bool {
		hook("UserPromptSubmit", `{"hook_event_name":"UserPromptSubmit","prompt":"work"}`)
		return strings.Contains(rowOf(o.cmd("", "status").stdout, "a1"), "busy")
	})
	o.env["OFFICE_AGENT"] = "b2"
	if r := o.cmd("", "mail", "send", "--to", "a1", "please review the patch"); r.code != 0 {
		t.Fatalf("office mail: %d %q", r.code, r.stderr)
	}
	delete(o.env, "OFFICE_AGENT")
	waitFor("the mail's delivery queued for a1", func() bool { return len(o.messages()) == 1 })

	// A payload that does not decode, or one past the read bound, leaves
	// the turn's blocks uncounted: nothing is handed over.
	big := `{"hook_event_name":"Stop","prompt_id":"p1","stop_hook_active":false,"last_assistant_message":"` +
		strings.Repeat("x", maxHookPayload) + `"}`
	for name, payload := range map[string]string{"not JSON": `{"hook_event_name":"Stop","prompt_id":`, "over the read bound": big} {
		if r := hook("Stop", payload); r.stdout != "" {
			t.Fatalf("office hook Stop with a payload %s handed over %q", name, r.stdout)
		}
	}
	if len(o.messages()) != 1 {
		t.Fatalf("queue %+v: want the mail still queued", o.messages())
	}

	r := hook("Stop", `{"hook_event_name":"Stop","prompt_id":"p1","stop_hook_active":false}`)
	var answer struct{ Decision, Reason string }
	if err := json.Unmarshal([]byte(r.stdout), &answer); err != nil || answer.Decision != "block" ||
		!strings.Contains(answer.Reason, "please review the patch") {
		t.Fatalf("office hook Stop printed %q (%v), want a block answer carrying the mail", r.stdout, err)
	}

	s, err := queue.Open(filepath.Join(o.state, "office.db"), queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var kinds []string
	waitFor("the hand-over delivered", func() bool {
		evs, err := s.Events(context.Background(), 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		kinds = kinds[:0]
		for _, ev := range evs {
			if ev.MsgID != 0 && ev.Agent == "a1" {
				kinds = append(kinds, ev.Kind+":"+ev.Detail)
			}
		}
		return slices.Contains(kinds, "delivered:handed over (stop hook); evidence=hook answer")
	})
	if !slices.Contains(kinds, "handed:stop hook") {
		t.Errorf("events %q: no handed event naming the channel", kinds)
	}

	x := o.cmd("", "status", "--explain", "a1").stdout
	for _, want := range []string{"a1 (ch): busy", "Stop (answered with a message: the turn goes on)", "delivery: stop hook (last delivered: message 1, stop hook)"} {
		if !strings.Contains(x, want) {
			t.Errorf("status --explain a1:\n%s\nwant %q", x, want)
		}
	}

	// The person's own words are typed: the next Stop hands nothing over.
	if r := o.cmd("", "send", "a1", "from the person"); r.code != 0 {
		t.Fatalf("office send: %d %q", r.code, r.stderr)
	}
	if r := hook("Stop", `{"hook_event_name":"Stop","prompt_id":"p1","stop_hook_active":true}`); r.stdout != "" {
		t.Fatalf("office hook Stop handed the person's message over: %q", r.stdout)
	}
	waitFor("the person's message typed", func() bool { return len(o.messages()) == 0 })

	// Mail from the person too: the inbox delivery carrying their item is
	// not handed over.
	hook("UserPromptSubmit", `{"hook_event_name":"UserPromptSubmit","prompt":"more work"}`)
	if r := o.cmd("", "mail", "send", "--to", "a1", "the person's mail"); r.code != 0 {
		t.Fatalf("office mail as the person: %d %q", r.code, r.stderr)
	}
	waitFor("the person's mail queued for a1", func() bool { return len(o.messages()) == 1 })
	if r := hook("Stop", `{"hook_event_name":"Stop","prompt_id":"p2","stop_hook_active":false}`); r.stdout != "" {
		t.Fatalf("office hook Stop handed the person's mail over: %q", r.stdout)
	}
	// It waits for typing (cat takes no bracketed paste, so the batch's
	// lines hold it "no paste mode"): the channel never took it.
	waitFor("the person's mail held for typing", func() bool {
		x = o.cmd("", "status", "--explain", "a1").stdout
		return strings.Contains(x, "held: no paste mode")
	})
	if !strings.Contains(x, "last delivered: message 2, typed") || len(o.messages()) != 1 {
		t.Errorf("status --explain a1:\n%s\nwant the last delivery typed, the mail still queued", x)
	}
}
