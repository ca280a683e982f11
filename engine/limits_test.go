package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"office/configs"
	"office/engine"
	"office/inbox"
	"office/queue"
	"office/records"
	"office/wire"
)

// statusOf returns agent's status and signal as `office status` has them.
func statusOf(e *engine.Engine, agent string) (string, string) {
	for _, s := range e.Status() {
		if s.Name == agent {
			return s.Status, s.Signal
		}
	}
	return "", ""
}

// limitOffice runs an office of n fake Claude agents (a0, a1, ...; each
// logs what is typed into it to DIR/aN.jsonl; args are its other flags)
// whose limit banner is the fake agent's reply to "LIMITX ..." (and its
// model-switch row the reply to "SWITCHX ..."): the settings
// and profile lines of extra come first. It returns the running engine, the
// directory and the state dir once every agent is idle.
func limitOffice(t *testing.T, n int, extra string, args ...string) (*engine.Engine, string, string) {
	t.Helper()
	c, dir, state := limitConfig(t, n, extra, args...)
	e := open(t, c, state)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go e.Run(ctx)
	waitIdle(t, e, n)
	return e, dir, state
}

// limitConfig is limitOffice's office file, its directory and state dir.
func limitConfig(t *testing.T, n int, extra string, args ...string) (*configs.Config, string, string) {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	var b strings.Builder
	b.WriteString("brief = false\n" + extra + "\n")
	for i := 0; i < n; i++ {
		argv := append([]string{fakeAgentBin, "--log", filepath.Join(dir, fmt.Sprintf("a%d.jsonl", i))}, args...)
		fmt.Fprintf(&b, "[[agent]]\nname = \"a%d\"\nprofile = \"claude\"\ncommand = %s\n\n", i, tomlList(argv))
	}
	// The fake agent replies "● reply: TEXT": that row is the banner here.
	b.WriteString("[profile.claude.limits]\nbanners = [\"reply: LIMITX\"]\nresets = [\"again in \"]\nswitches = [\"reply: SWITCHX\"]\n")
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return c, dir, state
}

// sendTo queues text for agent and wakes the drain, as `office send` does.
func sendTo(t *testing.T, e *engine.Engine, agent, text string) {
	t.Helper()
	if _, err := e.Store().Enqueue(context.Background(), agent, text, queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Wake()
}

// waitIdle waits until agents a0 … a(n-1) are idle.
func waitIdle(t *testing.T, e *engine.Engine, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("a%d", i)
		waitCond(t, 20*time.Second, name+" idle", func() bool { s, _ := statusOf(e, name); return s == "idle" })
	}
}

