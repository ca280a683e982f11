package automation

import (
	"strings"
	"testing"
)

// The screens of the screen gate's table, as Claude Code 2.1.332 and the
// other CLIs draw them (rows joined by "\n").
const (
	rule = "────────────────────────────────────────"

	claudeIdle = " ▐▛███▛█   Claude Code v2.1.332\n" +
		"▝▜██████▀  Opus 5.5 · API Usage Billing\n\n" +
		"                                              ◐ medium · /effort\n" +
		rule + "\n❯\u00a0\n" + rule + "\n" +
		"  ⏵⏵ auto mode on (shift+tab to cycle) · ← for agents"

	fullscreenOffer = " Try the new fullscreen renderer?\n\n" +
		" Smoother scrolling and no flicker.\n\n" +
		" ❯ 1. Yes, try it\n" +
		"   2. Not now\n\n" +
		" Enter to confirm · Esc to cancel"

	autoModeOffer = " Make auto mode your default permission mode?\n\n" +
		" ❯ Yes, set auto mode as my default permission mode\n" +
		"   No, keep manual mode\n\n" +
		" Not answered yet · ↑/↓ to choose · Esc to cancel"

	trustUnnumbered = " Accessing workspace:\n\n /tmp/proj\n\n" +
		" Quick safety check: Is this a project you created or one you trust?\n\n" +
		" ❯ No, exit\n" +
		"   Yes, I trust this folder\n\n" +
		" Enter to confirm · Esc to cancel"
)

// TestReadScreen is the screen gate's table: only a screen that shows the
// profile's prompt, empty, and no dialog lets typing go ahead. Screens that
// are neither prompt nor a known dialog hold, and so do dialogs no profile
// has seen, by their shape.
func TestReadScreen(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		row   string
		rowOK bool
		want  ScreenKind
	}{
		{"claude 2.1.332 idle, prompt empty", claudeIdle, "❯\u00a0", true, ScreenPrompt},
		{"a numbered list in a reply has no pointer", "● Steps:\n  1. build\n  2. test\n" + claudeIdle, "❯\u00a0", true, ScreenPrompt},
		{"gemini's busy line is lowercase, no dialog", " ⠼ Thinking... (esc to cancel, 4s)\n > Type your message", ">", true, ScreenPrompt},
		{"text on the prompt row", claudeIdle, "❯\u00a0hi", true, ScreenPromptText},

		// Neither prompt nor a known dialog: unknown, held.
		{"splash, nothing drawn yet", "Welcome to Claude Code v2.1.332", "", false, ScreenUnknown},
		{"blank screen", "", "", false, ScreenUnknown},
		{"a notice box with no options", " Unable to connect to Anthropic services\n Please check your internet connection.", "", false, ScreenUnknown},
		{"a login screen with a prompt elsewhere", " Select login method:\n  Claude account\n  Console account", "", false, ScreenUnknown},

		// Dialogs, new and old, by shape: held even with a prompt-like row.
		{"fullscreen renderer offer", fullscreenOffer, "❯ 1. Yes, try it", true, ScreenDialog},
		{"auto mode offer, unnumbered", autoModeOffer, "", false, ScreenDialog},
		{"trust dialog, unnumbered, safe option first", trustUnnumbered, "", false, ScreenDialog},
		{"never-seen dialog: numbered with a pointer, no footer", " Pick a theme\n ❯ 1. Dark\n   2. Light", "", false, ScreenDialog},
		{"never-seen dialog: radio bullets", " Allow it?\n ● 1. Allow once\n   2. Deny", "", false, ScreenDialog},
		{"never-seen dialog: codex pointer", "  Update now?\n› 1. Yes\n  2. Skip", "", false, ScreenDialog},
		{"never-seen dialog: only an Esc hint", " Something new happened\n Press Esc to cancel", "", false, ScreenDialog},
		{"never-seen dialog: only arrows", " Choose\n ↑↓ to choose", "", false, ScreenDialog},
		{"auto mode offer as drawn on a full 40-row screen: no footer", " Make auto mode your default permission mode?\n\n  ❯ Yes, set auto mode as my default permission mode\n    No, keep manual mode\n\n", "", false, ScreenDialog},
		{"never-seen dialog: unnumbered pointer, option above", "  Keep going?\n    Stop here\n  ❯ Go on", "", false, ScreenDialog},
		{"a past prompt at the left edge is no pointer", "❯ hello there\n  second line of it\n\n● OK done.\n" + claudeIdle, "❯\u00a0", true, ScreenPrompt},
		// Above an empty prompt is the transcript: its numbered rows are no
		// dialog (a dialog replaces the prompt or sits at or below it).
		{"a past prompt of numbered lines above the empty prompt", "❯ 1. fix foo\n  2. fix bar\n\n● Done.\n" + claudeIdle, "❯\u00a0", true, ScreenPrompt},
		{"a reply of numbered lines above the empty prompt", "❯ fix both\n\n● 1. Fixed foo\n  2. Fixed bar\n" + claudeIdle, "❯\u00a0", true, ScreenPrompt},
		{"a pointer list above the empty prompt", " Rate this session\n ❯ 1. Good\n   2. Bad\n" + claudeIdle, "❯\u00a0", true, ScreenPrompt},
		{"a footer hint below the empty prompt", claudeIdle + "\n Enter to confirm · Esc to cancel", "❯\u00a0", true, ScreenDialog},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReadScreen(tt.text, tt.row, tt.rowOK)
			if got.Kind != tt.want {
				t.Fatalf("ReadScreen = %v (shape %q), want %v", got.Kind, got.Shape, tt.want)
			}
			if got.Typable() != (tt.want == ScreenPrompt) {
				t.Fatalf("Typable = %v for %v", got.Typable(), got.Kind)
			}
			if got.Kind == ScreenDialog && got.Shape == "" {
				t.Fatal("a dialog without the shape that made it one")
			}
		})
	}
}

func TestScreenHead(t *testing.T) {
	got := ScreenHead("\n\n  first   \n\n second\u00a0\n"+strings.Repeat("x", 30)+"\nfourth", 3, 10)
	want := []string{"  first", " second", strings.Repeat("x", 10) + "…"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ScreenHead = %q, want %q", got, want)
	}
}

func TestScreenKindString(t *testing.T) {
	for k, want := range map[ScreenKind]string{ScreenPrompt: "prompt", ScreenDialog: "dialog", ScreenUnknown: "unknown screen", ScreenPromptText: "text on the prompt"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", k, k.String(), want)
		}
	}
}
