package engine

// The engine's own timers run on the office file's values: the stall
// sample, the mail sweep and the retention sweep of the inbox goroutine,
// and the restart back-off, each shown on the engine's clock seam
// (Options.Clock) with a value other than the table's default.

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/automation"
	"office/configs"
	"office/inbox"
)

// eventually polls cond for up to 10 s of real time.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openOnClock opens an engine on the office file src with clock as
// Options.Clock.
func openOnClock(t *testing.T, src string, clock *manualClock) *Engine {
	t.Helper()
	dir := t.TempDir()
	c, err := configs.Parse(filepath.Join(dir, "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Config: c, StateDir: filepath.Join(dir, "state"), HostEnv: []string{"PATH=/usr/bin:/bin"}, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// inboxRun starts runInbox on e and returns step, which moves clock one
// sample on and waits until the goroutine did that sample's work; every
// sample re-arms after stall_sample exactly.
func inboxRun(t *testing.T, e *Engine, clock *manualClock, sample time.Duration) (step func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.runInbox(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	armed := func() {
		t.Helper()
		<-clock.armed
		if at, now := clock.lastAt(), clock.Now(); !at.Equal(now.Add(sample)) {
			t.Fatalf("the next sample is due %v after %v, want stall_sample %v", at.Sub(now), now, sample)
		}
	}
	armed()
	return func() { clock.advance(sample); armed() }
}

// mail_sweep = "7s": working mail past its deadline (3 s) fails at the
// first sweep, 7 s after the start: still working at 6 s, two seconds past
// its deadline, failed at 7 s (the default sweep is 30 s); the samples run
// every stall_sample = "1s" (the default is 5 s).
func TestMailSweepAndStallSampleFromTheFile(t *testing.T) {
	t.Parallel()
	src := "brief = false\nmail_timeout = \"3s\"\nmail_sweep = \"7s\"\nstall_sample = \"1s\"\n\n" +
		"[[agent]]\nname = \"dev\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
	clock := newManualClock(time.Now())
	e := openOnClock(t, src, clock)
	if e.inbox.sampleEvery != time.Second || e.inbox.timers.tickEvery != 7*time.Second {
		t.Fatalf("inbox timers %v/%v, want the file's 1s/7s", e.inbox.sampleEvery, e.inbox.timers.tickEvery)
	}
	ctx := context.Background()
	svc := e.inbox.svc
	id := workingMail(ctx, t, e, "dev")
	mail := func() inbox.Mail {
		m, _, err := svc.GetMail(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := mail(); m.State != inbox.MailWorking {
		t.Fatalf("mail %s, want working", m.State)
	}
	// The clock starts a second before the mail went working: its 3 s
	// deadline is at most 4 s after the start.
	clock.set(time.Now().Add(-time.Second))
	step := inboxRun(t, e, clock, time.Second)
	for range 6 {
		step()
	}
	if m := mail(); m.State != inbox.MailWorking {
		t.Fatalf("mail %s(%s) 6s in, before the first 7s sweep; want still working", m.State, m.Reason)
	}
	step()
	if m := mail(); m.State != inbox.MailFailed || m.Reason != inbox.ReasonTimeout {
		t.Fatalf("mail %s(%s) at the 7s sweep, want failed(timeout)", m.State, m.Reason)
	}
}

// retention_sweep = "10m" with retention = "1h": mail that waited 5 min
// before the clock started becomes a dead letter at the first sweep after
// it is an hour old, 70 min in, and not at 69 (a purge at every sample
// would catch it at 66, the default 1h sweep at 120). The store stamps its
// rows on the wall clock, hours behind this one, so the test reads the
// dead-letter event rather than the mail (the same purge deletes it as
// long finished).
func TestRetentionSweepFromTheFile(t *testing.T) {
	t.Parallel()
	src := "brief = false\nretention = \"1h\"\nretention_sweep = \"10m\"\nstall_sample = \"1m\"\nmail_sweep = \"1h\"\n\n" +
		"[[agent]]\nname = \"dev\"\ncommand = [\"sh\", \"-c\", \"exec sleep 600\"]\n"
	clock := newManualClock(time.Now())
	e := openOnClock(t, src, clock)
	if e.inbox.timers.purgeEvery != 10*time.Minute {
		t.Fatalf("retention sweep %v, want the file's 10m", e.inbox.timers.purgeEvery)
	}
	ctx := context.Background()
	if _, err := e.inbox.svc.SendMail(ctx, inbox.MailRequestArgs{To: "dev", From: inbox.Person, Title: "t", Text: "never typed"}); err != nil {
		t.Fatal(err)
	}
	dead := func() int {
		evs, err := e.store.Events(ctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range evs {
			if ev.Kind == inbox.EventInboxDead && ev.Agent == "dev" {
				n++
			}
		}
		return n
	}
	clock.set(time.Now().Add(-5 * time.Minute)) // the mail was sent 5 min into the clock
	step := inboxRun(t, e, clock, time.Minute)
	for range 69 {
		step()
	}
	if n := dead(); n != 0 {
		t.Fatalf("%d dead letters 69 min in: retention ran between its 10 min sweeps", n)
	}
	step()
	if n := dead(); n != 1 {
		t.Fatalf("%d dead letters at the 70 min sweep, want the mail's one", n)
	}
}

// An agent's own stall = "20s" (the office's is the 6 min default) is the
// watchdog's: an agent busy (its output flows) with an unchanging screen is
// stalled once its screen has not changed for 20 s of the engine's clock,
// and not a sample before. The stall check runs at every mail_sweep = "1s".
func TestPerAgentStallFromTheFile(t *testing.T) {
	t.Parallel()
	src := "brief = false\nready_quiet = \"100ms\"\nmail_sweep = \"1s\"\nstall_sample = \"1s\"\n\n" +
		"[[agent]]\nname = \"spin\"\ncommand = [\"sh\", \"-c\", \"while :; do printf '\\\\rworking'; sleep 0.3; done\"]\nstall = \"20s\"\n"
	clock := newManualClock(time.Now())
	e := openOnClock(t, src, clock)
	a, ok := e.Agent("spin")
	if !ok || a.Term == nil {
		t.Fatal("no agent")
	}
	eventually(t, "the agent busy by its output", func() bool {
		return a.Term.Status() == automation.StatusBusy && strings.Contains(a.Term.Text(), "working")
	})
	ctx := context.Background()
	stalls := func() int {
		evs, err := e.store.Events(ctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range evs {
			if ev.Kind == inbox.EventStalled && ev.Agent == "spin" {
				n++
			}
		}
		return n
	}
	clock.set(time.Now())
	step := inboxRun(t, e, clock, time.Second)
	// The first sample (1 s in) is the screen's first look: its activity.
	for range 20 {
		step()
	}
	if n := stalls(); n != 0 {
		t.Fatalf("%d stalls 19 s after the screen last changed, want none before the agent's 20s", n)
	}
	if st := a.Term.Status(); st != automation.StatusBusy {
		t.Fatalf("the agent is %v, want still busy", st)
	}
	step()
	if n := stalls(); n != 1 {
		t.Fatalf("%d stalls 20 s after the screen last changed, want one", n)
	}
}

// The restart back-off runs on the file's restart_backoff (250ms), doubles
// per quick failure to restart_backoff_max (1s), and a process that lived
// restart_reset (1m) starts over at restart_backoff; each wait is a timer
// on the engine's clock, and the agent is restarted only when it fires.
func TestRestartBackoffFromTheFile(t *testing.T) {
	t.Parallel()
	src := "brief = false\nrestart_backoff = \"250ms\"\nrestart_backoff_max = \"1s\"\nrestart_reset = \"1m\"\n\n" +
		"[[agent]]\nname = \"crash\"\ncommand = [\"sh\", \"-c\", \"read x; exit 3\"]\nrestart = \"on-failure\"\n"
	clock := newManualClock(time.Now())
	e := openOnClock(t, src, clock)
	term := func() *Agent {
		a, ok := e.Agent("crash")
		if !ok || a.Term == nil {
			t.Fatal("no crash agent running")
		}
		return a
	}
	ms := time.Millisecond
	for i, want := range []time.Duration{250 * ms, 500 * ms, time.Second, time.Second, 250 * ms} {
		if i == 4 {
			// This run lives past restart_reset: the wait starts over.
			clock.advance(2 * time.Minute)
		}
		a := term()
		if err := a.Term.Input([]byte("\r")); err != nil {
			t.Fatal(err)
		}
		<-clock.armed
		if at, now := clock.lastAt(), clock.Now(); !at.Equal(now.Add(want)) {
			t.Fatalf("restart %d: waits %v, want %v", i+1, at.Sub(now), want)
		}
		clock.advance(want - time.Nanosecond)
		if cur := term(); cur != a {
			t.Fatalf("restart %d: restarted before its %v wait ended", i+1, want)
		}
		clock.advance(time.Nanosecond)
		eventually(t, "the restart", func() bool {
			cur, ok := e.Agent("crash")
			return ok && cur != a && cur.Term != nil
		})
	}
}

// restartState.next: the back-off sequence from the table's values.
func TestRestartBackoffSequence(t *testing.T) {
	s := configs.Defaults()
	s.RestartBackoff, s.RestartBackoffMax, s.RestartReset = 300*time.Millisecond, 2*time.Second, time.Minute
	var st restartState
	quick := time.Second
	for i, want := range []time.Duration{300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond, 2 * time.Second, 2 * time.Second} {
		if got := st.next(quick, s); got != want {
			t.Fatalf("quick failure %d: %v, want %v", i+1, got, want)
		}
	}
	if got := st.next(time.Minute, s); got != s.RestartBackoff {
		t.Fatalf("after a run of restart_reset: %v, want restart_backoff %v", got, s.RestartBackoff)
	}
	if got := st.next(quick, s); got != 600*time.Millisecond {
		t.Fatalf("a quick failure after the reset: %v, want 600ms", got)
	}
}

// While a restart waits its back-off, Status says the policy and when the
// restart runs (the wire's restart_at); an agent whose policy never
// restarts it says its policy and no due time.
func TestStatusSaysWhenARestartRuns(t *testing.T) {
	t.Parallel()
	src := "brief = false\nrestart_backoff = \"8s\"\n\n" +
		"[[agent]]\nname = \"crash\"\ncommand = [\"sh\", \"-c\", \"read x; exit 3\"]\nrestart = \"on-failure\"\n\n" +
		"[[agent]]\nname = \"once\"\ncommand = [\"sh\", \"-c\", \"read x; exit 3\"]\n"
	clock := newManualClock(time.Now())
	e := openOnClock(t, src, clock)
	status := func(name string) AgentStatus {
		for _, s := range e.Status() {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no %s in Status", name)
		return AgentStatus{}
	}
	for _, name := range []string{"crash", "once"} {
		a, _ := e.Agent(name)
		if err := a.Term.Input([]byte("\r")); err != nil {
			t.Fatal(err)
		}
	}
	old, _ := e.Agent("crash")
	<-clock.armed
	s := status("crash")
	if s.ExitCode == nil || *s.ExitCode != 3 || s.Restart != configs.RestartOnFailure || !s.RestartAt.Equal(clock.lastAt()) {
		t.Fatalf("crash while its restart waits: exit %v, restart %q at %v; want 3, on-failure at %v", s.ExitCode, s.Restart, s.RestartAt, clock.lastAt())
	}
	eventually(t, "once exiting", func() bool { return status("once").ExitCode != nil })
	if s := status("once"); s.Restart != configs.RestartNever || !s.RestartAt.IsZero() {
		t.Fatalf("once exited: restart %q at %v; want never, no due time", s.Restart, s.RestartAt)
	}
	clock.advance(8 * time.Second)
	eventually(t, "the restart", func() bool {
		cur, ok := e.Agent("crash")
		return ok && cur != old && cur.Term != nil
	})
	if s := status("crash"); !s.RestartAt.IsZero() {
		t.Fatalf("crash restarted: restart_at %v, want none", s.RestartAt)
	}
}