// One account, one hold: a0's CLI prints a usage-limit banner; a0 and a1
// (same profile, same environment: one account) are both held "usage
// limit", a1's queued message waits untyped with no attempt counted, the
// person is told once and limit_hit is recorded; at the reset plus the
// margin they resume by themselves, a1 a stagger after a0, limit_reset is
// recorded for each, the person is told, and a1's message is typed once.
func TestUsageLimitHoldsTheAccountAndResumes(t *testing.T) {
	t.Parallel()
	e, dir, _ := limitOffice(t, 2, "limit_margin = \"1s\"\nlimit_stagger = \"1s\"\n", "--busy", "50ms")
	ctx := context.Background()
	start := time.Now()
	sendTo(t, e, "a0", "LIMITX again in 3s")
	waitCond(t, 10*time.Second, "a0 and a1 held", func() bool {
		s0, _ := statusOf(e, "a0")
		s1, _ := statusOf(e, "a1")
		return s0 == "usage limit" && s1 == "usage limit"
	})
	if _, sig := statusOf(e, "a0"); !strings.HasPrefix(sig, "resets ") || !strings.HasSuffix(sig, "from screen") {
		t.Errorf("a0 signal %q", sig)
	}
	id, err := e.Store().Enqueue(ctx, "a1", "hello", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 5*time.Second, "a1 held usage limit", func() bool { return e.Holds()["a1"] == "usage limit" })
	if m, err := e.Store().Get(ctx, id); err != nil || m.Attempts != 0 {
		t.Fatalf("a1's message %+v (%v): want it queued, no attempt", m, err)
	}
	if p := promptsIn(t, filepath.Join(dir, "a1.jsonl")); len(p) != 0 {
		t.Fatalf("a1 was typed into while held: %q", p)
	}
	notices := func(word string) int {
		its, err := e.Inbox().Items(ctx, inbox.Person, inbox.StatePending)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, it := range its {
			if it.Kind == inbox.KindNotification && strings.HasPrefix(it.Body, word) {
				n++
			}
		}
		return n
	}
	waitCond(t, 5*time.Second, "the person told", func() bool { return notices("usage limit: a0 is out of quota") == 1 })

	waitCond(t, 20*time.Second, "a1's message typed after the hold", func() bool {
		return slices.Equal(promptsIn(t, filepath.Join(dir, "a1.jsonl")), []string{"hello"})
	})
	if d := time.Since(start); d < 4*time.Second {
		t.Fatalf("a1 resumed %v after the banner, before reset (3s) + margin (1s) + stagger (1s)", d)
	}
	waitCond(t, 10*time.Second, "the resume told", func() bool { return notices("usage limit over") == 1 })
	evs, err := e.Store().Events(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var hits, resets []string
	for _, ev := range evs {
		switch ev.Kind {
		case engine.EventLimitHit:
			hits = append(hits, ev.Agent)
			if !strings.Contains(ev.Detail, "account claude:") || !strings.Contains(ev.Detail, "from screen") {
				t.Errorf("limit_hit detail %q", ev.Detail)
			}
		case engine.EventLimitReset:
			resets = append(resets, ev.Agent)
		}
	}
	if !slices.Equal(hits, []string{"a0"}) || !slices.Equal(resets, []string{"a0", "a1"}) {
		t.Fatalf("limit_hit %v, limit_reset %v; want [a0], [a0 a1]", hits, resets)
	}
	if notices("usage limit: a0") != 1 {
		t.Error("the hold told twice")
	}
}

// `office resume AGENT` (op limit_release) ends the account's hold early.
func TestLimitReleaseEndsTheHoldEarly(t *testing.T) {
	t.Parallel()
	e, _, state := limitOffice(t, 1, "", "--busy", "50ms")
	ctx := context.Background()
	sendTo(t, e, "a0", "LIMITX again in 5 hours")
	waitCond(t, 10*time.Second, "held", func() bool { s, _ := statusOf(e, "a0"); return s == "usage limit" })
	if _, sig := statusOf(e, "a0"); !strings.Contains(sig, "(in 5h0m)") {
		t.Errorf("signal %q, want the reset printed, in 5h", sig)
	}
	for _, st := range e.Status() {
		// The UI's title counts down to it (ui: usage limit, resets …).
		if d := time.Until(st.LimitAt); st.Name == "a0" && (st.LimitRetry || d < 4*time.Hour || d > 5*time.Hour+time.Minute) {
			t.Errorf("status LimitAt %v (retry %v): want the printed reset, 5h ahead", st.LimitAt, st.LimitRetry)
		}
	}
	var out map[string][]string
	if err := engine.Call(ctx, state, engine.Request{Op: "limit_release", Agent: "a0"}, &out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out["released"], []string{"a0"}) {
		t.Fatalf("released %v", out)
	}
	waitCond(t, 10*time.Second, "idle after the release", func() bool { s, _ := statusOf(e, "a0"); return s == "idle" })
	if err := engine.Call(ctx, state, engine.Request{Op: "limit_release", Agent: "nobody"}, nil); err == nil {
		t.Error("releasing an unknown agent succeeded")
	}
}

// The probe: the first message typed after the hold ends is refused by the
// CLI with its limit again (the banner is the turn's whole answer). It is
// not counted delivered nor as an attempt: it goes back to the head of the
// queue, with a "refused" event, and the account is held again.
func TestRefusedProbeGoesBackToTheQueue(t *testing.T) {
	t.Parallel()
	// The fake agent keeps no records: the screen decides each delivery.
	e, dir, _ := limitOffice(t, 1, "limit_margin = \"1s\"\n\n[profile.claude]\nrecords = \"\"\nhooks = \"\"\n", "--busy", "50ms")
	log := filepath.Join(dir, "a0.jsonl")
	ctx := context.Background()
	sendTo(t, e, "a0", "LIMITX again in 1s")
	waitCond(t, 10*time.Second, "held", func() bool { s, _ := statusOf(e, "a0"); return s == "usage limit" })
	probe, err := e.Store().Enqueue(ctx, "a0", "LIMITX again in 1h", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	behind, err := e.Store().Enqueue(ctx, "a0", "after the probe", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Wake()
	refused := func() bool {
		evs, err := e.Store().Events(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.Kind == queue.EventRefused && ev.MsgID == probe {
				return true
			}
		}
		return false
	}
	waitCond(t, 20*time.Second, "the probe refused", func() bool {
		if refused() {
			return true
		}
		if testing.Verbose() {
			evs, _ := e.Store().Events(ctx, 0, 1000)
			for _, ev := range evs {
				t.Logf("%s %d %s", ev.Kind, ev.MsgID, ev.Detail)
			}
			t.Logf("typed %q", promptsIn(t, log))
		}
		return false
	})
	m, ok, err := e.Store().Head(ctx, "a0")
	if err != nil || !ok || m.ID != probe || m.Attempts != 0 {
		t.Fatalf("head %+v ok=%v err=%v: want the probe %d back, no attempt counted", m, ok, err, probe)
	}
	if _, err := e.Store().Get(ctx, behind); err != nil {
		t.Fatalf("the message behind the probe: %v", err)
	}
	waitCond(t, 10*time.Second, "held again", func() bool { s, _ := statusOf(e, "a0"); return s == "usage limit" })
	if _, sig := statusOf(e, "a0"); !strings.Contains(sig, "(in 1h") {
		t.Errorf("signal %q, want the probe's reset, in 1h", sig)
	}
	if p := promptsIn(t, log); !slices.Equal(p, []string{"LIMITX again in 1s", "LIMITX again in 1h"}) {
		t.Errorf("typed %q: want the first message and the probe once each", p)
	}
}

// stopFailure reports Claude Code's StopFailure hook for agent through the
// socket call `office hook StopFailure` makes, with the payload's error and
// last assistant message.
func stopFailure(t *testing.T, state, agent, errName, msg string) {
	t.Helper()
	hargs, _ := engine.DecodeHookPayload("StopFailure",
		fmt.Appendf(nil, `{"hook_event_name":"StopFailure","error":%q,"last_assistant_message":%q}`, errName, msg))
	args, err := json.Marshal(hargs)
	if err != nil {
		t.Fatal(err)
	}
	req := engine.Request{Op: wire.OpHook.Name, Agent: agent, Args: args}
	if err := engine.Call(context.Background(), state, req, nil); err != nil {
		t.Fatal(err)
	}
}

// A StopFailure that is no rate limit (529 overloaded) fails the turn: the
// request mail it was to answer fails with the hook's text, not
// no_reply_found, and nothing is held.
func TestStopFailureFailsTheTurn(t *testing.T) {
	t.Parallel()
	e, _, state := limitOffice(t, 1, "", "--busy", "3s", "--hook-evidence")
	ctx := context.Background()
	id, err := e.Inbox().SendMail(ctx, inbox.MailRequestArgs{To: "a0", Title: "q", Text: "what is 2+2?", Request: true})
	if err != nil {
		t.Fatal(err)
	}
	engine.Poke(state) // as `office mail` does: the inbox schedules its delivery
	waitCond(t, 20*time.Second, "a0 busy with the request", func() bool { s, _ := statusOf(e, "a0"); return s == "busy" })
	stopFailure(t, state, "a0", "overloaded", "API Error: 529 Overloaded")
	var m inbox.Mail
	waitCond(t, 20*time.Second, "the request settled", func() bool {
		m, _, err = e.Inbox().GetMail(ctx, id)
		return err == nil && (m.State == inbox.MailFailed || m.State == inbox.MailDone)
	})
	if want := inbox.ReasonTurnFailed + ": API Error: 529 Overloaded"; m.State != inbox.MailFailed || m.Reason != want {
		t.Fatalf("request %s (%s), want failed (%s)", m.State, m.Reason, want)
	}
	if s, _ := statusOf(e, "a0"); s == "usage limit" {
		t.Fatal("an overloaded model held the agent")
	}
}

// A StopFailure rate_limit whose message is a usage-limit banner holds the
// account, from the hook: with no reset in it for limit_retry (a1's queued
// message waits untyped), and with a reset until that reset plus the
// margin, after which the queued message is typed once. A plain API rate
// limit (no banner) is a failed turn and holds nothing.
func TestStopFailureRateLimitHoldsTheAccount(t *testing.T) {
	t.Parallel()
	// --hook-evidence: each delivery is confirmed by the fake's hook
	// record, so a1's first message settles and the next can follow.
	e, dir, state := limitOffice(t, 2, "limit_margin = \"1s\"\nlimit_stagger = \"1s\"\nlimit_retry = \"10m\"\n", "--busy", "50ms", "--hook-evidence")
	ctx := context.Background()
	waitIdle(t, e, 2)
	stopFailure(t, state, "a0", "rate_limit", "API Error: Request rejected (429) · Rate limited")
	sendTo(t, e, "a1", "first")
	waitCond(t, 20*time.Second, "a1's message typed: a plain rate limit holds nothing", func() bool {
		return slices.Equal(promptsIn(t, filepath.Join(dir, "a1.jsonl")), []string{"first"})
	})
	waitIdle(t, e, 2)
	stopFailure(t, state, "a0", "rate_limit", "reply: LIMITX")
	waitCond(t, 10*time.Second, "a0 and a1 held", func() bool {
		s0, _ := statusOf(e, "a0")
		s1, _ := statusOf(e, "a1")
		return s0 == "usage limit" && s1 == "usage limit"
	})
	if _, sig := statusOf(e, "a0"); !strings.HasPrefix(sig, "retry ") || !strings.HasSuffix(sig, "from hook") {
		t.Errorf("a0 signal %q, want retry …, from hook", sig)
	}
	for _, st := range e.Status() {
		if d := time.Until(st.LimitAt); st.Name == "a0" && (!st.LimitRetry || d < 9*time.Minute || d > 10*time.Minute) {
			t.Errorf("a0 LimitAt in %v (retry %v): want limit_retry, 10m", d, st.LimitRetry)
		}
	}
	id, err := e.Store().Enqueue(ctx, "a1", "hello", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 15*time.Second, "a1 held usage limit (its cooldown after \"first\" may come first)", func() bool { return e.Holds()["a1"] == "usage limit" })
	if m, err := e.Store().Get(ctx, id); err != nil || m.Attempts != 0 {
		t.Fatalf("a1's message %+v (%v): want it queued, no attempt", m, err)
	}

	// The subscription's banner as the hook's message names the reset.
	start := time.Now()
	stopFailure(t, state, "a0", "rate_limit", "reply: LIMITX again in 2s")
	waitCond(t, 5*time.Second, "the reset from the hook", func() bool {
		_, sig := statusOf(e, "a0")
		return strings.HasPrefix(sig, "resets ") && strings.HasSuffix(sig, "from hook")
	})
	waitCond(t, 20*time.Second, "a1's message typed after the hold", func() bool {
		return slices.Equal(promptsIn(t, filepath.Join(dir, "a1.jsonl")), []string{"first", "hello"})
	})
	if d := time.Since(start); d < 3*time.Second {
		t.Fatalf("a1 resumed %v after the hook, before its reset (2s) + margin (1s)", d)
	}
	if p := promptsIn(t, filepath.Join(dir, "a0.jsonl")); len(p) != 0 {
		t.Errorf("a0 was typed into: %q", p)
	}
	evs, err := e.Store().Events(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, ev := range evs {
		if ev.Kind == engine.EventLimitHit && ev.Agent == "a0" && strings.Contains(ev.Detail, "from hook") {
			hits++
		}
	}
	if hits != 2 {
		t.Errorf("%d limit_hit events from the hook, want 2", hits)
	}
}

// A CLI that says it switched itself to another model after a quota
// message (Gemini's fallback to Flash) is not held: office records
// model_switch, tells the person once, and the next message is typed.
func TestModelSwitchIsToldNotHeld(t *testing.T) {
	t.Parallel()
	// The fake agent keeps no records: the screen decides each delivery.
	e, dir, _ := limitOffice(t, 1, "[profile.claude]\nrecords = \"\"\nhooks = \"\"\n", "--busy", "50ms")
	ctx := context.Background()
	sendTo(t, e, "a0", "SWITCHX to gemini-2.5-flash")
	waitCond(t, 10*time.Second, "a0 idle after the switch", func() bool {
		s, _ := statusOf(e, "a0")
		return s == "idle" && len(promptsIn(t, filepath.Join(dir, "a0.jsonl"))) == 1
	})
	sendTo(t, e, "a0", "hello again")
	waitCond(t, 30*time.Second, "both typed", func() bool {
		return slices.Equal(promptsIn(t, filepath.Join(dir, "a0.jsonl")), []string{"SWITCHX to gemini-2.5-flash", "hello again"})
	})
	var told int
	waitCond(t, 10*time.Second, "the person told", func() bool {
		its, err := e.Inbox().Items(ctx, inbox.Person, inbox.StatePending)
		if err != nil {
			t.Fatal(err)
		}
		told = 0
		for _, it := range its {
			if it.Kind == inbox.KindNotification && strings.HasPrefix(it.Body, "model switch: a0") && strings.Contains(it.Body, "SWITCHX to gemini-2.5-flash") {
				told++
			}
		}
		return told > 0
	})
	evs, err := e.Store().Events(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Kind == engine.EventModelSwitch && ev.Agent == "a0" {
			n++
		}
		if ev.Kind == engine.EventLimitHit {
			t.Errorf("a model switch held the agent: %+v", ev)
		}
	}
	if n != 1 || told != 1 {
		t.Errorf("%d model_switch events, %d notices; want one each", n, told)
	}
}

// probeAcrossARestart runs a0 into a limit, lets the hold end, and stops
// the office while the probe's turn runs (its end unseen); before the
// office starts again, reply (when not "") is recorded as the CLI's answer
// to the probe, as its Stop hook would have, after the hook records of
// events (the turn's PreToolUse, say). It returns the restarted engine,
// the directory and the probe's id.
func probeAcrossARestart(t *testing.T, reply string, events ...string) (*engine.Engine, string, int64) {
	t.Helper()
	c, dir, state := limitConfig(t, 1, "limit_margin = \"1s\"\n", "--busy", "4s", "--hook-evidence")
	log := filepath.Join(dir, "a0.jsonl")
	e1, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv()})
	if err != nil {
		t.Fatal(err)
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e1.Run(ctx1) }()
	stop := func() { cancel1(); <-done; e1.Close() }
	defer func() {
		if ctx1.Err() == nil {
			stop()
		}
	}()
	waitIdle(t, e1, 1)
	ctx := context.Background()
	if _, err := e1.Store().Enqueue(ctx, "a0", "LIMITX again in 1s", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e1.Wake()
	waitCond(t, 20*time.Second, "held", func() bool { s, _ := statusOf(e1, "a0"); return s == "usage limit" })
	probe, err := e1.Store().Enqueue(ctx, "a0", "the probe", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e1.Wake()
	waitCond(t, 20*time.Second, "the probe typed and kept", func() bool {
		id, ok := engine.ProbeTyped(state, "a0")
		return ok && id == probe && slices.Contains(promptsIn(t, log), "the probe")
	})
	stop() // the probe's turn (4 s) never ends in this run
	for _, ev := range events {
		path, err := engine.HookLogPath(state, "a0")
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := records.HookFromPayload(ev, fmt.Appendf(nil, `{"hook_event_name":%q,"tool_name":"Bash"}`, ev), time.Now())
		if !ok {
			t.Fatalf("no hook record of %s", ev)
		}
		if err := records.AppendHook(path, rec); err != nil {
			t.Fatal(err)
		}
	}
	if reply != "" {
		path, err := engine.HookLogPath(state, "a0")
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := records.HookFromPayload("Stop", fmt.Appendf(nil, `{"hook_event_name":"Stop","last_assistant_message":%q}`, reply), time.Now())
		if !ok {
			t.Fatal("no hook record")
		}
		if err := records.AppendHook(path, rec); err != nil {
			t.Fatal(err)
		}
	}
	e2 := open(t, c, state)
	ctx2, cancel2 := context.WithCancel(context.Background())
	t.Cleanup(cancel2)
	go e2.Run(ctx2)
	return e2, dir, probe
}

// A probe the CLI refused while the office restarted (its record shows
// the banner alone) goes back to the head of its queue once, with a
// refused event, and is typed into the new process, where it runs once.
func TestRefusedProbeSurvivesARestart(t *testing.T) {
	t.Parallel()
	e, dir, probe := probeAcrossARestart(t, "reply: LIMITX again in 1h")
	ctx := context.Background()
	refusals := func() (n int, detail string) {
		evs, err := e.Store().Events(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.Kind == queue.EventRefused && ev.MsgID == probe {
				n++
				detail = ev.Detail
			}
		}
		return n, detail
	}
	waitCond(t, 20*time.Second, "the probe back after the restart", func() bool { n, _ := refusals(); return n >= 1 })
	if _, d := refusals(); !strings.Contains(d, "after the office restarted") {
		t.Errorf("refused %q, want it read from the record after the restart", d)
	}
	// Typed into the new process, where it runs (the fake agent answers
	// "reply: the probe"): delivered, once.
	waitCond(t, 30*time.Second, "the probe typed into the new process", func() bool {
		_, err := e.Store().Get(ctx, probe)
		return err != nil && strings.Count(strings.Join(promptsIn(t, filepath.Join(dir, "a0.jsonl")), "\n"), "the probe") == 2
	})
	waitIdle(t, e, 1)
	time.Sleep(2 * time.Second) // the drain's passes after the turn
	if n, _ := refusals(); n != 1 {
		t.Errorf("%d refused events, want 1", n)
	}
	if _, err := e.Store().Get(ctx, probe); err == nil {
		t.Error("the probe that ran was queued again")
	}
	if n := strings.Count(strings.Join(promptsIn(t, filepath.Join(dir, "a0.jsonl")), "\n"), "the probe"); n != 2 {
		t.Errorf("the probe typed %d times, want twice (refused in the old process, run in the new)", n)
	}
}

// A probe whose CLI recorded a reply of its own ran before the restart: it
// stays delivered. One with no reply recorded, or whose turn ran a tool
// before the banner, stays delivered too (it is never typed twice) and the
// person is told its fate is unknown, with its text.
func TestProbeOutcomeAfterARestart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		events      []string
		unknown     string // what the person is told; "" for nothing
	}{
		{"ran", "reply: done, the tests pass", nil, ""},
		{"unknown", "", nil, "whether the CLI ran it is unknown"},
		// The turn ran a tool, then hit the limit: the banner is its last
		// reply, but the probe's side effects happened; never typed twice.
		{"tools then the banner", "reply: LIMITX again in 1h", []string{records.HookPreToolUse}, "whether the probe ran is unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, dir, probe := probeAcrossARestart(t, tc.reply, tc.events...)
			ctx := context.Background()
			waitIdle(t, e, 1)
			want := tc.unknown
			if want == "" {
				want = "is unknown"
			}
			told := func() bool {
				its, err := e.Inbox().Items(ctx, inbox.Person, inbox.StatePending)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range its {
					if strings.Contains(it.Body, want) && strings.Contains(it.Body, "the probe") {
						return true
					}
				}
				return false
			}
			if tc.unknown != "" {
				waitCond(t, 10*time.Second, "the person told", told)
			}
			time.Sleep(2 * time.Second) // the drain's passes after the restart
			if _, err := e.Store().Get(ctx, probe); err == nil {
				t.Fatal("the probe was queued again")
			}
			if n := strings.Count(strings.Join(promptsIn(t, filepath.Join(dir, "a0.jsonl")), "\n"), "the probe"); n != 1 {
				t.Errorf("the probe typed %d times, want once", n)
			}
			if tc.unknown == "" && told() {
				t.Error("told of an unknown outcome for a probe that ran")
			}
		})
	}
}

// The hold lives in memory, but a restart during it keeps the probe: the
// first message typed into the new process, refused on the same banner,
// goes back to the head of its queue and the account is held again.
func TestRestartDuringAHoldKeepsTheProbe(t *testing.T) {
	t.Parallel()
	// A turn of 2 s: the banner shows after the delivery is recorded, as a
	// model's refusal does.
	c, dir, state := limitConfig(t, 1, "[profile.claude]\nrecords = \"\"\nhooks = \"\"\n", "--busy", "2s")
	e1, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv()})
	if err != nil {
		t.Fatal(err)
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e1.Run(ctx1) }()
	waitIdle(t, e1, 1)
	ctx := context.Background()
	if _, err := e1.Store().Enqueue(ctx, "a0", "LIMITX again in 1h", queue.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	e1.Wake()
	waitCond(t, 20*time.Second, "held", func() bool { s, _ := statusOf(e1, "a0"); return s == "usage limit" })
	cancel1()
	<-done
	e1.Close()

	e := open(t, c, state)
	ctx2, cancel2 := context.WithCancel(context.Background())
	t.Cleanup(cancel2)
	go e.Run(ctx2)
	waitIdle(t, e, 1) // the new process: no hold is known
	id, err := e.Store().Enqueue(ctx, "a0", "LIMITX again in 2h", queue.EnqueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Wake()
	waitCond(t, 30*time.Second, "the refused message back, the account held", func() bool {
		m, ok, err := e.Store().Head(ctx, "a0")
		s, _ := statusOf(e, "a0")
		return err == nil && ok && m.ID == id && m.Attempts == 0 && s == "usage limit"
	})
	evs, err := e.Store().Events(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(evs, func(ev queue.Event) bool { return ev.Kind == queue.EventRefused && ev.MsgID == id }) {
		t.Error("no refused event for the message the new process refused")
	}
	if p := promptsIn(t, filepath.Join(dir, "a0.jsonl")); !slices.Equal(p, []string{"LIMITX again in 1h", "LIMITX again in 2h"}) {
		t.Errorf("typed %q: want each message once", p)
	}
}
