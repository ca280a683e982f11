package configs

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"office/automation"
)

func TestBuiltinProfiles(t *testing.T) {
	ps, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(ps))
	if want := []string{"claude", "codex", "custom", "gemini", "shell"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("built-in profiles %q, want %q", names, want)
	}
	builtin := automation.DefaultInteractiveCommands()
	for name, p := range ps {
		if p.Name != name {
			t.Errorf("%s: Name %q", name, p.Name)
		}
		if err := checkName(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if (len(p.Command) == 0) != (name == ProfileCustom) {
			t.Errorf("%s: command %q (only custom has none)", name, p.Command)
		}
		for _, r := range p.TitleBusy {
			if strings.ContainsRune(p.TitleIdle, r) {
				t.Errorf("%s: %q is both a busy and an idle title rune", name, r)
			}
		}
		for _, verb := range slices.Concat(p.Compact, p.Clear, p.Interactive) {
			if !strings.HasPrefix(verb, "/") {
				t.Errorf("%s: command %q has no slash", name, verb)
			}
		}
		for _, c := range p.Interactive {
			if slices.Contains(builtin, c) {
				t.Errorf("%s: interactive %q repeats one of the built-in 15", name, c)
			}
		}
		for _, m := range p.ReadyMarkers {
			if slices.ContainsFunc(p.Busy, func(b string) bool { return strings.Contains(m, b) || strings.Contains(b, m) }) {
				t.Errorf("%s: ready marker %q overlaps a busy pattern", name, m)
			}
		}
		for _, w := range p.Waiting {
			if slices.Contains(p.Idle, w) || slices.Contains(p.Busy, w) {
				t.Errorf("%s: waiting pattern %q is also busy or idle", name, w)
			}
		}
		if p.ShellIdle && !p.Unverifiable {
			t.Errorf("%s: a shell's prompt cannot be read; want unverifiable", name)
		}
		if p.PromptMarker == "" && !p.Unverifiable {
			t.Errorf("%s: no prompt marker, so the submit check cannot run; want unverifiable", name)
		}
	}
}

// TestBuiltinProfileFacts pins the facts measured on the pinned CLIs (README,
// "Tested CLI versions"). Changing one should be a deliberate edit of
// profiles.toml and this table together.
func TestBuiltinProfileFacts(t *testing.T) {
	ps, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	claude, codex, gemini, shell, custom := ps["claude"], ps["codex"], ps["gemini"], ps["shell"], ps["custom"]
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", what, got, want)
		}
	}
	check("claude env", claude.Env, map[string]string{
		"DISABLE_AUTOUPDATER":                                  "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC":             "1",
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
	})
	check("claude pass_env", claude.PassEnv, []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR"})
	check("claude ready", claude.ReadyMarkers, []string{"(shift+tab to cycle) || ? for shortcuts"})
	check("checked versions", []string{claude.CheckedVersion, codex.CheckedVersion, gemini.CheckedVersion}, []string{"2.1.332", "0.171.0", "0.61.0"})
	check("claude version args", claude.VersionArgs, []string{"--version"})
	check("claude idle", claude.Idle, []string{"(shift+tab to cycle)", "? for shortcuts"})
	check("claude prompt", []any{claude.PromptMarker, claude.PromptColumn, claude.PromptBetweenRules}, []any{"❯", 0, true})
	check("claude title", []any{claude.TitleBraille, claude.TitleIdle}, []any{true, "✳"})
	check("claude busy", claude.Busy, []string{"esc to interrupt"})
	check("claude compact", claude.Compact, []string{"/compact"})
	check("claude enter while busy", claude.EnterWhileBusy, EnterQueues)
	for _, w := range []string{"Do you want to proceed?", "Do you trust the files in this folder?", "Yes, I trust this folder",
		"Try the new fullscreen renderer?", "Make auto mode your default permission mode?"} {
		if !slices.Contains(claude.Waiting, w) {
			t.Errorf("claude waiting lacks %q", w)
		}
	}
	// A picker footer must not read as a dialog: the picker latch holds it.
	if slices.Contains(claude.Waiting, "Enter to confirm · Esc to cancel") {
		t.Error("claude waiting holds a picker footer")
	}

	check("codex command", codex.Command, []string{"codex"})
	if !strings.Contains(strings.Join(codex.Args, " "), "--disable daemon_auto_start") {
		t.Errorf("codex args %q do not disable the daemon", codex.Args)
	}
	check("codex env", codex.Env, map[string]string{"CODEX_TUI_DISABLE_KEYBOARD_ENHANCEMENT": "1"})
	check("codex ready", codex.ReadyMarkers, []string{"← for agents", "? for shortcuts"})
	check("codex prompt", []any{codex.PromptMarker, codex.PromptColumn, codex.PromptBetweenRules}, []any{"›", 0, false})
	check("codex enter while busy", codex.EnterWhileBusy, EnterSteers)
	if !slices.Contains(codex.Waiting, "Trust this folder?") {
		t.Errorf("codex waiting lacks the trust dialog")
	}
	for _, w := range codex.Waiting {
		if strings.Contains(w, "enter select") {
			t.Errorf("codex waiting %q is a picker footer", w)
		}
	}

	check("gemini env", gemini.Env, map[string]string{"GEMINI_CLI_NO_RELAUNCH": "true", "COLORTERM": "truecolor"})
	check("gemini ready", gemini.ReadyMarkers, []string{"Type your message"})
	check("gemini prompt", []any{gemini.PromptMarker, gemini.PromptColumn, gemini.PromptBetweenRules}, []any{">", 1, false})
	check("gemini title", []any{gemini.TitleBusy, gemini.TitleIdle}, []any{"✦", "◇"})
	check("gemini busy", gemini.Busy, []string{"esc to cancel"})
	check("gemini delays", []time.Duration{gemini.EnterDelay.Duration, gemini.PasteEnterDelay.Duration},
		[]time.Duration{150 * time.Millisecond, 700 * time.Millisecond})
	check("gemini compact", gemini.Compact, []string{"/compress"})
	check("gemini enter while busy", gemini.EnterWhileBusy, EnterQueues)

	check("shell", []any{shell.Command, shell.Args, shell.ShellIdle, shell.LineByLine, shell.Unverifiable},
		[]any{[]string{"bash"}, []string(nil), true, true, true})
	check("custom", []any{custom.Command, custom.LineByLine, custom.Unverifiable, custom.Quiet.Duration},
		[]any{[]string(nil), true, true, 12 * time.Second})
}

