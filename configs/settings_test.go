package configs

import (
	"strings"
	"testing"
	"time"

	"office/automation"
)

func TestSettings(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Settings() {
		if seen[s.Name] {
			t.Errorf("%s listed twice", s.Name)
		}
		seen[s.Name] = true
		switch s.Unit {
		case UnitDuration:
			if s.Duration <= 0 || s.N != 0 {
				t.Errorf("%s: duration %v, N %d", s.Name, s.Duration, s.N)
			}
		case UnitBytes, UnitCount:
			if s.N <= 0 || s.Duration != 0 {
				t.Errorf("%s: N %d, duration %v", s.Name, s.N, s.Duration)
			}
		default:
			t.Errorf("%s: unit %q", s.Name, s.Unit)
		}
		if !strings.Contains(s.Help, "seed") && !strings.Contains(s.Help, "design.md") {
			t.Errorf("%s: help cites no source: %q", s.Name, s.Help)
		}
	}
}

// TestSettingsValues pins the values the brief and the seeds give, and
// cross-checks the ones automation names.
func TestSettingsValues(t *testing.T) {
	byName := map[string]Setting{}
	for _, s := range Settings() {
		byName[s.Name] = s
	}
	want := map[string]string{
		"debounce":        "200ms",
		"tick":            "3s",
		"cooldown":        "4.5s",
		"paste_gap":       "140ms",
		"quiet":           "12s",
		"stale":           "30m0s",
		"boot_grace":      "35s",
		"verify":          "2s",
		"max_attempts":    "3",
		"paste_threshold": "512 bytes",
		"stall":           "6m0s",
		"mail_timeout":    "30m0s",
		"retention":       "168h0m0s",
	}
	for name, v := range want {
		s, ok := byName[name]
		if !ok {
			t.Errorf("no setting %q", name)
			continue
		}
		if s.Value() != v {
			t.Errorf("%s = %s, want %s", name, s.Value(), v)
		}
	}
	for name, d := range map[string]time.Duration{
		"stale":         automation.StaleAfter,
		"boot_grace":    automation.BootGrace,
		"quiet":         automation.QuietAfter,
		"echo_grace":    automation.EchoGrace,
		"picker_settle": automation.PickerCloseSettle,
	} {
		if got := byName[name].Duration; got != d {
			t.Errorf("%s = %v, automation says %v", name, got, d)
		}
	}
	if byName["mail_timeout"].Key != "mail_timeout" {
		t.Errorf("mail_timeout is settable in the file; Key %q", byName["mail_timeout"].Key)
	}
}
