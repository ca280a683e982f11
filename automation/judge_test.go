package automation

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// report is a hook report (Seq 1) of s that arrived at when.
func report(s Status, when time.Time) HookReport {
	return HookReport{Seq: 1, Event: "Event", Status: s, At: when}
}

func dump(j Judgment) string {
	var b strings.Builder
	for _, s := range j.Steps {
		mark := " "
		if s.Decides {
			mark = "*"
		}
		fmt.Fprintf(&b, "  %s %-14s %-8v %s\n", mark, s.Signal, s.Says, s.Describe())
	}
	return b.String()
}

// checkOneDecides checks the judgment's invariants: exactly one step decides,
// it is decisive and says the status.
func checkOneDecides(t *testing.T, j Judgment) {
	t.Helper()
	n := 0
	for _, s := range j.Steps {
		if s.Decides {
			n++
			if !s.Decisive || s.Says != j.Status {
				t.Errorf("deciding step %v says %v (decisive %v), status %v", s.Signal, s.Says, s.Decisive, j.Status)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d steps decide, want 1\n%s", n, dump(j))
	}
	if j.Decided().Says != j.Status {
		t.Errorf("Decided() says %v, status %v", j.Decided().Says, j.Status)
	}
}

var claudeLike = StatusRules{
	TitleIdle:    "✳",
	TitleBraille: true,
	Busy:         []string{"esc to interrupt"},
	Idle:         []string{"? for shortcuts"},
	Waiting:      []string{"Do you want to proceed?"},
}

func TestJudgeBoot(t *testing.T) {
	spawn := at(0)
	tests := []struct {
		name     string
		in       Inputs
		rules    StatusRules
		status   Status
		signal   string
		ready    bool
		open     bool
		overdue  bool
		next     time.Time
		findBoot Finding
	}{
		{name: "markers not seen, within the grace: starting",
			in:     Inputs{Now: at(10 * time.Second), Boot: Boot{Spawned: spawn, Markers: true}, LastOutput: at(9 * time.Second)},
			rules:  claudeLike,
			status: StatusStarting, signal: "starting", next: at(BootGrace), findBoot: FindNotReady},
		{name: "markers shown but not settled",
			in: Inputs{Now: at(2 * time.Second), Boot: Boot{Spawned: spawn, Markers: true, MarkersSince: at(1900 * time.Millisecond), Settle: 400 * time.Millisecond},
				LastOutput: at(1900 * time.Millisecond), Screen: TextRows("? for shortcuts")},
			rules:  claudeLike,
			status: StatusStarting, signal: "starting", next: at(2300 * time.Millisecond), findBoot: FindNotReady},
		{name: "markers settled and the screen still: ready",
			in: Inputs{Now: at(3 * time.Second), Boot: Boot{Spawned: spawn, Markers: true, MarkersSince: at(2 * time.Second), Settle: 400 * time.Millisecond},
				LastOutput: at(2500 * time.Millisecond), Screen: TextRows("? for shortcuts")},
			rules:  claudeLike,
			status: StatusIdle, signal: "screen: ? for shortcuts", ready: true, open: true, findBoot: FindReadySeen},
		{name: "markers settled but output still flowing",
			in: Inputs{Now: at(3 * time.Second), Boot: Boot{Spawned: spawn, Markers: true, MarkersSince: at(2 * time.Second), Settle: 400 * time.Millisecond},
				LastOutput: at(2900 * time.Millisecond), Screen: TextRows("? for shortcuts")},
			rules:  claudeLike,
			status: StatusStarting, signal: "starting", next: at(3300 * time.Millisecond), findBoot: FindNotReady},
		{name: "custom: first output and 2s quiet is ready",
			in:     Inputs{Now: at(5 * time.Second), Boot: Boot{Spawned: spawn}, LastOutput: at(3 * time.Second)},
			status: StatusBusy, signal: "output", ready: true, open: true, next: at(3*time.Second + QuietAfter), findBoot: FindReadySeen},
		{name: "custom: output 1s ago is not ready yet",
			in:     Inputs{Now: at(5 * time.Second), Boot: Boot{Spawned: spawn}, LastOutput: at(4 * time.Second)},
			status: StatusStarting, signal: "starting", next: at(6 * time.Second), findBoot: FindNotReady},
		{name: "custom: ready_quiet 5s: 2s of quiet is not ready yet",
			in:     Inputs{Now: at(5 * time.Second), Boot: Boot{Spawned: spawn, ReadyQuiet: 5 * time.Second}, LastOutput: at(3 * time.Second)},
			status: StatusStarting, signal: "starting", next: at(8 * time.Second), findBoot: FindNotReady},
		{name: "custom: ready_quiet 5s: ready after 5s of quiet",
			in:     Inputs{Now: at(8 * time.Second), Boot: Boot{Spawned: spawn, ReadyQuiet: 5 * time.Second}, LastOutput: at(3 * time.Second)},
			status: StatusBusy, signal: "output", ready: true, open: true, next: at(3*time.Second + QuietAfter), findBoot: FindReadySeen},
		{name: "custom: ready_quiet 500ms: ready before the default 2s",
			in:     Inputs{Now: at(3500 * time.Millisecond), Boot: Boot{Spawned: spawn, ReadyQuiet: 500 * time.Millisecond}, LastOutput: at(3 * time.Second)},
			status: StatusBusy, signal: "output", ready: true, open: true, next: at(3*time.Second + QuietAfter), findBoot: FindReadySeen},
		{name: "silent custom agent: starting within the grace",
			in:     Inputs{Now: at(BootGrace - time.Nanosecond), Boot: Boot{Spawned: spawn}},
			status: StatusStarting, signal: "starting", next: at(BootGrace), findBoot: FindNotReady},
		{name: "silent custom agent: idle once the grace is over",
			in:     Inputs{Now: at(BootGrace), Boot: Boot{Spawned: spawn}},
			status: StatusIdle, signal: "quiescence", open: true, overdue: true, findBoot: FindGraceOver},
		{name: "a configured grace counts",
			in:     Inputs{Now: at(5 * time.Second), Boot: Boot{Spawned: spawn, Grace: 5 * time.Second, Markers: true}},
			rules:  claudeLike,
			status: StatusIdle, signal: "quiescence", open: true, overdue: true, findBoot: FindGraceOver},
		{name: "markers never seen after the grace: other signals decide, a dialog waits",
			in:     Inputs{Now: at(40 * time.Second), Boot: Boot{Spawned: spawn, Markers: true}, Screen: TextRows("Do you want to proceed?"), LastOutput: at(39 * time.Second)},
			rules:  claudeLike,
			status: StatusWaiting, signal: "screen: Do you want to proceed?", open: true, overdue: true, findBoot: FindGraceOver},
		{name: "a dialog during boot waits for the person (a first-run trust dialog)",
			in:     Inputs{Now: at(3 * time.Second), Boot: Boot{Spawned: spawn, Markers: true}, Screen: TextRows("Do you want to proceed?"), LastOutput: at(2 * time.Second)},
			rules:  claudeLike,
			status: StatusWaiting, signal: "screen: Do you want to proceed?", next: at(BootGrace), findBoot: FindNotReady},
		{name: "seen before stays ready whatever the screen",
			in:     Inputs{Now: at(10 * time.Second), Boot: Boot{Spawned: spawn, Markers: true, Seen: true}, LastOutput: at(10 * time.Second)},
			rules:  claudeLike,
			status: StatusBusy, signal: "output", ready: true, open: true, next: at(10*time.Second + QuietAfter), findBoot: FindReadySeen},
		{name: "a zero spawn time counts as long ago",
			in:     Inputs{Now: at(time.Second), Boot: Boot{Markers: true}},
			rules:  claudeLike,
			status: StatusIdle, signal: "quiescence", open: true, overdue: true, findBoot: FindGraceOver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Judge(tt.in, tt.rules)
			checkOneDecides(t, j)
			if j.Status != tt.status || j.Signal() != tt.signal {
				t.Errorf("Judge = (%v, %q), want (%v, %q)\n%s", j.Status, j.Signal(), tt.status, tt.signal, dump(j))
			}
			if j.Ready != tt.ready || j.BootOpen != tt.open || j.BootOverdue != tt.overdue {
				t.Errorf("ready %v open %v overdue %v, want %v %v %v", j.Ready, j.BootOpen, j.BootOverdue, tt.ready, tt.open, tt.overdue)
			}
			if !j.Next.Equal(tt.next) {
				t.Errorf("Next = %v, want %v", j.Next, tt.next)
			}
			if j.Steps[1].Signal != SignalBoot || j.Steps[1].Found != tt.findBoot {
				t.Errorf("second step %v %v, want boot %v", j.Steps[1].Signal, j.Steps[1].Found, tt.findBoot)
			}
		})
	}
}

func TestJudgeHookStaleness(t *testing.T) {
	ready := Boot{Seen: true}
	quiet := at(-time.Hour)
	tests := []struct {
		name   string
		in     Inputs
		status Status
		signal string
		found  Finding
		next   time.Time
	}{
		{name: "busy report, title busy: the hook decides",
			in:     Inputs{Now: at(10 * time.Second), Boot: ready, Hook: report(StatusBusy, at(0)), Title: "⠂ Claude", LastOutput: quiet},
			status: StatusBusy, signal: "hook", found: FindReport},
		{name: "busy report, idle title for less than 3s: still counts",
			in: Inputs{Now: at(10 * time.Second), Boot: ready, Hook: report(StatusBusy, at(0)), Title: "✳ Claude", TitleSince: at(7*time.Second + time.Nanosecond),
				LastOutput: quiet},
			status: StatusBusy, signal: "hook", found: FindReport, next: at(10*time.Second + time.Nanosecond)},
		{name: "busy report, idle title for 3s: stale, the title decides",
			in:     Inputs{Now: at(10 * time.Second), Boot: ready, Hook: report(StatusBusy, at(0)), Title: "✳ Claude", TitleSince: at(7 * time.Second), LastOutput: quiet},
			status: StatusIdle, signal: "title", found: FindStale},
		{name: "a report newer than the title's change counts from the report",
			in:     Inputs{Now: at(10 * time.Second), Boot: ready, Hook: report(StatusBusy, at(8*time.Second)), Title: "✳ Claude", TitleSince: at(0), LastOutput: quiet},
			status: StatusBusy, signal: "hook", found: FindReport, next: at(11 * time.Second)},
		{name: "idle report, busy title for 3s: stale (a /compact turn no hook reports)",
			in:     Inputs{Now: at(10 * time.Second), Boot: ready, Hook: report(StatusIdle, at(0)), Title: "⠐ Claude", TitleSince: at(5 * time.Second), LastOutput: at(10 * time.Second)},
			status: StatusBusy, signal: "title", found: FindStale},
		{name: "waiting report, idle title for 9s: still waiting",
			in:     Inputs{Now: at(10 * time.Second), Boot: ready, Hook: report(StatusWaiting, at(0)), Title: "✳ Claude", TitleSince: at(time.Second), LastOutput: quiet},
			status: StatusWaiting, signal: "hook", found: FindReport, next: at(11 * time.Second)},
		{name: "waiting report, idle title for 10s: stale",
			in:     Inputs{Now: at(11 * time.Second), Boot: ready, Hook: report(StatusWaiting, at(0)), Title: "✳ Claude", TitleSince: at(time.Second), LastOutput: quiet},
			status: StatusIdle, signal: "title", found: FindStale},
		{name: "a silent title never contradicts",
			in:     Inputs{Now: at(time.Hour), Boot: ready, Hook: report(StatusBusy, at(0)), Title: "claude", LastOutput: quiet},
			status: StatusBusy, signal: "hook", found: FindReport},
		{name: "a cleared report says nothing",
			in:     Inputs{Now: at(time.Second), Boot: ready, Hook: HookReport{Seq: 2, Event: "SessionStart", At: at(0)}, Screen: TextRows("? for shortcuts"), LastOutput: quiet},
			status: StatusIdle, signal: "screen: ? for shortcuts", found: FindCleared},
		{name: "a Stop answered with a handed-over message says busy",
			in: Inputs{Now: at(time.Second), Boot: ready, Hook: HookReport{Seq: 3, Event: "Stop", Status: StatusIdle, At: at(0), Handed: true},
				Screen: TextRows("? for shortcuts"), Title: "⠂ Claude", LastOutput: quiet},
			status: StatusBusy, signal: "hook", found: FindReport},
		{name: "a handed-over Stop, idle title for 3s: stale, the title decides",
			in: Inputs{Now: at(10 * time.Second), Boot: ready, Hook: HookReport{Seq: 3, Event: "Stop", Status: StatusIdle, At: at(0), Handed: true},
				Title: "✳ Claude", TitleSince: at(7 * time.Second), LastOutput: quiet},
			status: StatusIdle, signal: "title", found: FindStale},
		{name: "a plain Stop says idle",
			in:     Inputs{Now: at(time.Second), Boot: ready, Hook: report(StatusIdle, at(0)), Title: "⠂ Claude", LastOutput: quiet},
			status: StatusIdle, signal: "hook", found: FindReport, next: at(3 * time.Second)},
		{name: "no report",
			in:     Inputs{Now: at(time.Second), Boot: ready, Screen: TextRows("esc to interrupt"), LastOutput: quiet},
			status: StatusBusy, signal: "screen: esc to interrupt", found: FindNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Judge(tt.in, claudeLike)
			checkOneDecides(t, j)
			if j.Status != tt.status || j.Signal() != tt.signal {
				t.Errorf("Judge = (%v, %q), want (%v, %q)\n%s", j.Status, j.Signal(), tt.status, tt.signal, dump(j))
			}
			var hook Step
			for _, s := range j.Steps {
				if s.Signal == SignalHook {
					hook = s
				}
			}
			if hook.Found != tt.found {
				t.Errorf("hook step found %v, want %v\n%s", hook.Found, tt.found, dump(j))
			}
			if !j.Next.Equal(tt.next) {
				t.Errorf("Next = %v, want %v", j.Next, tt.next)
			}
		})
	}
}

