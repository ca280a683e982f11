package automation

import (
	"testing"
	"time"
)

func TestDeliverable(t *testing.T) {
	tests := []struct {
		s    Status
		want bool
	}{
		{StatusStarting, false},
		{StatusIdle, true},
		{StatusBusy, false},
		{StatusWaiting, false},
		{StatusExited, false},
	}
	for _, tt := range tests {
		t.Run(tt.s.String(), func(t *testing.T) {
			if got := Deliverable(tt.s); got != tt.want {
				t.Errorf("Deliverable(%v) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

// TestJudgeOrder checks the order of the judge's steps: the first that
// says something decides.
func TestJudgeOrder(t *testing.T) {
	const (
		waitText = "Do you want to proceed?"
		busyText = "esc to interrupt"
		idleText = "? for shortcuts"
	)
	rules := StatusRules{
		TitleBusy:    "*",
		TitleIdle:    "✳",
		TitleBraille: true,
		Busy:         []string{"", busyText},
		Idle:         []string{idleText},
		Waiting:      []string{waitText},
	}
	now := at(time.Hour)
	quietOutput := now.Add(-time.Hour) // long quiet
	tests := []struct {
		name   string
		sig    Inputs
		rules  *StatusRules // nil: the shared rules
		status Status
		why    string
	}{
		{name: "exited beats everything",
			sig:    Inputs{Exited: true, Hook: report(StatusBusy, now), Screen: TextRows(waitText)},
			status: StatusExited, why: "exited"},
		{name: "not ready is starting",
			sig:    Inputs{Boot: Boot{Spawned: now, Markers: true}, Hook: report(StatusIdle, now), Screen: TextRows(idleText), LastOutput: quietOutput},
			status: StatusStarting, why: "starting"},
		{name: "a waiting screen beats a hook saying idle",
			sig:    Inputs{Boot: Boot{Seen: true}, Hook: report(StatusIdle, now), Screen: TextRows("header\n" + waitText + "\n1. Yes")},
			status: StatusWaiting, why: "screen: " + waitText},
		{name: "a waiting screen beats an idle screen pattern",
			sig:    Inputs{Boot: Boot{Seen: true}, Screen: TextRows(idleText + "\n" + waitText), LastOutput: quietOutput},
			status: StatusWaiting, why: "screen: " + waitText},
		{name: "a waiting screen beats OSC idle and an idle title",
			sig:    Inputs{Boot: Boot{Seen: true}, OSCState: "idle", Title: "✳ Claude", Screen: TextRows(waitText)},
			status: StatusWaiting, why: "screen: " + waitText},
		{name: "a waiting pattern is skipped inside a sync frame",
			sig:    Inputs{Boot: Boot{Seen: true}, InSyncFrame: true, Hook: report(StatusIdle, now), Screen: TextRows(waitText)},
			status: StatusIdle, why: "hook"},
		{name: "a hook saying busy beats OSC idle",
			sig:    Inputs{Boot: Boot{Seen: true}, Hook: report(StatusBusy, now), OSCState: "idle"},
			status: StatusBusy, why: "hook"},
		{name: "a hook saying idle beats recent output and a busy screen",
			sig:    Inputs{Boot: Boot{Seen: true}, Hook: report(StatusIdle, now), Screen: TextRows(busyText), LastOutput: now},
			status: StatusIdle, why: "hook"},
		{name: "OSC working is busy",
			sig:    Inputs{Boot: Boot{Seen: true}, OSCState: "working", Title: "✳ x", LastOutput: quietOutput},
			status: StatusBusy, why: "osc-state"},
		{name: "OSC idle beats a busy title",
			sig:    Inputs{Boot: Boot{Seen: true}, OSCState: "idle", Title: "* working", LastOutput: now},
			status: StatusIdle, why: "osc-state"},
		{name: "OSC done (Codex after a turn) is idle",
			sig:    Inputs{Boot: Boot{Seen: true}, OSCState: "done", Title: "* working", LastOutput: now},
			status: StatusIdle, why: "osc-state"},
		{name: "OSC blocked (Codex approval) is waiting",
			sig:    Inputs{Boot: Boot{Seen: true}, OSCState: "blocked", Title: "✳ x"},
			status: StatusWaiting, why: "osc-state"},
		{name: "an unknown OSC state is ignored",
			sig:    Inputs{Boot: Boot{Seen: true}, OSCState: "thinking", Title: "✳ x"},
			status: StatusIdle, why: "title"},
		{name: "a busy title rune is busy",
			sig:    Inputs{Boot: Boot{Seen: true}, Title: "* Working", LastOutput: quietOutput},
			status: StatusBusy, why: "title"},
		{name: "a braille spinner title is busy",
			sig:    Inputs{Boot: Boot{Seen: true}, Title: "⠋ gemini", LastOutput: quietOutput},
			status: StatusBusy, why: "title"},
		{name: "a braille title without the braille rule decides nothing",
			sig:    Inputs{Boot: Boot{Seen: true}, Title: "⠋ gemini", LastOutput: quietOutput},
			rules:  &StatusRules{},
			status: StatusIdle, why: "quiescence"},
		{name: "an idle title rune is idle",
			sig:    Inputs{Boot: Boot{Seen: true}, Title: "✳ Claude Code", Screen: TextRows(busyText), LastOutput: now},
			status: StatusIdle, why: "title"},
		{name: "leading spaces in the title are skipped",
			sig:    Inputs{Boot: Boot{Seen: true}, Title: "  ✳ Claude Code", LastOutput: now},
			status: StatusIdle, why: "title"},
		{name: "a rune in both title sets means busy",
			sig:    Inputs{Boot: Boot{Seen: true}, Title: "✳"},
			rules:  &StatusRules{TitleBusy: "✳", TitleIdle: "✳"},
			status: StatusBusy, why: "title"},
		{name: "a title rune in neither set decides nothing",
			sig:    Inputs{Boot: Boot{Seen: true}, Title: "claude", Screen: TextRows(idleText)},
			status: StatusIdle, why: "screen: " + idleText},
		{name: "a busy screen pattern is busy",
			sig:    Inputs{Boot: Boot{Seen: true}, Screen: TextRows("… " + busyText), LastOutput: quietOutput},
			status: StatusBusy, why: "screen: " + busyText},
		{name: "an idle screen pattern is idle despite recent output",
			sig:    Inputs{Boot: Boot{Seen: true}, Screen: TextRows(idleText), LastOutput: now},
			status: StatusIdle, why: "screen: " + idleText},
		{name: "a busy pattern beats an idle pattern",
			sig:    Inputs{Boot: Boot{Seen: true}, Screen: TextRows(busyText + "\n" + idleText)},
			status: StatusBusy, why: "screen: " + busyText},
		{name: "screen patterns are skipped inside a sync frame",
			sig:    Inputs{Boot: Boot{Seen: true}, InSyncFrame: true, Screen: TextRows(idleText), LastOutput: now.Add(-time.Second)},
			status: StatusBusy, why: "output"},
		{name: "a blank pattern never matches",
			sig:    Inputs{Boot: Boot{Seen: true}, Screen: TextRows("anything"), LastOutput: quietOutput},
			rules:  &StatusRules{Waiting: []string{""}, Busy: []string{""}},
			status: StatusIdle, why: "quiescence"},
		{name: "output 1ns short of 12s quiet is busy",
			sig:    Inputs{Boot: Boot{Seen: true}, LastOutput: now.Add(-QuietAfter + time.Nanosecond)},
			status: StatusBusy, why: "output"},
		{name: "12s quiet is idle",
			sig:    Inputs{Boot: Boot{Seen: true}, LastOutput: now.Add(-QuietAfter)},
			status: StatusIdle, why: "quiescence"},
		{name: "a profile's quiet window replaces 12s",
			sig:    Inputs{Boot: Boot{Seen: true}, LastOutput: now.Add(-2 * time.Second)},
			rules:  &StatusRules{Quiet: 2 * time.Second},
			status: StatusIdle, why: "quiescence"},
		{name: "no output ever is quiescent",
			sig:    Inputs{Boot: Boot{Seen: true}},
			status: StatusIdle, why: "quiescence"},
		{name: "quiescence does not override a busy screen",
			sig:    Inputs{Boot: Boot{Seen: true}, Screen: TextRows(busyText), LastOutput: quietOutput},
			status: StatusBusy, why: "screen: " + busyText},
		{name: "quiescence does not override a busy hook",
			sig:    Inputs{Boot: Boot{Seen: true}, Hook: report(StatusBusy, now), LastOutput: quietOutput},
			status: StatusBusy, why: "hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rules
			if tt.rules != nil {
				r = *tt.rules
			}
			in := tt.sig
			in.Now = now
			j := Judge(in, r)
			if j.Status != tt.status || j.Signal() != tt.why {
				t.Errorf("Judge = (%v, %q), want (%v, %q)\n%s", j.Status, j.Signal(), tt.status, tt.why, dump(j))
			}
			checkOneDecides(t, j)
		})
	}
}

func TestStatusDebouncer(t *testing.T) {
	type step struct {
		at   time.Duration
		raw  Status
		want Status
	}
	tests := []struct {
		name  string
		steps []step
		after time.Duration // StatusDebouncer.After (status_debounce)
	}{
		{"busy is adopted at once", []step{{0, StatusBusy, StatusBusy}}, 0},
		{"waiting is adopted at once", []step{{0, StatusWaiting, StatusWaiting}}, 0},
		{"exited is adopted at once", []step{{0, StatusExited, StatusExited}}, 0},
		{"idle is adopted only after 300ms of continuous idle", []step{
			{0, StatusBusy, StatusBusy},
			{time.Second, StatusIdle, StatusBusy},
			{time.Second + StatusDebounce - time.Nanosecond, StatusIdle, StatusBusy},
			{time.Second + StatusDebounce, StatusIdle, StatusIdle},
		}, 0},
		{"starting to idle is debounced too", []step{
			{0, StatusIdle, StatusStarting},
			{StatusDebounce, StatusIdle, StatusIdle},
		}, 0},
		{"a busy blip restarts the idle wait", []step{
			{0, StatusIdle, StatusStarting},
			{100 * ms, StatusBusy, StatusBusy},
			{200 * ms, StatusIdle, StatusBusy},
			{200*ms + StatusDebounce - time.Nanosecond, StatusIdle, StatusBusy},
			{200*ms + StatusDebounce, StatusIdle, StatusIdle},
		}, 0},
		{"idle to busy is adopted at once", []step{
			{0, StatusIdle, StatusStarting},
			{time.Second, StatusIdle, StatusIdle},
			{time.Second + time.Nanosecond, StatusBusy, StatusBusy},
		}, 0},
		{"idle to waiting is adopted at once", []step{
			{0, StatusIdle, StatusStarting},
			{time.Second, StatusIdle, StatusIdle},
			{time.Second + time.Nanosecond, StatusWaiting, StatusWaiting},
		}, 0},
		{"staying idle stays idle", []step{
			{0, StatusIdle, StatusStarting},
			{time.Second, StatusIdle, StatusIdle},
			{time.Second + time.Nanosecond, StatusIdle, StatusIdle},
		}, 0},
		{"status_debounce 2s: idle is adopted only after 2s of continuous idle", []step{
			{0, StatusBusy, StatusBusy},
			{time.Second, StatusIdle, StatusBusy},
			{time.Second + StatusDebounce, StatusIdle, StatusBusy},
			{3*time.Second - time.Nanosecond, StatusIdle, StatusBusy},
			{3 * time.Second, StatusIdle, StatusIdle},
		}, 2 * time.Second},
		{"status_debounce 50ms: idle is adopted after 50ms", []step{
			{0, StatusIdle, StatusStarting},
			{50 * ms, StatusIdle, StatusIdle},
		}, 50 * ms},
		{"status_debounce 2s: busy is still adopted at once", []step{
			{0, StatusIdle, StatusStarting},
			{2 * time.Second, StatusIdle, StatusIdle},
			{2*time.Second + time.Nanosecond, StatusBusy, StatusBusy},
		}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := StatusDebouncer{After: tt.after}
			if got := d.Current(); got != StatusStarting {
				t.Fatalf("zero StatusDebouncer.Current() = %v, want starting", got)
			}
			for i, s := range tt.steps {
				got := d.Update(s.raw, at(s.at))
				if got != s.want {
					t.Fatalf("step %d: Update(%v, t0+%v) = %v, want %v", i, s.raw, s.at, got, s.want)
				}
				if cur := d.Current(); cur != got {
					t.Fatalf("step %d: Current() = %v, Update returned %v", i, cur, got)
				}
			}
		})
	}
}
