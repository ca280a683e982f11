package drain_test

// An agent whose process exits during the submit check (docs/evidence.md,
// "An exit during the submit check"): the exit proves nothing, the records
// decide where they can, what they cannot settle is set aside.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"office/automation"
	"office/drain"
	"office/queue"
	"office/records"
)

// tookEvidence is a CLI's records that show exactly the prompts the CLI
// took, in any of its processes (a restart appends to the same records).
type tookEvidence struct {
	mu     sync.Mutex
	keeps  bool
	proven bool
	h      *harness
	olds   []*fakeAgent // processes restarted away
	mute   *fakeAgent   // a process that takes prompts without recording them (queued while busy)
	// provenFor, if set, is the one process whose prompts the records were
	// seen to record (proven is then ignored): a restart's new process is
	// not proven by its predecessor's records.
	provenFor *fakeAgent
	// unread, if set, is Received's error when the text is not found (the
	// records of the process typed into could not be read).
	unread error
}

func (e *tookEvidence) Keeps(agent string) (bool, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.provenFor != nil {
		return e.keeps, e.h.agent(agent) == e.provenFor
	}
	return e.keeps, e.proven
}

func (e *tookEvidence) Received(_ context.Context, agent, text string, _ time.Time) (string, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, a := range append(slices.Clone(e.olds), e.h.agent(agent)) {
		if a != e.mute && slices.Contains(a.tookPrompts(), text) {
			return "hook", true, nil
		}
	}
	return "", false, e.unread
}

// Handed: the processes here take typed prompts only.
func (e *tookEvidence) Handed(context.Context, string, string, time.Time) (string, bool, error) {
	return "", false, nil
}

func (e *tookEvidence) Late(_ context.Context, agent, text string, since, until time.Time) (drain.LateRecord, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var es []records.Entry
	for _, a := range append(slices.Clone(e.olds), e.h.agent(agent)) {
		if a != e.mute {
			es = append(es, a.tookRecords()...)
		}
	}
	slices.SortStableFunc(es, func(x, y records.Entry) int { return x.At.Compare(y.At) })
	en, ok, same := records.First(es, text, since, until)
	return drain.LateRecord{Any: ok, Same: same, Source: en.Source, At: en.At}, nil
}

// restart replaces agent's process, as a restart does: the old terminal
// stays exited, a new one (idle, ready) takes the name. It returns the new
// one.
func (h *harness) restart(name string, ev *tookEvidence) *fakeAgent {
	old := h.agent(name)
	old.set(func(a *fakeAgent) { a.status = automation.StatusExited })
	fresh := newFakeAgent(h.t, h.start)
	fresh.spawned = time.Now()
	h.agents.mu.Lock()
	h.agents.m[name] = fresh
	h.agents.mu.Unlock()
	if ev != nil {
		ev.mu.Lock()
		ev.olds = append(ev.olds, old)
		ev.mu.Unlock()
	}
	h.d.Wake()
	return fresh
}

// texts returns the text writes (Enters left out).
func texts(ws []write) []string {
	var out []string
	for _, w := range ws {
		if w.data != "\r" {
			out = append(out, w.data)
		}
	}
	return out
}