// TestJudgeHookStaleIsAParameter: Inputs.HookStale and HookWaitingStale (the
// office file's hook_stale and hook_waiting_stale) move where a contradicted
// report goes stale; zero is HookStaleAfter and HookWaitingStaleAfter.
func TestJudgeHookStaleIsAParameter(t *testing.T) {
	ready := Boot{Seen: true}
	quiet := at(-time.Hour)
	tests := []struct {
		name          string
		hook          Status
		title         string
		stale, wstale time.Duration
		now           time.Duration // since the title's change at 0
		found         Finding
	}{
		{"busy, 5s window, 4s contradicted: counts", StatusBusy, "✳ Claude", 5 * time.Second, 0, 4 * time.Second, FindReport},
		{"busy, 5s window, 5s contradicted: stale", StatusBusy, "✳ Claude", 5 * time.Second, 0, 5 * time.Second, FindStale},
		{"busy, 1s window, 1s contradicted: stale", StatusBusy, "✳ Claude", time.Second, 0, time.Second, FindStale},
		{"busy, default window, 2s contradicted: counts", StatusBusy, "✳ Claude", 0, 0, 2 * time.Second, FindReport},
		{"idle, 500ms window, 500ms contradicted: stale", StatusIdle, "⠐ Claude", 500 * time.Millisecond, 0, 500 * time.Millisecond, FindStale},
		{"waiting, 30s window, 20s contradicted: counts", StatusWaiting, "✳ Claude", time.Second, 30 * time.Second, 20 * time.Second, FindReport},
		{"waiting, 30s window, 30s contradicted: stale", StatusWaiting, "✳ Claude", time.Second, 30 * time.Second, 30 * time.Second, FindStale},
		{"waiting, 2s window, 2s contradicted: stale", StatusWaiting, "✳ Claude", 0, 2 * time.Second, 2 * time.Second, FindStale},
		{"waiting, default window, 9s contradicted: counts", StatusWaiting, "✳ Claude", 0, 0, 9 * time.Second, FindReport},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Inputs{Now: at(tt.now), Boot: ready, Hook: report(tt.hook, at(0)), Title: tt.title, TitleSince: at(0),
				LastOutput: quiet, HookStale: tt.stale, HookWaitingStale: tt.wstale}
			j := Judge(in, claudeLike)
			checkOneDecides(t, j)
			var hook Step
			for _, s := range j.Steps {
				if s.Signal == SignalHook {
					hook = s
				}
			}
			if hook.Found != tt.found {
				t.Fatalf("hook step found %v, want %v\n%s", hook.Found, tt.found, dump(j))
			}
			limit := orDefault(tt.stale, HookStaleAfter)
			if tt.hook == StatusWaiting {
				limit = orDefault(tt.wstale, HookWaitingStaleAfter)
			}
			switch {
			case tt.found == FindStale && hook.Limit != limit:
				t.Errorf("stale step's limit %v, want %v", hook.Limit, limit)
			case tt.found == FindReport && !j.Next.Equal(at(limit)):
				t.Errorf("Next = %v, want the window's end %v", j.Next, at(limit))
			}
		})
	}
}

