package automation

import (
	"testing"
	"time"
)

func TestIsStale(t *testing.T) {
	tests := []struct {
		name string
		ts   time.Time
		now  time.Time
		want bool
	}{
		{"zero timestamp is never stale", time.Time{}, at(1000 * time.Hour), false},
		{"fresh is not stale", at(0), at(time.Millisecond), false},
		{"one nanosecond before the window is not stale", at(0), at(StaleAfter - time.Nanosecond), false},
		{"exactly StaleAfter is stale", at(0), at(StaleAfter), true},
		{"past the window is stale", at(0), at(StaleAfter + time.Hour), true},
		{"timestamp in the future is not stale", at(time.Hour), at(0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsStale(tt.ts, tt.now, 0); got != tt.want {
				t.Errorf("IsStale(%v, %v) = %v, want %v", tt.ts, tt.now, got, tt.want)
			}
		})
	}
}

func TestBlockReason(t *testing.T) {
	draft := State{Dirty: true, DirtyAt: at(0)}
	picker := State{PickerLatched: true, PickerAt: at(0)}
	tests := []struct {
		name string
		s    State
		now  time.Duration
		want Block
	}{
		{"zero state is free", State{}, 0, BlockNone},
		{"exited blocks", State{Exited: true}, 0, BlockExited},
		{"exited beats picker, draft and settling",
			State{Exited: true, PickerLatched: true, PickerAt: at(0), Dirty: true, DirtyAt: at(0), SettleUntil: at(time.Hour)}, 0, BlockExited},
		{"exited never goes stale", State{Exited: true}, 1000 * time.Hour, BlockExited},
		{"latched picker blocks", picker, time.Millisecond, BlockPicker},
		{"picker still blocks at 10 min", picker, 10 * time.Minute, BlockPicker},
		{"picker free at exactly 30 min", picker, StaleAfter, BlockNone},
		{"picker with zero time never expires", State{PickerLatched: true}, 1000 * time.Hour, BlockPicker},
		{"picker and draft together report picker",
			State{PickerLatched: true, PickerAt: at(0), Dirty: true, DirtyAt: at(0)}, time.Minute, BlockPicker},
		{"stale picker falls through to a fresh draft",
			State{PickerLatched: true, PickerAt: at(0), Dirty: true, DirtyAt: at(20 * time.Minute)}, StaleAfter, BlockDraft},
		{"draft typed at T blocks at T+1ms", draft, time.Millisecond, BlockDraft},
		{"draft typed at T blocks at T+10min", draft, 10 * time.Minute, BlockDraft},
		{"draft blocks one nanosecond before 30 min", draft, StaleAfter - time.Nanosecond, BlockDraft},
		{"draft typed at T is automatable at exactly T+30min", draft, StaleAfter, BlockNone},
		{"draft with zero time never expires", State{Dirty: true}, 1000 * time.Hour, BlockDraft},
		{"DirtyAt without Dirty does not block", State{DirtyAt: at(0)}, time.Millisecond, BlockNone},
		{"PickerAt without latch does not block", State{PickerAt: at(0)}, time.Millisecond, BlockNone},
		{"draft beats settling", State{Dirty: true, DirtyAt: at(0), SettleUntil: at(time.Second)}, 0, BlockDraft},
		{"stale draft falls through to settling",
			State{Dirty: true, DirtyAt: at(0), SettleUntil: at(StaleAfter + time.Second)}, StaleAfter, BlockSettling},
		{"settling blocks at SettleUntil-1ns", State{SettleUntil: at(time.Second)}, time.Second - time.Nanosecond, BlockSettling},
		{"settling is free at exactly SettleUntil", State{SettleUntil: at(time.Second)}, time.Second, BlockNone},
		{"settling is free after SettleUntil", State{SettleUntil: at(time.Second)}, time.Hour, BlockNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BlockReason(tt.s, at(tt.now)); got != tt.want {
				t.Errorf("BlockReason(%+v, t0+%v) = %v, want %v", tt.s, tt.now, got, tt.want)
			}
		})
	}
}

func TestBlockString(t *testing.T) {
	tests := []struct {
		b    Block
		want string
	}{
		{BlockNone, ""},
		{BlockExited, "exited"},
		{BlockPicker, "picker open"},
		{BlockDraft, "your draft"},
		{BlockSettling, "settling"},
	}
	for _, tt := range tests {
		if got := tt.b.String(); got != tt.want {
			t.Errorf("Block(%d).String() = %q, want %q", int(tt.b), got, tt.want)
		}
	}
}
