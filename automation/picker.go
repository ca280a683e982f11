package automation

// The picker rule (seed 002 §3.1): only a bare interactive command opens a
// menu that automation must not type into. "/model" opens a picker; "/model
// sonnet" applies its argument and returns to the prompt, so it must not latch:
// a latch nothing clears would silently stop the agent's queue.

import (
	"strings"
	"unicode"
)

// interactiveCommands is the seed's INTERACTIVE_COMMANDS, in the seed's order.
// It is an array so no caller can change it.
var interactiveCommands = [...]string{
	"/model",
	"/reasoning",
	"/permissions",
	"/permission",
	"/provider",
	"/settings",
	"/config",
	"/experimental",
	"/experiments",
	"/hooks",
	"/mcp",
	"/apps",
	"/plugins",
	"/resume",
	"/sessions",
}

// DefaultInteractiveCommands returns the seed's 15 bare commands that open an
// interactive UI, lower-case with their slash, in the seed's order. The slice
// is a fresh copy on every call; changing it changes nothing else.
func DefaultInteractiveCommands() []string {
	out := make([]string, len(interactiveCommands))
	copy(out, interactiveCommands[:])
	return out
}

// OpensInteractiveUI reports whether submitting input opens an interactive UI
// (a picker) in the agent's CLI. input is trimmed and lower-cased; if any
// whitespace is left it has arguments and the answer is false. Otherwise it is
// true exactly when input is one of DefaultInteractiveCommands or one of extra
// (a profile's additional commands, compared trimmed and lower-cased; blank
// entries never match).
func OpensInteractiveUI(input string, extra []string) bool {
	cmd := strings.ToLower(strings.TrimSpace(input))
	if cmd == "" || strings.ContainsFunc(cmd, unicode.IsSpace) {
		return false
	}
	for _, c := range interactiveCommands {
		if c == cmd {
			return true
		}
	}
	for _, e := range extra {
		if strings.ToLower(strings.TrimSpace(e)) == cmd {
			return true
		}
	}
	return false
}