func TestHookReportNewer(t *testing.T) {
	old := HookReport{Seq: 4, Status: StatusBusy}
	newer := HookReport{Seq: 5, Status: StatusIdle}
	if !newer.Newer(old) || old.Newer(newer) || old.Newer(old) {
		t.Fatal("Newer must order by Seq, strictly")
	}
	if !old.Newer(HookReport{}) {
		t.Fatal("any report is newer than none")
	}
}

func TestJudgeTurnHoldAndForeground(t *testing.T) {
	ready := Boot{Seen: true}
	enter := at(0)
	hold := TurnHold{Since: enter, Until: enter.Add(10 * time.Second)}
	tests := []struct {
		name   string
		in     Inputs
		status Status
		signal string
		held   bool
		next   time.Time
		// definitive: Judgment.Definitive
		definitive bool
	}{
		{name: "idle while the hold runs: busy, turn started",
			in:     Inputs{Now: at(time.Second), Boot: ready, Screen: TextRows("? for shortcuts"), LastOutput: at(-time.Hour), Turn: hold},
			status: StatusBusy, signal: "turn started", held: true, next: at(10 * time.Second)},
		{name: "the hold ends at Until",
			in:     Inputs{Now: at(10 * time.Second), Boot: ready, Screen: TextRows("? for shortcuts"), LastOutput: at(-time.Hour), Turn: hold},
			status: StatusIdle, signal: "screen: ? for shortcuts"},
		{name: "the hold never hides a dialog",
			in:     Inputs{Now: at(time.Second), Boot: ready, Screen: TextRows("Do you want to proceed?"), LastOutput: at(-time.Hour), Turn: hold},
			status: StatusWaiting, signal: "screen: Do you want to proceed?", next: at(10 * time.Second)},
		{name: "the hold never hides starting",
			in:     Inputs{Now: at(time.Second), Boot: Boot{Spawned: at(0), Markers: true}, Turn: hold},
			status: StatusStarting, signal: "starting", next: at(10 * time.Second)},
		{name: "shell in the foreground: idle, whatever the output",
			in:     Inputs{Now: at(time.Second), Boot: ready, Foreground: ForegroundShell, LastOutput: at(time.Second)},
			status: StatusIdle, signal: "foreground: shell"},
		{name: "a job in the foreground: busy",
			in:     Inputs{Now: at(time.Second), Boot: ready, Foreground: ForegroundJob, LastOutput: at(-time.Hour)},
			status: StatusBusy, signal: "foreground: job", definitive: true},
		{name: "shell in the foreground while the person's Enter is held, its prompt not back yet",
			in:     Inputs{Now: at(time.Second), Boot: ready, Foreground: ForegroundShell, Turn: hold},
			status: StatusBusy, signal: "turn started", held: true, next: at(10 * time.Second)},
		{name: "shell in the foreground with its prompt back since the Enter: definitive, the hold does not outvote it",
			in:     Inputs{Now: at(20 * time.Millisecond), Boot: ready, Foreground: ForegroundShell, ShellAtPrompt: true, Turn: hold},
			status: StatusIdle, signal: "foreground: shell", next: at(10 * time.Second), definitive: true},
		{name: "a job in the foreground is definitive busy",
			in:     Inputs{Now: at(time.Second), Boot: ready, Foreground: ForegroundJob, Turn: hold},
			status: StatusBusy, signal: "foreground: job", next: at(10 * time.Second), definitive: true},
		{name: "the prompt alone is no reading: a CLI's idle screen is not definitive",
			in:     Inputs{Now: at(time.Second), Boot: ready, ShellAtPrompt: true, Screen: TextRows("? for shortcuts"), LastOutput: at(-time.Hour), Turn: hold},
			status: StatusBusy, signal: "turn started", held: true, next: at(10 * time.Second)},
		{name: "exited beats the hold",
			in:     Inputs{Now: at(time.Second), Exited: true, ExitCode: 3, Turn: hold},
			status: StatusExited, signal: "exited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Judge(tt.in, claudeLike)
			checkOneDecides(t, j)
			if j.Status != tt.status || j.Signal() != tt.signal || j.Held != tt.held || j.Definitive != tt.definitive {
				t.Errorf("Judge = (%v, %q, held %v, definitive %v), want (%v, %q, %v, %v)\n%s", j.Status, j.Signal(), j.Held, j.Definitive,
					tt.status, tt.signal, tt.held, tt.definitive, dump(j))
			}
			if !j.Next.Equal(tt.next) {
				t.Errorf("Next = %v, want %v", j.Next, tt.next)
			}
		})
	}
}

