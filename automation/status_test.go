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

func TestDetectStatus(t *testing.T) {
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
		sig    Signals
		rules  *StatusRules // nil: the shared rules
		status Status
		why    string
	}{
		{name: "exited beats everything",
			sig:    Signals{Exited: true, Hook: StatusBusy, Screen: waitText},
			status: StatusExited, why: "exited"},
		{name: "not ready is starting",
			sig:    Signals{Hook: StatusIdle, Screen: waitText, LastOutput: quietOutput},
			status: StatusStarting, why: "starting"},
		{name: "a waiting screen beats a hook saying idle",
			sig:    Signals{Ready: true, Hook: StatusIdle, Screen: "header\n" + waitText + "\n1. Yes"},
			status: StatusWaiting, why: "screen: " + waitText},
		{name: "a waiting screen beats an idle screen pattern",
			sig:    Signals{Ready: true, Screen: idleText + "\n" + waitText, LastOutput: quietOutput},
			status: StatusWaiting, why: "screen: " + waitText},
		{name: "a waiting screen beats OSC idle and an idle title",
			sig:    Signals{Ready: true, OSCState: "idle", Title: "✳ Claude", Screen: waitText},
			status: StatusWaiting, why: "screen: " + waitText},
		{name: "a waiting pattern is skipped inside a sync frame",
			sig:    Signals{Ready: true, InSyncFrame: true, Hook: StatusIdle, Screen: waitText},
			status: StatusIdle, why: "hook"},
		{name: "a hook saying busy beats OSC idle",
			sig:    Signals{Ready: true, Hook: StatusBusy, OSCState: "idle"},
			status: StatusBusy, why: "hook"},
		{name: "a hook saying idle beats recent output and a busy screen",
			sig:    Signals{Ready: true, Hook: StatusIdle, Screen: busyText, LastOutput: now},
			status: StatusIdle, why: "hook"},
		{name: "OSC working is busy",
			sig:    Signals{Ready: true, OSCState: "working", Title: "✳ x", LastOutput: quietOutput},
			status: StatusBusy, why: "osc-state"},
		{name: "OSC idle beats a busy title",
			sig:    Signals{Ready: true, OSCState: "idle", Title: "* working", LastOutput: now},
			status: StatusIdle, why: "osc-state"},
		{name: "OSC done (Codex after a turn) is idle",
			sig:    Signals{Ready: true, OSCState: "done", Title: "* working", LastOutput: now},
			status: StatusIdle, why: "osc-state"},
		{name: "OSC blocked (Codex approval) is waiting",
			sig:    Signals{Ready: true, OSCState: "blocked", Title: "✳ x"},
			status: StatusWaiting, why: "osc-state"},
		{name: "an unknown OSC state is ignored",
			sig:    Signals{Ready: true, OSCState: "thinking", Title: "✳ x"},
			status: StatusIdle, why: "title"},
		{name: "a busy title rune is busy",
			sig:    Signals{Ready: true, Title: "* Working", LastOutput: quietOutput},
			status: StatusBusy, why: "title"},
		{name: "a braille spinner title is busy",
			sig:    Signals{Ready: true, Title: "⠋ gemini", LastOutput: quietOutput},
			status: StatusBusy, why: "title"},
		{name: "a braille title without the braille rule decides nothing",
			sig:    Signals{Ready: true, Title: "⠋ gemini", LastOutput: quietOutput},
			rules:  &StatusRules{},
			status: StatusIdle, why: "quiescence"},
		{name: "an idle title rune is idle",
			sig:    Signals{Ready: true, Title: "✳ Claude Code", Screen: busyText, LastOutput: now},
			status: StatusIdle, why: "title"},
		{name: "leading spaces in the title are skipped",
			sig:    Signals{Ready: true, Title: "  ✳ Claude Code", LastOutput: now},
			status: StatusIdle, why: "title"},
		{name: "a rune in both title sets means busy",
			sig:    Signals{Ready: true, Title: "✳"},
			rules:  &StatusRules{TitleBusy: "✳", TitleIdle: "✳"},
			status: StatusBusy, why: "title"},
		{name: "a title rune in neither set decides nothing",
			sig:    Signals{Ready: true, Title: "claude", Screen: idleText},
			status: StatusIdle, why: "screen: " + idleText},
		{name: "a busy screen pattern is busy",
			sig:    Signals{Ready: true, Screen: "… " + busyText, LastOutput: quietOutput},
			status: StatusBusy, why: "screen: " + busyText},
		{name: "an idle screen pattern is idle despite recent output",
			sig:    Signals{Ready: true, Screen: idleText, LastOutput: now},
			status: StatusIdle, why: "screen: " + idleText},
		{name: "a busy pattern beats an idle pattern",
			sig:    Signals{Ready: true, Screen: busyText + "\n" + idleText},
			status: StatusBusy, why: "screen: " + busyText},
		{name: "screen patterns are skipped inside a sync frame",
			sig:    Signals{Ready: true, InSyncFrame: true, Screen: idleText, LastOutput: now.Add(-time.Second)},
			status: StatusBusy, why: "output"},
		{name: "a blank pattern never matches",
			sig:    Signals{Ready: true, Screen: "anything", LastOutput: quietOutput},
			rules:  &StatusRules{Waiting: []string{""}, Busy: []string{""}},
			status: StatusIdle, why: "quiescence"},
		{name: "output 1ns short of 12s quiet is busy",
			sig:    Signals{Ready: true, LastOutput: now.Add(-QuietAfter + time.Nanosecond)},
			status: StatusBusy, why: "output"},
		{name: "12s quiet is idle",
			sig:    Signals{Ready: true, LastOutput: now.Add(-QuietAfter)},
			status: StatusIdle, why: "quiescence"},
		{name: "a profile's quiet window replaces 12s",
			sig:    Signals{Ready: true, LastOutput: now.Add(-2 * time.Second)},
			rules:  &StatusRules{Quiet: 2 * time.Second},
			status: StatusIdle, why: "quiescence"},
		{name: "no output ever is quiescent",
			sig:    Signals{Ready: true},
			status: StatusIdle, why: "quiescence"},
		{name: "quiescence does not override a busy screen",
			sig:    Signals{Ready: true, Screen: busyText, LastOutput: quietOutput},
			status: StatusBusy, why: "screen: " + busyText},
		{name: "quiescence does not override a busy hook",
			sig:    Signals{Ready: true, Hook: StatusBusy, LastOutput: quietOutput},
			status: StatusBusy, why: "hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rules
			if tt.rules != nil {
				r = *tt.rules
			}
			status, why := DetectStatus(tt.sig, r, now)
			if status != tt.status || why != tt.why {
				t.Errorf("DetectStatus = (%v, %q), want (%v, %q)", status, why, tt.status, tt.why)
			}
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
	}{
		{"busy is adopted at once", []step{{0, StatusBusy, StatusBusy}}},
		{"waiting is adopted at once", []step{{0, StatusWaiting, StatusWaiting}}},
		{"exited is adopted at once", []step{{0, StatusExited, StatusExited}}},
		{"idle is adopted only after 300ms of continuous idle", []step{
			{0, StatusBusy, StatusBusy},
			{time.Second, StatusIdle, StatusBusy},
			{time.Second + StatusDebounce - time.Nanosecond, StatusIdle, StatusBusy},
			{time.Second + StatusDebounce, StatusIdle, StatusIdle},
		}},
		{"starting to idle is debounced too", []step{
			{0, StatusIdle, StatusStarting},
			{StatusDebounce, StatusIdle, StatusIdle},
		}},
		{"a busy blip restarts the idle wait", []step{
			{0, StatusIdle, StatusStarting},
			{100 * ms, StatusBusy, StatusBusy},
			{200 * ms, StatusIdle, StatusBusy},
			{200*ms + StatusDebounce - time.Nanosecond, StatusIdle, StatusBusy},
			{200*ms + StatusDebounce, StatusIdle, StatusIdle},
		}},
		{"idle to busy is adopted at once", []step{
			{0, StatusIdle, StatusStarting},
			{time.Second, StatusIdle, StatusIdle},
			{time.Second + time.Nanosecond, StatusBusy, StatusBusy},
		}},
		{"idle to waiting is adopted at once", []step{
			{0, StatusIdle, StatusStarting},
			{time.Second, StatusIdle, StatusIdle},
			{time.Second + time.Nanosecond, StatusWaiting, StatusWaiting},
		}},
		{"staying idle stays idle", []step{
			{0, StatusIdle, StatusStarting},
			{time.Second, StatusIdle, StatusIdle},
			{time.Second + time.Nanosecond, StatusIdle, StatusIdle},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d StatusDebouncer
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