func TestAnExitDuringTheSubmitCheckIsSettledByEvidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		// ev is the agent's records (nil: it keeps none).
		ev *tookEvidence
		// first sets up the process typed into; it exits by itself
		// (exitOnEnter) or is restarted at 1 s.
		first func(a *fakeAgent)
		text  string
		kind  queue.Kind
		// want is what becomes of the message: "delivered", "aside" or
		// "again" (typed into the next process).
		want string
		note string // the delivered note, or the failed attempt's error, or a word of the evidence
	}{
		{name: "no records: set aside", first: swallow, text: "hello", want: "aside", note: "keeps no record"},
		{name: "records not proven for that process: set aside", ev: &tookEvidence{keeps: true}, first: swallow,
			text: "hello", want: "aside", note: "not yet seen recording"},
		{name: "proven records do not show it: typed again into the next process", ev: &tookEvidence{keeps: true, proven: true},
			first: swallow, text: "hello", want: "again", note: "its records, which record its prompts, do not show it"},
		{name: "proven records not all read (a restart into another session): set aside, never typed twice",
			ev:    &tookEvidence{keeps: true, proven: true, unread: errors.New("records moved")},
			first: swallow, text: "hello", want: "aside", note: "were not read (records moved)"},
		{name: "an inbox delivery is typed again", first: swallow, text: "<inbox/>", kind: queue.KindInbox,
			want: "again", note: "delivered again (its items carry ids)"},
		{name: "a genuine submit, then the CLI exits: the records show it", ev: &tookEvidence{keeps: true},
			first: func(a *fakeAgent) { a.exitOnEnter = true }, text: "hello", want: "delivered",
			note: "received (the agent exited before the screen showed the submit); evidence=hook"},
		{name: "a genuine submit, then the CLI exits, no records: set aside, never typed twice",
			first: func(a *fakeAgent) { a.exitOnEnter = true }, text: "hello", want: "aside", note: "keeps no record"},
		{name: "a genuine submit clears the prompt, then the CLI exits: its last screen shows the submit",
			first: func(a *fakeAgent) { a.exitOnEnter, a.clearExit = true, true }, text: "hello", want: "delivered",
			note: "verified on its last screen (the agent exited)"},
		{name: "the same with records proven for that process: they show it", ev: &tookEvidence{keeps: true, proven: true},
			first: func(a *fakeAgent) { a.exitOnEnter, a.clearExit = true, true }, text: "hello", want: "delivered",
			note: "verified on its last screen (the agent exited); evidence=hook"},
		{name: "a genuine submit, then the CLI exits and restores the terminal: set aside",
			first: func(a *fakeAgent) { a.exitOnEnter, a.restoreExit = true, true }, text: "hello", want: "aside", note: "keeps no record"},
		{name: "/exit leaves no record: set aside, never typed twice", ev: &tookEvidence{keeps: true, proven: true},
			first: func(a *fakeAgent) { a.exitOnEnter = true }, text: "/exit", want: "aside", note: "a command leaves no record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, []string{"a"}, func(c *drain.Config) {
					if tc.ev != nil {
						c.Evidence = tc.ev
					}
				})
				if tc.ev != nil {
					tc.ev.h = h
				}
				old := h.agent("a")
				old.set(tc.first)
				id := h.store.enqueue("a", tc.text, func(m *queue.Message) { m.Kind = tc.kind })
				behind := h.store.enqueue("a", "behind it")
				h.d.Wake()
				h.until(time.Second)
				var fresh *fakeAgent
				if old.Status() == automation.StatusExited {
					h.until(1500 * ms) // the CLI's own exit: restarted by its policy later
				}
				fresh = h.restart("a", tc.ev)
				h.until(60 * time.Second)

				if got := texts(old.written()); !slices.Equal(got, []string{tc.text}) {
					t.Fatalf("the first process was typed %q, want %q once", got, tc.text)
				}
				delivered := h.store.callsOf("Delivered")
				asides := h.store.callsOf("SetAside")
				switch tc.want {
				case "delivered":
					if len(delivered) != 2 || delivered[0].id != id || delivered[0].arg != tc.note || len(asides) != 0 {
						t.Fatalf("Delivered %+v, SetAside %+v: want %d delivered with %q", delivered, asides, id, tc.note)
					}
					if got := texts(fresh.written()); !slices.Equal(got, []string{"behind it"}) {
						t.Fatalf("the new process was typed %q, want only the message behind it", got)
					}
				case "aside":
					if len(asides) != 1 || asides[0].id != id || !strings.Contains(asides[0].arg, tc.note) ||
						!strings.Contains(asides[0].arg, "may or may not have reached the agent") {
						t.Fatalf("SetAside %+v: want %d set aside saying %q", asides, id, tc.note)
					}
					if len(delivered) != 1 || delivered[0].id != behind {
						t.Fatalf("Delivered %+v: want only the message behind it (%d)", delivered, behind)
					}
					if got := texts(fresh.written()); !slices.Equal(got, []string{"behind it"}) {
						t.Fatalf("the new process was typed %q: a message set aside is never typed again on its own", got)
					}
					var noticed bool
					for _, n := range h.noticeList() {
						noticed = noticed || n.Kind == drain.NoticeSetAside && n.MsgID == id &&
							strings.HasPrefix(n.Text, "message 1 set aside: a exited before its submit was seen")
					}
					if !noticed {
						t.Fatalf("notices %+v: none names the message set aside", h.noticeList())
					}
				case "again":
					fails := h.store.callsOf("AttemptFailed")
					if len(fails) != 1 || fails[0].id != id || !strings.Contains(fails[0].arg, tc.note) || len(asides) != 0 {
						t.Fatalf("AttemptFailed %+v, SetAside %+v: want one failed attempt on %d saying %q", fails, asides, id, tc.note)
					}
					if got := texts(fresh.written()); !slices.Equal(got, []string{tc.text, "behind it"}) {
						t.Fatalf("the new process was typed %q, want %q then the message behind it", got, tc.text)
					}
					if len(delivered) != 2 || delivered[0].id != id || delivered[1].id != behind {
						t.Fatalf("Delivered %+v: want %d (in the new process), then %d", delivered, id, behind)
					}
				}
				h.stop()
			})
		})
	}
}

