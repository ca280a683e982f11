package realcli

// Issue 27's office side on the real Claude Code (docs/channels.md, "What is
// built"): office's own Stop hook (`office hook Stop`, from the --settings
// file it writes) hands the queue's head over at a turn's end. No hook of the
// test's own: the answer is the server's.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/engine"
	"office/inbox"
	"office/queue"
	"office/records"
	"office/test/fakemodel"
	"office/wire"
)

// mailFrom queues mail text from another agent (peer) to the rig's agent, as
// `office mail send` run by that agent does, and pokes the server so the
// inbox schedules its delivery now.
func (r *rig) mailFrom(peer, text string) {
	r.t.Helper()
	if _, _, err := r.eng.Inbox().Send(context.Background(), inbox.Message{To: r.cli, From: peer, Body: text}); err != nil {
		r.t.Fatal(err)
	}
	if _, err := engine.Do(context.Background(), r.state, wire.OpPoke, "", wire.None{}); err != nil {
		r.t.Fatal(err)
	}
}

// deliveredNotes returns the delivery notes of the agent's messages, by id.
func (r *rig) deliveredNotes() map[int64]string {
	r.t.Helper()
	evs, err := r.eng.Store().Events(context.Background(), 0, 10000)
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[int64]string{}
	for _, ev := range evs {
		if ev.Agent == r.cli && ev.Kind == queue.EventDelivered {
			out[ev.MsgID] = ev.Detail
		}
	}
	return out
}

// sinceStop is how long before at the last Stop hook call before it came
// (the hook log office keeps: the record is written as the hook starts).
func (r *rig) sinceStop(at time.Time) time.Duration {
	r.t.Helper()
	hs, err := records.ReadHooks(filepath.Join(r.state, "agents", r.cli, records.HookLogFile))
	if err != nil {
		r.t.Fatal(err)
	}
	var last time.Time
	for _, h := range hs {
		if h.Event == "Stop" && h.At.Before(at) {
			last = h.At
		}
	}
	return at.Sub(last).Round(10 * time.Millisecond)
}

// stopSince reports whether office's hook log has a Stop recorded after at.
func (r *rig) stopSince(at time.Time) bool {
	r.t.Helper()
	hs, err := records.ReadHooks(filepath.Join(r.state, "agents", r.cli, records.HookLogFile))
	if err != nil {
		r.t.Fatal(err)
	}
	for _, h := range hs {
		if h.Event == "Stop" && h.At.After(at) {
			return true
		}
	}
	return false
}

// handedNotes returns the notes of the deliveries the channel carried.
func handedNotes(notes map[int64]string) []string {
	var out []string
	for _, n := range notes {
		if strings.HasPrefix(n, "handed over (") {
			out = append(out, n)
		}
	}
	return out
}

