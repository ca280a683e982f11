package automation

import (
	"testing"
	"time"
)

func TestReadySettled(t *testing.T) {
	tests := []struct {
		name   string
		since  time.Time
		settle time.Duration
		now    time.Duration
		want   bool
	}{
		{"marker never seen is not settled", time.Time{}, ClaudeReadySettle, time.Hour, false},
		{"claude marker 1ns short of 400ms", at(0), ClaudeReadySettle, 400*time.Millisecond - time.Nanosecond, false},
		{"claude marker settled at exactly 400ms", at(0), ClaudeReadySettle, 400 * time.Millisecond, true},
		{"codex marker not settled at 400ms", at(0), CodexReadySettle, 400 * time.Millisecond, false},
		{"codex marker settled at 500ms", at(0), CodexReadySettle, 500 * time.Millisecond, true},
		{"gemini marker settled at 500ms", at(0), GeminiReadySettle, 500 * time.Millisecond, true},
		{"custom command quiet 2s", at(0), CustomReadyQuiet, 2 * time.Second, true},
		{"custom command quiet 1.9s is not ready", at(0), CustomReadyQuiet, 1900 * time.Millisecond, false},
		{"zero settle is settled at once", at(0), 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadySettled(tt.since, tt.settle, at(tt.now)); got != tt.want {
				t.Errorf("ReadySettled(%v, %v, t0+%v) = %v, want %v", tt.since, tt.settle, tt.now, got, tt.want)
			}
		})
	}
}

func TestBootGraceOver(t *testing.T) {
	tests := []struct {
		name    string
		spawned time.Time
		ready   bool
		grace   time.Duration
		now     time.Duration
		want    bool
	}{
		{"ready opens the gate at once", at(0), true, 0, 0, true},
		{"not ready within the grace", at(0), false, 0, BootGrace - time.Nanosecond, false},
		{"not ready opens at exactly 35s", at(0), false, 0, BootGrace, true},
		{"not ready long after spawn", at(0), false, 0, time.Hour, true},
		{"zero spawn time counts as long ago", time.Time{}, false, 0, 0, true},
		{"a shorter grace opens sooner", at(0), false, 5 * time.Second, 5 * time.Second, true},
		{"a longer grace holds past 35s", at(0), false, time.Minute, BootGrace, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BootGraceOver(tt.spawned, tt.ready, tt.grace, at(tt.now)); got != tt.want {
				t.Errorf("BootGraceOver(%v, %v, %v, t0+%v) = %v, want %v", tt.spawned, tt.ready, tt.grace, tt.now, got, tt.want)
			}
		})
	}
	if BootGrace != 35*time.Second {
		t.Errorf("BootGrace = %v, want the seed's 35s", BootGrace)
	}
}

func TestMarkerShownTakesEitherAlternative(t *testing.T) {
	m := "(shift+tab to cycle) || ? for shortcuts"
	for screen, want := range map[string]bool{
		"  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents": true,
		"  ⏸ plan mode on (shift+tab to cycle)":                 true,
		"  ⏸ manual mode on · ? for shortcuts":                  true,
		"  ? for shortcuts":                                     true,
		"  esc to interrupt":                                    false,
	} {
		if got := MarkerShown(TextRows(screen), m); got != want {
			t.Errorf("MarkerShown(%q) = %v, want %v", screen, got, want)
		}
	}
	if got := MarkerTexts([]string{"A || B", "C"}); len(got) != 3 || got[1] != "B" {
		t.Errorf("MarkerTexts = %q", got)
	}
}