// TestReadySettleMatchesAutomation cross-checks the profiles with the
// constants automation names for the same facts.
func TestReadySettleMatchesAutomation(t *testing.T) {
	ps, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]time.Duration{
		"claude": automation.ClaudeReadySettle,
		"codex":  automation.CodexReadySettle,
		"gemini": automation.GeminiReadySettle,
	} {
		if got := ps[name].ReadySettle.Duration; got != want {
			t.Errorf("%s ready_settle %v, automation says %v", name, got, want)
		}
	}
	if got := ps["custom"].Quiet.Duration; got != automation.QuietAfter {
		t.Errorf("custom quiet %v, automation.QuietAfter %v", got, automation.QuietAfter)
	}
}

// TestProfileKeysCoverEveryField makes sure every Profile field (but Name)
// has a TOML key.
func TestProfileKeysCoverEveryField(t *testing.T) {
	keys := []string{"command", "args", "resume", "session_id", "session_file", "hooks", "channel", "delivery", "records", "env", "env_files", "pass_env", "ready_markers", "ready_settle",
		"prompt_marker", "prompt_column", "prompt_placeholders", "prompt_between_rules", "title_busy", "title_idle", "title_braille",
		"busy", "idle", "waiting", "quiet", "interactive", "compact", "clear", "enter_delay",
		"paste_enter_delay", "enter_retries", "enter_after_echo", "enter_while_busy", "shell_idle", "line_by_line", "unverifiable",
		"limits", "checked_version", "version_args"}
	if n := reflect.TypeFor[Profile]().NumField() - 1; n != len(keys) { // minus Name
		t.Errorf("Profile has %d settable fields, the test knows %d keys", n, len(keys))
	}
	var p Profile
	for _, k := range keys {
		if known, _ := setProfileKey(&p, k, nil); !known {
			t.Errorf("key %q unknown to setProfileKey", k)
		}
	}
}

// UsesChannel: the channel where the profile declares one office installs
// and the delivery (the agent's, else the profile's) is not "type".
func TestUsesChannel(t *testing.T) {
	claude := Profile{Hooks: HooksClaude, Channel: ChannelStopHook}
	codex := Profile{Hooks: HooksCodex, Channel: ChannelStopHook, Delivery: DeliveryType}
	for _, tc := range []struct {
		name  string
		p     Profile
		agent string
		want  bool
	}{
		{"claude, auto by default", claude, "", true},
		{"claude, the agent types", claude, DeliveryType, false},
		{"claude's profile types", Profile{Hooks: HooksClaude, Channel: ChannelStopHook, Delivery: DeliveryType}, "", false},
		{"the agent's auto wins over its profile's type", codex, DeliveryAuto, true},
		{"codex, off by default", codex, "", false},
		{"a channel office does not install", Profile{Channel: ChannelStopHook}, DeliveryAuto, false},
		{"no channel", Profile{Hooks: HooksClaude}, DeliveryAuto, false},
	} {
		if got := UsesChannel(tc.p, tc.agent); got != tc.want {
			t.Errorf("%s: UsesChannel = %v, want %v", tc.name, got, tc.want)
		}
	}
	// The built-in profiles: claude takes its Stop hook, codex only when
	// asked, gemini never.
	ps, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	if !UsesChannel(ps["claude"], "") || UsesChannel(ps["codex"], "") || !UsesChannel(ps["codex"], DeliveryAuto) || UsesChannel(ps["gemini"], DeliveryAuto) {
		t.Errorf("built-in channels: claude %v, codex %v (auto %v), gemini %v", UsesChannel(ps["claude"], ""),
			UsesChannel(ps["codex"], ""), UsesChannel(ps["codex"], DeliveryAuto), UsesChannel(ps["gemini"], DeliveryAuto))
	}
}