// TestClaudeOfficeChannel: mail from another agent, queued while Claude is
// busy and the person has a draft on the prompt, arrives at the turn's end
// through office's Stop hook, once, confirmed by the transcript
// (records.Handed); the agent reads busy while the handed-over turn runs;
// the draft is untouched. Then with channel_blocks = 2 the third mail of
// one turn is not handed over: the turn ends and it is typed.
func TestClaudeOfficeChannel(t *testing.T) {
	r := newRig(t, "claude")
	r.top = "channel_blocks = 2\n"
	r.start()
	const draft = "half typed draft words"

	t.Run("mail queued while busy is handed over at the turn's end", func(t *testing.T) {
		r.t = t
		r.srv.Hold()
		r.send("TASK-ONE write the parser")
		r.waitFor(30*time.Second, "the task at the model", func() bool { return r.countPrompts("TASK-ONE") == 1 })
		r.waitFor(10*time.Second, "busy", func() bool { return r.statusIs("busy") })
		time.Sleep(500 * time.Millisecond)
		r.input(draft)
		r.waitFor(10*time.Second, "the draft on the prompt row", func() bool {
			txt, ok := r.agent().Term.Prompt()
			return ok && strings.Contains(txt, draft)
		})
		r.mailFrom("peer", "MAIL-ONE please review the patch")
		r.waitFor(10*time.Second, "the mail's delivery queued", func() bool { return len(r.queued()) == 1 })
		r.srv.Release()
		r.waitFor(30*time.Second, "the mail at the model", func() bool { return turnsWith(r.srv, "MAIL-ONE") >= 1 })
		// The continuation is held at the model (its reply waits past the
		// fake's 1 s delay): office must read busy through it (the Stop it
		// answered is no idle), and type nothing.
		r.srv.Hold()
		var seen []string
		for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if st := r.status(); st.Status != "busy" {
				seen = append(seen, st.Status+" ("+st.Signal+")")
			}
		}
		r.srv.Release()
		if len(seen) > 0 {
			t.Errorf("office read the handed-over turn as %v, want busy throughout", seen)
		}
		r.waitFor(30*time.Second, "idle, the queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
		// The handed-over turn has ended (a Stop after the model's request
		// carrying the mail reached office's hook log) and its delivery is
		// settled: nothing can type or hand it over again after that.
		q, _ := firstTurnWith(r.srv, "MAIL-ONE")
		r.waitFor(30*time.Second, "the handed-over turn's Stop and the hand-over settled", func() bool {
			return r.stopSince(q.At) && len(handedNotes(r.deliveredNotes())) >= 1
		})

		if n := turnsWith(r.srv, "MAIL-ONE"); n != 1 {
			t.Errorf("the mail reached the model in %d requests, want 1", n)
		}
		t.Logf("turn end (office hook Stop) -> the handed-over mail at the model: %v", r.sinceStop(q.At))
		if got := fakemodel.LastUserText(q); !strings.HasPrefix(got, "<system-reminder>\n"+claudeHookLead+"\nStop hook feedback:\n") {
			t.Errorf("the model received the mail as\n%q\nwant Claude's Stop hook feedback", truncate(got, 400))
		}
		notes := r.deliveredNotes()
		if h := handedNotes(notes); len(h) != 1 || h[0] != "handed over (stop hook); evidence=transcript" {
			t.Errorf("delivery notes %v, want one handed over by the stop hook, confirmed by the transcript", notes)
		}
		es := recordsFor(t, r)
		if _, _, ok := records.Received(es, "MAIL-ONE please review the patch", time.Time{}, nil); ok {
			t.Error("the mail was typed as a prompt")
		}
		if txt, ok := r.agent().Term.Prompt(); !ok || strings.TrimSpace(txt) != draft {
			t.Errorf("the person's draft after the handed-over turn: %q (found %v), want %q unchanged\n%s", txt, ok, draft, r.diagnose())
		}
		x := r.officeCmd("status", "--explain", r.cli)
		if !strings.Contains(x, "delivery: stop hook (last delivered: message ") || !strings.Contains(x, ", stop hook)") {
			t.Errorf("status --explain does not name the channel:\n%s", x)
		}
	})

	t.Run("past channel_blocks the rest is typed", func(t *testing.T) {
		r.t = t
		r.input(strings.Repeat("\x7f", len(draft)))
		r.waitFor(10*time.Second, "the draft gone", func() bool {
			txt, _ := r.agent().Term.Prompt()
			return !strings.Contains(txt, "half typed")
		})
		before := len(handedNotes(r.deliveredNotes()))
		r.srv.Hold()
		r.send("TASK-TWO go on")
		r.waitFor(30*time.Second, "the task at the model", func() bool { return r.countPrompts("TASK-TWO") == 1 })
		// One mail per turn boundary: each is queued while the turn
		// before it is held at the model.
		for i, m := range []string{"MAIL-A first", "MAIL-B second", "MAIL-C third"} {
			r.mailFrom("peer", m)
			r.waitFor(10*time.Second, "the mail's delivery queued", func() bool { return len(r.queued()) == 1 })
			r.srv.Release()
			if i < 2 {
				mark := strings.Fields(m)[0]
				r.waitFor(30*time.Second, mark+" at the model", func() bool { return turnsWith(r.srv, mark) >= 1 })
				r.srv.Hold()
				q, _ := firstTurnWith(r.srv, mark)
				t.Logf("turn end (office hook Stop) -> %s at the model: %v", mark, r.sinceStop(q.At))
				r.waitFor(10*time.Second, mark+" confirmed", func() bool { return len(handedNotes(r.deliveredNotes())) == before+i+1 })
			}
		}
		r.waitFor(60*time.Second, "MAIL-C typed at the model", func() bool { return turnsWith(r.srv, "MAIL-C") >= 1 })
		r.waitFor(30*time.Second, "idle, the queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
		if got := len(handedNotes(r.deliveredNotes())) - before; got != 2 {
			t.Errorf("%d mails handed over in the turn, want channel_blocks = 2", got)
		}
		for _, m := range []string{"MAIL-A", "MAIL-B", "MAIL-C"} {
			if n := turnsWith(r.srv, m); n != 1 {
				t.Errorf("%s reached the model in %d requests, want 1", m, n)
			}
		}
		if _, _, ok := records.Received(recordsFor(t, r), "MAIL-C third", time.Time{}, nil); !ok {
			t.Errorf("MAIL-C was not typed as a prompt\n%s", r.diagnose())
		}
		if strings.Contains(r.screen(), "consecutive times") {
			t.Error("Claude's own cap ended the turn: office handed over more than channel_blocks")
		}
	})
}

// TestCodexOfficeChannel: with delivery = "auto" a codex agent gets
// office's Stop hook as -c hooks.Stop=[…] (never
// --dangerously-bypass-hook-trust), and Codex asks the person to review it.
// Skipped, the hook never runs: the first turn's end says so once (a
// notice) and messages are typed. Trusted by the person, mail queued while
// Codex is busy is handed over at the turn's end, once, confirmed by the
// rollout's HookPrompt event (records.Handed).
func TestCodexOfficeChannel(t *testing.T) {
	r := newRig(t, "codex")
	r.extra = "delivery = \"auto\"\n"
	const dialog = "Hooks need review"
	dialogUp := func() bool { return strings.Contains(r.screen(), dialog) }
	// The notice is live (as boot_overdue's): its log line counts it.
	silent := func() int {
		b, _ := os.ReadFile(filepath.Join(r.root, "office.log"))
		return strings.Count(string(b), "a turn ended with no Stop hook call")
	}

	r.startUntil(60*time.Second, "the hook review dialog", dialogUp)
	// The engine logs each start's argv.
	logb, _ := os.ReadFile(filepath.Join(r.root, "office.log"))
	if argv := string(logb); !strings.Contains(argv, `hooks.Stop=[{hooks=[{type=\"command\",command=`) ||
		!strings.Contains(argv, ` hook Stop\"}]}]`) || strings.Contains(argv, "bypass") {
		t.Fatalf("office.log:\n%s\nwant codex started with office's Stop hook as -c, no trust bypass", argv)
	}
	// Skipped: no hook runs; the turn's end tells the person once, and the
	// message is typed.
	r.waitFor(10*time.Second, "waiting behind the review dialog", func() bool { return r.statusIs("waiting") })
	time.Sleep(time.Second) // a person's moment: an Esc as the dialog draws made Codex exit
	r.input("\x1b")
	r.waitFor(30*time.Second, "idle after the skip", func() bool { return r.statusIs("idle") && !dialogUp() })
	r.send("SKIP-TASK say hi")
	r.waitFor(30*time.Second, "the task at the model", func() bool { return r.countPrompts("SKIP-TASK") == 1 })
	r.waitFor(30*time.Second, "idle after the turn", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	r.waitFor(10*time.Second, "the notice that the hook did not run", func() bool { return silent() == 1 })
	r.send("SKIP-TASK-TWO say hi")
	r.waitFor(30*time.Second, "the second task at the model", func() bool { return r.countPrompts("SKIP-TASK-TWO") == 1 })
	r.waitFor(30*time.Second, "idle after the turn", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	time.Sleep(time.Second)
	if n := silent(); n != 1 {
		t.Errorf("%d notices that the hook did not run, want 1 per process", n)
	}

	// The person trusts it (2. Trust all and continue) at the next start.
	r.stop()
	r.startUntil(60*time.Second, "the hook review dialog again", dialogUp)
	time.Sleep(500 * time.Millisecond)
	r.input("\x1b[B")
	r.waitFor(10*time.Second, "the pointer on Trust all", func() bool { return strings.Contains(r.screen(), "› 2. Trust all") })
	time.Sleep(300 * time.Millisecond)
	r.input("\r")
	r.waitFor(30*time.Second, "idle after trusting", func() bool { return r.statusIs("idle") && !dialogUp() })

	r.srv.Hold()
	r.send("TASK-CODEX write the parser")
	r.waitFor(30*time.Second, "the task at the model", func() bool { return r.countPrompts("TASK-CODEX") == 1 })
	r.waitFor(10*time.Second, "busy", func() bool { return r.statusIs("busy") })
	r.mailFrom("peer", "MAIL-CODEX please review the patch")
	r.waitFor(10*time.Second, "the mail's delivery queued", func() bool { return len(r.queued()) == 1 })
	r.srv.Release()
	r.waitFor(30*time.Second, "the mail at the model", func() bool { return turnsWith(r.srv, "MAIL-CODEX") >= 1 })
	r.waitFor(30*time.Second, "idle, the queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	time.Sleep(2 * time.Second)
	if n := turnsWith(r.srv, "MAIL-CODEX"); n != 1 {
		t.Errorf("the mail reached the model in %d requests, want 1", n)
	}
	q, _ := firstTurnWith(r.srv, "MAIL-CODEX")
	if got := fakemodel.LastUserText(q); !strings.HasPrefix(got, "<hook_prompt ") {
		t.Errorf("the model received the mail as %q, want Codex's hook prompt", truncate(got, 300))
	}
	if h := handedNotes(r.deliveredNotes()); len(h) != 1 || h[0] != "handed over (stop hook); evidence=session record" {
		t.Errorf("hand-overs %q, want one confirmed by the session record\n%s", h, r.diagnose())
	}
	if n := silent(); n != 1 {
		t.Errorf("%d notices that the hook did not run after it was trusted, want the first process's 1", n)
	}
	// Codex runs no prompt hook: the Stop's idle must not outlive the next
	// turn (office would type into a busy Codex, which steers).
	r.srv.Hold()
	r.send("TASK-CODEX-TWO go on")
	r.waitFor(30*time.Second, "the second task at the model", func() bool { return r.countPrompts("TASK-CODEX-TWO") == 1 })
	r.holdsFor(3*time.Second, "busy through the typed turn", func() bool { return r.statusIs("busy") })
	r.srv.Release()
	r.waitFor(30*time.Second, "idle after it", func() bool { return r.statusIs("idle") })
}

// TestGeminiOfficeTypes: Gemini CLI has no channel office installs, so mail
// queued while it is busy is typed after the turn, as before (a prompt its
// chat record shows), never handed over.
func TestGeminiOfficeTypes(t *testing.T) {
	r := newRig(t, "gemini")
	r.start()
	r.srv.Hold()
	r.send("TASK-GEMINI write the parser")
	r.waitFor(30*time.Second, "the task at the model", func() bool { return r.countPrompts("TASK-GEMINI") == 1 })
	r.waitFor(10*time.Second, "busy", func() bool { return r.statusIs("busy") })
	r.mailFrom("peer", "MAIL-GEMINI please review the patch")
	r.waitFor(10*time.Second, "the mail's delivery queued", func() bool { return len(r.queued()) == 1 })
	r.srv.Release()
	r.waitFor(60*time.Second, "the mail at the model", func() bool { return turnsWith(r.srv, "MAIL-GEMINI") >= 1 })
	r.waitFor(30*time.Second, "idle, the queue empty", func() bool { return r.statusIs("idle") && len(r.queued()) == 0 })
	if n := turnsWith(r.srv, "MAIL-GEMINI"); n != 1 {
		t.Errorf("the mail reached the model in %d requests, want 1", n)
	}
	if h := handedNotes(r.deliveredNotes()); len(h) != 0 {
		t.Errorf("hand-overs %q: gemini has no channel", h)
	}
	if _, _, ok := records.Received(recordsFor(t, r), "MAIL-GEMINI please review the patch", time.Time{}, nil); !ok {
		t.Errorf("the mail is not a typed prompt in the chat record\n%s", r.diagnose())
	}
	if x := r.officeCmd("status", "--explain", r.cli); !strings.Contains(x, "delivery: typed (last delivered: message ") {
		t.Errorf("status --explain:\n%s\nwant delivery typed", x)
	}
}
