package automation

import (
	"slices"
	"testing"
)

func TestOpensInteractiveUI(t *testing.T) {
	tests := []struct {
		name  string
		input string
		extra []string
		want  bool
	}{
		{"bare /model latches", "/model", nil, true},
		{"bare /provider with surrounding spaces latches", " /provider ", nil, true},
		{"upper case is folded", "/MODEL", nil, true},
		{"trailing newline is trimmed", "/resume\n", nil, true},
		{"/compact is not interactive", "/compact", nil, false},
		{"plain prose is not a command", "implement this", nil, false},
		{"/model with an argument applies and does not latch", "/model sonnet", nil, false},
		{"/permissions with an argument does not latch", "/permissions allow", nil, false},
		{"a tab counts as whitespace", "/model\tsonnet", nil, false},
		{"ideographic space counts as whitespace", "/model\u3000sonnet", nil, false},
		{"empty input is not a command", "", nil, false},
		{"blank input is not a command", "   ", nil, false},
		{"a prefix of a command is not the command", "/mode", nil, false},
		{"a command without its slash is not the command", "model", nil, false},
		{"profile extra latches", "/agents", []string{"/agents"}, true},
		{"profile extra is compared trimmed and lower-cased", "/Agents", []string{" /AGENTS "}, true},
		{"without the extra it does not latch", "/agents", nil, false},
		{"blank extra never matches blank input", "", []string{"", " "}, false},
		{"extra with arguments never matches", "/a b", []string{"/a b"}, false},
		{"defaults still apply with extras", "/model", []string{"/agents"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OpensInteractiveUI(tt.input, tt.extra); got != tt.want {
				t.Errorf("OpensInteractiveUI(%q, %q) = %v, want %v", tt.input, tt.extra, got, tt.want)
			}
		})
	}
}

func TestDefaultInteractiveCommands(t *testing.T) {
	want := []string{
		"/model", "/reasoning", "/permissions", "/permission", "/provider",
		"/settings", "/config", "/experimental", "/experiments", "/hooks",
		"/mcp", "/apps", "/plugins", "/resume", "/sessions",
	}
	got := DefaultInteractiveCommands()
	if !slices.Equal(got, want) {
		t.Fatalf("DefaultInteractiveCommands() = %q, want the seed's 15 %q", got, want)
	}
	for _, c := range got {
		if !OpensInteractiveUI(c, nil) {
			t.Errorf("OpensInteractiveUI(%q, nil) = false for a default command", c)
		}
	}
	got[0] = "/changed"
	if again := DefaultInteractiveCommands(); again[0] != "/model" {
		t.Errorf("changing the returned slice changed the table: %q", again[0])
	}
	if OpensInteractiveUI("/changed", nil) {
		t.Error("changing the returned slice changed OpensInteractiveUI")
	}
}
