package configs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// TestParseErrors checks each validation rule's message and line. Sources
// start with a blank line or comment where it helps keep line numbers
// honest (a line-0 bug would not pass).
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string
	}{
		{"TOML syntax",
			"# c\n[[agent]]\nname = \"a\"\nprofile = \n",
			"office.toml:4: TOML syntax: expected value but found '\\n' instead"},
		{"duplicate key is a syntax error",
			"\n[[agent]]\nname = \"a\"\nname = \"b\"\n",
			"office.toml:4: TOML syntax: Key 'agent.name' has already been defined."},
		{"unknown top-level key",
			"# c\n\nprefx = \"C-a\"\n",
			`office.toml:3: unknown key "prefx"`},
		{"unknown agent key",
			"\n[[agent]]\nname = \"a\"\nprofile = \"shell\"\ncomand = [\"x\"]\n",
			`office.toml:5: agent "a": unknown key "comand"`},
		{"unknown key in the second agent",
			"[[agent]]\nname = \"a\"\nprofile = \"shell\"\n\n[[agent]]\nname = \"b\"\nprofile = \"shell\"\nrol = \"x\"\n",
			`office.toml:8: agent "b": unknown key "rol"`},
		{"missing name",
			"[[agent]]\nname = \"a\"\nprofile = \"shell\"\n\n[[agent]]\nprofile = \"shell\"\n",
			`office.toml:5: agent #2: missing name (add name = "...")`},
		{"duplicate name",
			"# c\n[[agent]]\nname = \"a\"\nprofile = \"shell\"\n[[agent]]\nprofile = \"shell\"\nname = \"a\"\n",
			`office.toml:7: agent "a": duplicate name (first used at line 2)`},
		{"bad name",
			"[[agent]]\nprofile = \"shell\"\nname = \"my agent\"\n",
			`office.toml:3: agent #1: name: bad name "my agent": use 1 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit`},
		{"name too long",
			"[[agent]]\nprofile = \"shell\"\nname = \"" + strings.Repeat("a", 33) + "\"\n",
			`office.toml:3: agent #1: name: bad name "` + strings.Repeat("a", 33) + `": use 1 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit`},
		{"name starting with a dash",
			"[[agent]]\nprofile = \"shell\"\nname = \"-x\"\n",
			`office.toml:3: agent #1: name: bad name "-x": use 1 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit`},
		{"reserved name",
			"[[agent]]\nprofile = \"shell\"\nname = \"person\"\n",
			`office.toml:3: agent "person": the name "person" is reserved`},
		{"unknown profile",
			"# office\n\n\n\n\n\n\n\n\n[[agent]]\nname = \"x\"\nprofile = \"foo\"\n",
			`office.toml:12: agent "x": unknown profile "foo" (known: claude, codex, custom, gemini, shell)`},
		{"unknown profile lists the file's profiles",
			"[profile.mine]\ncommand = [\"m\"]\n[[agent]]\nname = \"x\"\nprofile = \"foo\"\n",
			`office.toml:5: agent "x": unknown profile "foo" (known: claude, codex, custom, gemini, mine, shell)`},
		{"neither profile nor command",
			"\n[[agent]]\nname = \"x\"\n",
			`office.toml:2: agent "x": no profile and no command (set profile = "claude", "codex", "gemini" or "shell", or command = ["program", ...])`},
		{"custom profile without command",
			"\n[[agent]]\nname = \"x\"\nprofile = \"custom\"\n",
			`office.toml:4: agent "x": profile "custom" has no command of its own: set command = ["program", ...]`},
		{"empty command",
			"[[agent]]\nname = \"x\"\n\ncommand = []\n",
			`office.toml:4: agent "x": command: empty command: want ["program", "arg", ...]`},
		{"blank program",
			"[[agent]]\nname = \"x\"\ncommand = [\" \", \"-v\"]\n",
			`office.toml:3: agent "x": command: the program (element 0) is blank`},
		{"command as a string",
			"[[agent]]\nname = \"x\"\ncommand = \"aider --model x\"\n",
			`office.toml:3: agent "x": command: want an array of strings like ["aider", "--model", "x"], got a string`},
		{"command element not a string",
			"[[agent]]\nname = \"x\"\ncommand = [\"a\", 1]\n",
			`office.toml:3: agent "x": command: element 1: want a string, got an integer`},
		{"bad restart",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\nrestart = \"sometimes\"\n",
			`office.toml:4: agent "x": restart: "sometimes" is not one of "never", "on-failure" or "always"`},
		{"parent that is not an agent",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\n[[agent]]\nname = \"y\"\nprofile = \"shell\"\nparent = \"z\"\n",
			`office.toml:7: agent "y": parent "z" is not an agent (agents: x, y)`},
		{"own parent",
			"[[agent]]\nname = \"x\"\nparent = \"x\"\nprofile = \"shell\"\n",
			`office.toml:3: agent "x": parent "x" is the agent itself`},
		{"parent cycle",
			"[[agent]]\nname = \"a\"\nprofile = \"shell\"\nparent = \"b\"\n\n[[agent]]\nname = \"b\"\nprofile = \"shell\"\nparent = \"a\"\n",
			`office.toml:4: agent "a": parent cycle: a -> b -> a`},
		{"parent cycle not through the first agent",
			"[[agent]]\nname = \"a\"\nprofile = \"shell\"\nparent = \"b\"\n" +
				"[[agent]]\nname = \"b\"\nprofile = \"shell\"\nparent = \"c\"\n" +
				"[[agent]]\nname = \"c\"\nprofile = \"shell\"\nparent = \"b\"\n",
			`office.toml:8: agent "b": parent cycle: b -> c -> b`},
		{"bad env name",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\n[agent.env]\nA = \"1\"\n\"B=C\" = \"2\"\n",
			`office.toml:4: agent "x": env: "B=C" is not a valid environment variable name`},
		{"env value not a string",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\nenv = { N = 1 }\n",
			`office.toml:4: agent "x": env: N: want a string, got an integer`},
		{"bad delivery",
			"[[agent]]\nname = \"x\"\nprofile = \"claude\"\n\ndelivery = \"hook\"\n",
			`office.toml:5: agent "x": delivery: "hook" is not one of "auto" or "type"`},
		{"bad profile delivery",
			"[profile.claude]\ndelivery = 1\n",
			`office.toml:2: profile "claude": delivery: want a string, got an integer`},
		{"bad profile channel",
			"\n[profile.claude]\nchannel = \"asyncRewake\"\n",
			`office.toml:3: profile "claude": channel: "asyncRewake" is not one of "stop_hook" or ""`},
		{"bool key given a string",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\noptional = \"yes\"\n",
			`office.toml:4: agent "x": optional: want true or false, got a string`},
		{"negative duration",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\ncompact_every = \"-1h\"\n",
			`office.toml:4: agent "x": compact_every: duration "-1h" is negative`},
		{"single [agent] table",
			"\n[agent]\nname = \"x\"\n",
			`office.toml:2: agent: want [[agent]] tables (note the double brackets), got a table`},
		{"blank prefix",
			"prefix = \" \"\n",
			`office.toml:1: prefix: is blank`},
		{"prefix the UI cannot take",
			"# c\nprefix = \"bogus\"\n",
			`office.toml:2: prefix: "bogus": want a control key such as C-] or C-a, or one printable character`},
		{"zero mail timeout",
			"\nmail_timeout = \"0s\"\n",
			`office.toml:2: mail_timeout: 0s is out of range (1s to 720h)`},
		{"negative cooldown",
			"# c\n\ncooldown = \"-1s\"\n",
			`office.toml:3: cooldown: -1s is out of range (100ms to 1h)`},
		{"malformed duration",
			"tick = \"3 seconds\"\n",
			`office.toml:1: tick: bad duration "3 seconds" (want a string like "3s")`},
		{"duration without a unit",
			"tick = \"3\"\n",
			`office.toml:1: tick: bad duration "3" (want a string like "3s")`},
		{"count given a string",
			"max_attempts = \"3\"\n",
			`office.toml:1: max_attempts: want an integer like 3, got a string`},
		{"count out of range",
			"\nhistory = 2000000\n",
			`office.toml:2: history: 2000000 is out of range (1 to 1000000)`},
		{"status debounce out of range",
			"# c\nstatus_debounce = \"0s\"\n",
			`office.toml:2: status_debounce: 0s is out of range (10ms to 10s)`},
		{"stale below its range",
			"stale = \"30s\"\n",
			`office.toml:1: stale: 30s is out of range (1m to 24h)`},
		{"ready quiet given a number",
			"ready_quiet = 2\n",
			`office.toml:1: ready_quiet: want a duration string like "2s", got an integer`},
		{"echo grace malformed",
			"echo_grace = \"1 s\"\n",
			`office.toml:1: echo_grace: bad duration "1 s" (want a string like "1s")`},
		{"picker settle above its range",
			"\n\npicker_settle = \"1m\"\n",
			`office.toml:3: picker_settle: 1m is out of range (10ms to 10s)`},
		{"hook stale below its range",
			"hook_stale = \"0s\"\n",
			`office.toml:1: hook_stale: 0s is out of range (100ms to 10m)`},
		{"turn grace negative",
			"\nturn_grace = \"-10s\"\n",
			`office.toml:2: turn_grace: -10s is out of range (100ms to 10m)`},
		{"shell poll given a number",
			"shell_poll = 100\n",
			`office.toml:1: shell_poll: want a duration string like "100ms", got an integer`},
		{"shell prompt quiet above its range",
			"shell_prompt_quiet = \"1m\"\n",
			`office.toml:1: shell_prompt_quiet: 1m is out of range (10ms to 10s)`},
		{"hook waiting stale per agent is refused",
			"[[agent]]\nname = \"x\"\nprofile = \"claude\"\nhook_waiting_stale = \"1m\"\n",
			`office.toml:4: agent "x": hook_waiting_stale: is set for the whole office, not per agent: move it above the first [[agent]] (per-agent settings: cooldown, quiet, boot_grace, stall, history)`},
		{"a formerly fixed row is still office-wide",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\nready_quiet = \"1s\"\n",
			`office.toml:4: agent "x": ready_quiet: is set for the whole office, not per agent: move it above the first [[agent]] (per-agent settings: cooldown, quiet, boot_grace, stall, history)`},
		{"profile quiet out of range",
			"[profile.custom]\nquiet = \"1ms\"\n",
			`office.toml:2: profile "custom": quiet: 1ms is out of range (1s to 1h)`},
		{"restart back-off above its maximum",
			"restart_backoff = \"1m\"\nrestart_backoff_max = \"10s\"\n",
			`office.toml:1: restart_backoff 1m is more than restart_backoff_max 10s`},
		{"office-wide setting in an agent",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\ntick = \"1s\"\n",
			`office.toml:4: agent "x": tick: is set for the whole office, not per agent: move it above the first [[agent]] (per-agent settings: cooldown, quiet, boot_grace, stall, history)`},
		{"per-agent setting out of range",
			"[[agent]]\nname = \"x\"\nprofile = \"shell\"\n\ncooldown = \"-2s\"\n",
			`office.toml:5: agent "x": cooldown: -2s is out of range (100ms to 1h)`},
		{"brief not a bool",
			"brief = 1\n",
			`office.toml:1: brief: want true or false, got an integer`},
		{"unknown profile key",
			"\n[profile.claude]\nbusy = [\"x\"]\nbusyy = [\"y\"]\n",
			`office.toml:4: profile "claude": unknown key "busyy"`},
		{"bad enter_while_busy",
			"[profile.mine]\ncommand = [\"m\"]\nenter_while_busy = \"later\"\n",
			`office.toml:3: profile "mine": enter_while_busy: "later" is not one of "queue", "steer" or ""`},
		{"bad profile name",
			"\n[profile.\"my profile\"]\ncommand = [\"m\"]\n",
			`office.toml:2: profile "my profile": bad name "my profile": use 1 to 32 letters, digits, '_', '.' or '-', starting with a letter or digit`},
		{"profile that is not a table",
			"profile = 3\n",
			`office.toml:1: profile: want tables like [profile.NAME], got an integer`},
		{"blank screen pattern",
			"[profile.claude]\n\nwaiting = [\"ok\", \"\"]\n",
			`office.toml:3: profile "claude": waiting: element 1 is blank`},
		{"interactive command with arguments",
			"[profile.claude]\ninteractive = [\"/model sonnet\"]\n",
			`office.toml:2: profile "claude": interactive: "/model sonnet": a command here has no arguments (no whitespace)`},
		{"negative prompt column",
			"[profile.claude]\nprompt_column = -1\n",
			`office.toml:2: profile "claude": prompt_column: -1 is out of range (0 to 2147483647)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse("office.toml", []byte(c.src))
			if err == nil {
				t.Fatalf("no error; want %q", c.want)
			}
			if cfg != nil {
				t.Errorf("a Config came back with the error")
			}
			if err.Error() != c.want {
				t.Errorf("error\n got: %s\nwant: %s", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "office.toml" {
				t.Errorf("error %#v is not an *Error for office.toml", err)
			}
		})
	}
}

func TestParseSyntaxErrorUnwrapsToParseError(t *testing.T) {
	_, err := Parse("office.toml", []byte("[[agent]]\nname = \"a\" \"b\"\n"))
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v does not unwrap to toml.ParseError", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 {
		t.Errorf("error %v: want an *Error at line 2", err)
	}
}

func TestParseReportsEveryProblemInLineOrder(t *testing.T) {
	src := "[[agent]]\nname = \"a\"\nprofile = \"shell\"\nrestart = \"x\"\n\n[[agent]]\nname = \"b\"\nprofile = \"nope\"\n" +
		"[profile.claude]\nbogus = 1\n"
	_, err := Parse("o.toml", []byte(src))
	want := "o.toml:4: agent \"a\": restart: \"x\" is not one of \"never\", \"on-failure\" or \"always\"\n" +
		"o.toml:8: agent \"b\": unknown profile \"nope\" (known: claude, codex, custom, gemini, shell)\n" +
		"o.toml:10: profile \"claude\": unknown key \"bogus\""
	if err == nil || err.Error() != want {
		t.Errorf("error\n got: %v\nwant: %s", err, want)
	}
}

func TestParseAgents(t *testing.T) {
	src := `prefix = "C-a"
mail_timeout = "45m"
brief = false

[[agent]]
name = "lead"
profile = "claude"
role = "lead engineer"
task = "t1"
restart = "on-failure"
brief = true
compact_every = "2h"
cwd = "work/lead"
worktree = true

[[agent]]
name = "helper"
command = ["aider", "--yes"]
parent = "lead"
read_only = true
cwd = "/abs/dir"
env = { AIDER_X = "1" }
`
	c, err := Parse(filepath.Join("conf", "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != filepath.Join("conf", "office.toml") || c.Prefix != "C-a" || c.Settings.MailTimeout != 45*time.Minute || c.Brief {
		t.Errorf("top level: %+v", c)
	}
	yes := true
	want := []Agent{
		{Name: "lead", Profile: "claude", Role: "lead engineer", Task: "t1", Restart: RestartOnFailure, Brief: &yes,
			CompactEvery: Duration{2 * time.Hour}, Cwd: filepath.Join("conf", "work", "lead"), Worktree: true, History: 10000, Line: 5},
		{Name: "helper", Profile: ProfileCustom, Command: []string{"aider", "--yes"}, Parent: "lead", ReadOnly: true,
			Cwd: "/abs/dir", Env: map[string]string{"AIDER_X": "1"}, Restart: RestartNever, History: 10000, Line: 16},
	}
	if !reflect.DeepEqual(c.Agents, want) {
		t.Errorf("agents\n got: %+v\nwant: %+v", c.Agents, want)
	}
	if !c.BriefFor(c.Agents[0]) || c.BriefFor(c.Agents[1]) {
		t.Errorf("BriefFor: lead %v (want true, its own), helper %v (want false, the config's)",
			c.BriefFor(c.Agents[0]), c.BriefFor(c.Agents[1]))
	}
}

func TestParseDefaults(t *testing.T) {
	c, err := Parse("office.toml", []byte("# nothing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Prefix != DefaultPrefix || c.Settings != Defaults() || !c.Brief || len(c.Agents) != 0 {
		t.Errorf("defaults: %+v", c)
	}
	if len(c.Profiles) != 5 {
		t.Errorf("profiles: %d, want the 5 built-ins", len(c.Profiles))
	}
}

func TestProfileOverrideMergesOnlySetKeys(t *testing.T) {
	builtin, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	src := `[profile.claude]
busy = ["esc to interrupt", "Thinking"]
enter_delay = "300ms"
env = { EXTRA = "1", DISABLE_AUTOUPDATER = "0" }
`
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := builtin["claude"].clone()
	want.Busy = []string{"esc to interrupt", "Thinking"}
	want.EnterDelay = Duration{300 * time.Millisecond}
	want.Env["EXTRA"] = "1"
	want.Env["DISABLE_AUTOUPDATER"] = "0"
	if got := c.Profiles["claude"]; !reflect.DeepEqual(got, want) {
		t.Errorf("merged claude\n got: %+v\nwant: %+v", got, want)
	}
	if !reflect.DeepEqual(c.Profiles["codex"], builtin["codex"]) {
		t.Errorf("codex changed by a claude table: %+v", c.Profiles["codex"])
	}
	// The merge must not write through to the built-ins a later Parse sees.
	again, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	if again["claude"].Env["EXTRA"] != "" || again["claude"].EnterDelay.Duration != 0 {
		t.Errorf("built-in claude changed: %+v", again["claude"])
	}
}

func TestNewProfile(t *testing.T) {
	src := `[profile.aider]
command = ["aider"]
args = ["--no-auto-commits"]
idle = ["> "]
line_by_line = true

[[agent]]
name = "a"
profile = "aider"
`
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Profile{Name: "aider", Command: []string{"aider"}, Args: []string{"--no-auto-commits"}, Idle: []string{"> "}, LineByLine: true}
	if got := c.Profiles["aider"]; !reflect.DeepEqual(got, want) {
		t.Errorf("new profile\n got: %+v\nwant: %+v", got, want)
	}
	argv, err := c.Argv(c.Agents[0])
	if err != nil || !reflect.DeepEqual(argv, []string{"aider", "--no-auto-commits"}) {
		t.Errorf("Argv = %q, %v", argv, err)
	}
}

func TestArgv(t *testing.T) {
	src := `[[agent]]
name = "cx"
profile = "codex"

[[agent]]
name = "cx2"
profile = "codex"
command = ["/opt/codex/bin/codex", "--profile", "work"]

[[agent]]
name = "sh"
profile = "shell"

[[agent]]
name = "tool"
command = ["python3", "agent.py"]

[[agent]]
name = "cl"
profile = "claude"
`
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	codexArgs := []string{"--disable", "daemon_auto_start", "-c", "check_for_update_on_startup=false"}
	cases := []struct {
		agent        string
		argv, resume []string
	}{
		{"cx", append([]string{"codex"}, codexArgs...), append([]string{"codex", "resume", "--last"}, codexArgs...)},
		{"cx2", append([]string{"/opt/codex/bin/codex", "--profile", "work"}, codexArgs...),
			append([]string{"/opt/codex/bin/codex", "--profile", "work", "resume", "--last"}, codexArgs...)},
		{"sh", []string{"bash"}, []string{"bash"}},
		{"tool", []string{"python3", "agent.py"}, []string{"python3", "agent.py"}},
		{"cl", []string{"claude"}, []string{"claude", "--resume", "{id}"}}, // the engine fills {id}
	}
	for _, tc := range cases {
		a, ok := c.Agent(tc.agent)
		if !ok {
			t.Fatalf("no agent %q", tc.agent)
		}
		argv, err := c.Argv(a)
		if err != nil || !reflect.DeepEqual(argv, tc.argv) {
			t.Errorf("Argv(%s) = %q, %v; want %q", tc.agent, argv, err, tc.argv)
		}
		resume, err := c.ResumeArgv(a)
		if err != nil || !reflect.DeepEqual(resume, tc.resume) {
			t.Errorf("ResumeArgv(%s) = %q, %v; want %q", tc.agent, resume, err, tc.resume)
		}
		argv[0] = "changed"
		if again, _ := c.Argv(a); again[0] == "changed" {
			t.Errorf("Argv(%s) shares its slice with the config", tc.agent)
		}
	}
}

func TestAgentsNotFromAFile(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	argv, err := c.Argv(Agent{Name: "added", Command: []string{"htop"}})
	if err != nil || !reflect.DeepEqual(argv, []string{"htop"}) {
		t.Errorf("command only: Argv = %q, %v; want [htop] (custom profile)", argv, err)
	}
	for _, a := range []Agent{
		{Name: "none"},
		{Name: "cust", Profile: ProfileCustom},
		{Name: "odd", Profile: "nope", Command: []string{"x"}},
	} {
		if argv, err := c.Argv(a); err == nil {
			t.Errorf("Argv(%+v) = %q, want an error", a, argv)
		}
	}
	_, err = c.ProfileOf(Agent{Name: "odd", Profile: "nope"})
	want := `configs: agent "odd": unknown profile "nope" (known: claude, codex, custom, gemini, shell)`
	if err == nil || err.Error() != want {
		t.Errorf("ProfileOf error %v, want %q", err, want)
	}
}

func TestEnv(t *testing.T) {
	src := "[[agent]]\nname = \"cl\"\nprofile = \"claude\"\nenv = { DISABLE_AUTOUPDATER = \"0\", MINE = \"x\" }\n"
	c, err := Parse("office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	env, err := c.Env(c.Agents[0])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"DISABLE_AUTOUPDATER":                                  "0",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC":             "1",
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
		"MINE": "x",
	}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("Env = %v, want %v", env, want)
	}
	env["MINE"] = "changed"
	if c.Agents[0].Env["MINE"] != "x" || c.Profiles["claude"].Env["MINE"] != "" {
		t.Errorf("Env shares its map with the config")
	}
}

func TestAgentLookupReturnsACopy(t *testing.T) {
	c, err := Parse("office.toml", []byte("[[agent]]\nname = \"t\"\ncommand = [\"x\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := c.Agent("t")
	if !ok {
		t.Fatal("Agent(t) not found")
	}
	a.Command[0] = "changed"
	if c.Agents[0].Command[0] != "x" {
		t.Errorf("Agent returned a slice shared with the config")
	}
	if _, ok := c.Agent("nope"); ok {
		t.Errorf("Agent(nope) found")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "office.toml")
	src := "[[agent]]\nname = \"a\"\nprofile = \"shell\"\ncwd = \"sub\"\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != path || c.Agents[0].Cwd != filepath.Join(dir, "sub") {
		t.Errorf("Load: path %q, cwd %q", c.Path, c.Agents[0].Cwd)
	}

	if _, err := Load(filepath.Join(dir, "missing.toml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error %v, want fs.ErrNotExist", err)
	}

	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("\n[[agent]]\nname = \"a\"\nprofile = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	want := bad + `:4: agent "a": unknown profile "x" (known: claude, codex, custom, gemini, shell)`
	if err == nil || err.Error() != want {
		t.Errorf("Load(bad) error %v, want %q", err, want)
	}
}

// TestAgentKeysCoverEveryField makes sure every Agent field (but Line,
// History and the overrides, which the settings table's keys set) has a
// TOML key.
func TestAgentKeysCoverEveryField(t *testing.T) {
	keys := []string{"name", "profile", "command", "cwd", "env", "role", "parent", "task", "restart",
		"brief", "optional", "fallback", "compact_every", "worktree", "read_only", "ssh_agent", "notify", "delivery"}
	if n := reflect.TypeFor[Agent]().NumField() - 3; n != len(keys) { // minus Line, History, overrides
		t.Errorf("Agent has %d settable fields, the test knows %d keys", n, len(keys))
	}
	var a Agent
	for _, k := range keys {
		if known, _ := setAgentKey(&a, k, nil); !known {
			t.Errorf("key %q unknown to setAgentKey", k)
		}
	}
}