// swallow makes the CLI ignore Enters (not ready to take them yet, as Codex
// and Gemini are before they are ready).
func swallow(a *fakeAgent) { a.ignoreEnter = 99 }

// The second Enter cannot be written because the process is gone: the first
// one reached it, so the exit rule settles the message, not "typed, not
// submitted" (the prompt it would sit on died with the process).
func TestAnExitAtTheSecondEnterIsSettledByEvidence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, []string{"a"}, nil)
		a := h.agent("a")
		a.set(func(a *fakeAgent) { a.ignoreEnter = 99 })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2500 * ms) // after the first check, before the second Enter
		a.set(func(a *fakeAgent) { a.writeErr, a.exitOnFail = errors.New("pty closed"), true })
		h.until(10 * time.Second)
		if c := h.store.callsOf("TypedNotSubmitted"); len(c) != 0 {
			t.Fatalf("TypedNotSubmitted %+v for a text whose prompt died with the process", c)
		}
		if c := h.store.callsOf("SetAside"); len(c) != 1 || c[0].id != id {
			t.Fatalf("SetAside %+v, want message %d set aside", c, id)
		}
		h.stop()
	})
}

// The screen saw the agent turn busy, but its records (which record its
// prompts) never show the text, and then the process exits: whatever it had
// queued went with it, so it is a failed attempt, typed again into the next
// process, not "typed, not submitted" on a prompt that is gone.
func TestAnExitWhileTheRecordsAreAwaitedIsAFailedAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ev := &tookEvidence{keeps: true, proven: true}
		h := newHarness(t, []string{"a"}, func(c *drain.Config) { c.Evidence = ev })
		ev.h, ev.mute = h, h.agent("a")
		h.agent("a").set(func(a *fakeAgent) { a.busyOnEnter = true })
		id := h.store.enqueue("a", "hello")
		h.d.Wake()
		h.until(2 * time.Second)
		fresh := h.restart("a", ev)
		h.until(30 * time.Second)
		if c := h.store.callsOf("TypedNotSubmitted"); len(c) != 0 {
			t.Fatalf("TypedNotSubmitted %+v for a text whose prompt died with the process", c)
		}
		fails := h.store.callsOf("AttemptFailed")
		if len(fails) != 1 || fails[0].id != id || !strings.Contains(fails[0].arg, "exited before it took the text") {
			t.Fatalf("AttemptFailed %+v, want one on %d: exited before it took the text", fails, id)
		}
		if got := texts(fresh.written()); !slices.Equal(got, []string{"hello"}) {
			t.Fatalf("the new process was typed %q, want hello once", got)
		}
		h.stop()
	})
}