// TestJudgeStepsListEverySignal: every signal the judge reads is a step, in
// order, whatever decided; only exited stops early.
func TestJudgeStepsListEverySignal(t *testing.T) {
	j := Judge(Inputs{Now: at(time.Hour), Boot: Boot{Seen: true}, Screen: TextRows("Do you want to proceed?"), Hook: report(StatusBusy, at(0))}, claudeLike)
	var got []Signal
	for _, s := range j.Steps {
		got = append(got, s.Signal)
		if s.Describe() == "" {
			t.Errorf("step %v has no description", s.Signal)
		}
	}
	want := []Signal{SignalScreenWaiting, SignalBoot, SignalHook, SignalOSC, SignalTitle, SignalScreen, SignalOutput}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
	if !j.Steps[0].Decides {
		t.Fatalf("the waiting pattern must decide:\n%s", dump(j))
	}
	x := Judge(Inputs{Now: at(0), Exited: true, ExitCode: 2}, claudeLike)
	if len(x.Steps) != 1 || x.Steps[0].Describe() != "exit code 2" {
		t.Fatalf("exited: %s", dump(x))
	}
}

func TestSignalNames(t *testing.T) {
	seen := map[string]bool{}
	for s := SignalExited; s <= SignalTurn; s++ {
		n := s.String()
		if n == "unknown" || seen[n] {
			t.Errorf("signal %d named %q", s, n)
		}
		seen[n] = true
	}
	if Signal(99).String() != "unknown" {
		t.Error("an unknown signal must say so")
	}
}

// TestJudgeStatusAndReadinessAgree: status and readiness come from one
// judgment, so the states a drain sees are only these: idle or busy means
// delivery may begin (BootOpen); starting means it may not, and nothing but a
// waiting dialog or the exit shows before boot. Random inputs, fixed seed.
func TestJudgeStatusAndReadinessAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	d := func(max time.Duration) time.Time { return at(time.Duration(rng.Int64N(int64(max)))) }
	for i := range 20000 {
		now := at(time.Minute)
		in := Inputs{
			Now:    now,
			Exited: rng.IntN(20) == 0,
			Boot: Boot{Spawned: d(time.Minute), Seen: rng.IntN(3) == 0, Markers: rng.IntN(2) == 0,
				Settle: 400 * time.Millisecond},
			Title:      pick("", "✳ Claude", "⠂ Claude", "claude"),
			TitleSince: d(time.Minute),
			OSCState:   pick("", "working", "idle", "done", "blocked", "other"),
			Screen:     TextRows(pick("", "? for shortcuts", "esc to interrupt", "Do you want to proceed?")),
			Foreground: Foreground(rng.IntN(3)),
		}
		if rng.IntN(2) == 0 {
			in.Boot.MarkersSince = d(time.Minute)
		}
		if rng.IntN(2) == 0 {
			in.LastOutput = d(time.Minute)
		}
		if rng.IntN(2) == 0 {
			in.Hook = HookReport{Seq: 1, Status: Status(rng.IntN(4)), At: d(time.Minute)}
		}
		if rng.IntN(3) == 0 {
			since := d(time.Minute)
			in.Turn = TurnHold{Since: since, Until: since.Add(10 * time.Second)}
		}
		j := Judge(in, claudeLike)
		checkOneDecides(t, j)
		switch j.Status {
		case StatusIdle, StatusBusy:
			if !j.BootOpen {
				t.Fatalf("case %d: %v but boot not open\n%+v\n%s", i, j.Status, in, dump(j))
			}
		case StatusStarting:
			if j.BootOpen {
				t.Fatalf("case %d: starting with boot open\n%s", i, dump(j))
			}
		}
		if j.BootOverdue && (!j.BootOpen || j.Ready) {
			t.Fatalf("case %d: overdue %v open %v ready %v", i, j.BootOverdue, j.BootOpen, j.Ready)
		}
		if !j.Next.IsZero() && !j.Next.After(now) {
			t.Fatalf("case %d: Next %v not after now", i, j.Next)
		}
	}
}

// BenchmarkJudge is one judgment of a 120×40 Claude-like screen (the cost
// of each re-judgment the monitor makes).
func BenchmarkJudge(b *testing.B) {
	row := strings.Repeat("x", 118)
	screen := strings.Repeat(row+"\n", 36) + "────\n❯ \n────\n  ? for shortcuts"
	in := Inputs{Now: at(time.Hour), Boot: Boot{Seen: true}, Title: "✳ Claude Code", Screen: TextRows(screen), LastOutput: at(0)}
	b.ReportAllocs()
	for b.Loop() {
		Judge(in, claudeLike)
	}
}
