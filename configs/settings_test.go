package configs

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTableRows checks every row: a unique snake_case key, a default
// inside its range, exactly one field of Settings, help citing a reason.
func TestTableRows(t *testing.T) {
	seen := map[string]bool{}
	fields := map[uintptr]string{}
	key := regexp.MustCompile(`^[a-z][a-z_]*[a-z]$`)
	for _, row := range Table() {
		if seen[row.Key] {
			t.Errorf("%s listed twice", row.Key)
		}
		seen[row.Key] = true
		if !key.MatchString(row.Key) {
			t.Errorf("key %q is not snake_case", row.Key)
		}
		if row.Min > row.Default || row.Default > row.Max {
			t.Errorf("%s: default %s outside %s..%s", row.Key, row.Format(row.Default), row.Format(row.Min), row.Format(row.Max))
		}
		if row.Min >= row.Max || row.Min <= 0 {
			t.Errorf("%s: range %s..%s is not a range of positive values (every row is settable)", row.Key, row.Format(row.Min), row.Format(row.Max))
		}
		if (row.Kind == KindDuration) != (row.dur != nil) || (row.dur == nil) == (row.num == nil) {
			t.Errorf("%s: kind %v does not match its field", row.Key, row.Kind)
		}
		var s Settings
		var p uintptr
		if row.dur != nil {
			p = reflect.ValueOf(row.dur(&s)).Pointer()
		} else {
			p = reflect.ValueOf(row.num(&s)).Pointer()
		}
		if other, dup := fields[p]; dup {
			t.Errorf("%s and %s share a field", row.Key, other)
		}
		fields[p] = row.Key
		if len(row.Help) < 40 || row.Use == "" {
			t.Errorf("%s: help %q or use %q too short", row.Key, row.Help, row.Use)
		}
	}
	if n := reflect.TypeFor[Settings]().NumField(); n != len(fields) {
		t.Errorf("Settings has %d fields, the table %d rows", n, len(fields))
	}
}

// TestDefaultsPinned pins the numbers the seeds and the design give, in the
// form the file takes them.
func TestDefaultsPinned(t *testing.T) {
	want := map[string]string{
		"debounce": "200ms", "tick": "3s", "cooldown": "4.5s", "enter_gap": "140ms",
		"submit_check": "2s", "enter_retry": "500ms", "max_attempts": "3", "paste_threshold": "512", "channel_blocks": "8",
		"write_timeout": "10s", "quiet": "12s", "boot_grace": "35s", "stale": "30m",
		"echo_grace": "1s", "picker_settle": "500ms", "batch_items": "100", "batch_bytes": "32768",
		"mail_title_bytes": "1024",
		"mail_timeout":     "30m", "mail_sweep": "30s", "stall": "6m", "retention": "168h",
		"journal_continuations": "3", "state_retries": "3", "history": "10000",
		"restart_backoff": "1s", "restart_backoff_max": "30s", "restart_reset": "1m",
		"hook_stale": "3s", "hook_waiting_stale": "10s", "turn_grace": "10s", "shell_poll": "100ms",
		"shell_prompt_quiet": "150ms",
		// The web server's, as they were its constants (docs/web.md).
		"web_connections": "64", "web_sockets": "16", "web_sessions": "32", "web_session_ttl": "168h",
		"web_calls": "30", "web_reads": "120", "web_keys_bytes": "4096", "web_message_bytes": "1048576",
		"web_body_timeout": "10s", "web_keys_timeout": "5s",
	}
	d := Defaults()
	for key, v := range want {
		row, ok := Lookup(key)
		if !ok {
			t.Errorf("no setting %q", key)
			continue
		}
		if got := row.Format(row.Get(d)); got != v {
			t.Errorf("%s = %s, want %s", key, got, v)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 140 * time.Millisecond: "140ms", 4500 * time.Millisecond: "4.5s", 6 * time.Second: "6s",
		30 * time.Minute: "30m", 168 * time.Hour: "168h", 90 * time.Minute: "90m", 1500 * time.Microsecond: "1.5ms",
		-time.Second: "-1s", 61500 * time.Millisecond: "61500ms",
	} {
		got := FormatDuration(d)
		if got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != d {
			t.Errorf("%q reads back as %v, %v", got, back, err)
		}
	}
}

// TestEveryRowSettable sets each settable row at the top level to a
// value inside its range other than the default, and checks Settings gets
// it and config show names the line: every row is settable.
func TestEveryRowSettable(t *testing.T) {
	for _, row := range Table() {
		v := row.Max
		if v == row.Default {
			v = row.Min
		}
		lit := row.Format(v)
		if row.Kind == KindDuration {
			lit = `"` + lit + `"`
		}
		src := "# office\n" + row.Key + " = " + lit + "\n"
		if row.Key == "restart_backoff" {
			src += "restart_backoff_max = \"1h\"\n"
		}
		c, err := Parse("o.toml", []byte(src))
		if err != nil {
			t.Errorf("%s = %s: %v", row.Key, lit, err)
			continue
		}
		if got := row.Get(c.Settings); got != v {
			t.Errorf("%s = %s: Settings has %s", row.Key, lit, row.Format(got))
		}
		if src := c.Source(row); src != "o.toml:2" {
			t.Errorf("%s: source %q, want o.toml:2", row.Key, src)
		}
		// Every other row keeps its default.
		for _, other := range Table() {
			if other.Key != row.Key && !(row.Key == "restart_backoff" && other.Key == "restart_backoff_max") && other.Get(c.Settings) != other.Default {
				t.Errorf("setting %s changed %s", row.Key, other.Key)
			}
		}
	}
}

func TestPerAgentSettings(t *testing.T) {
	src := `cooldown = "6s"
history = 500

[[agent]]
name = "a"
profile = "shell"
cooldown = "9s"
stall = "1h"

[[agent]]
name = "b"
profile = "shell"
history = 1
`
	c, err := Parse("o.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Agents[0], c.Agents[1]
	sa, sb := c.SettingsFor(a), c.SettingsFor(b)
	if sa.Cooldown != 9*time.Second || sa.Stall != time.Hour || sa.History != 500 || a.History != 500 {
		t.Errorf("a: cooldown %v stall %v history %d/%d", sa.Cooldown, sa.Stall, sa.History, a.History)
	}
	if sb.Cooldown != 6*time.Second || sb.Stall != 6*time.Minute || sb.History != 1 || b.History != 1 {
		t.Errorf("b: cooldown %v stall %v history %d/%d", sb.Cooldown, sb.Stall, sb.History, b.History)
	}
	if c.Settings.Cooldown != 6*time.Second {
		t.Errorf("office cooldown %v", c.Settings.Cooldown)
	}
	// An agent not from a file runs on the office's settings.
	if s := c.SettingsFor(Agent{Name: "z"}); s != c.Settings {
		t.Errorf("agent with no table: %+v", s)
	}
	// Copies do not share overrides.
	x, _ := c.Agent("a")
	x.overrides["cooldown"] = override{value: 1}
	if c.SettingsFor(c.Agents[0]).Cooldown != 9*time.Second {
		t.Error("Agent() returned shared overrides")
	}
}

func TestFormatSettings(t *testing.T) {
	src := "# office\ncooldown = \"6s\"\n\n[[agent]]\nname = \"a\"\nprofile = \"shell\"\nhistory = 50\n"
	c, err := Parse("o.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := FormatSettings(&buf, c, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(Table())+1 {
		t.Fatalf("%d lines for %d settings and one agent value:\n%s", len(lines), len(Table()), buf.String())
	}
	rows := map[string][]string{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 4 {
			t.Fatalf("line %q: want NAME VALUE SOURCE help", l)
		}
		rows[f[0]] = f
	}
	for name, want := range map[string][2]string{
		"cooldown":    {"6s", "o.toml:2"},
		"debounce":    {"200ms", "default"},
		"stale":       {"30m", "default"},
		"history@a":   {"50", "o.toml:7"},
		"history":     {"10000", "default"},
		"batch_bytes": {"32768", "default"},
	} {
		if f := rows[name]; f == nil || f[1] != want[0] || f[2] != want[1] {
			t.Errorf("%s: %v, want value %s source %s", name, f, want[0], want[1])
		}
	}
	if !strings.Contains(rows["cooldown"][3]+strings.Join(rows["cooldown"][4:], " "), "FLUSH_COOLDOWN_MS") {
		t.Errorf("cooldown help does not name the seed rule: %v", rows["cooldown"])
	}

	buf.Reset()
	if err := FormatSettings(&buf, c, true); err != nil {
		t.Fatal(err)
	}
	var shown []ShownSetting
	if err := json.Unmarshal(buf.Bytes(), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown) != len(lines) || shown[2].Name != "cooldown" || shown[2].Value != "6s" || shown[2].Source != "o.toml:2" || shown[2].Min != "100ms" {
		t.Errorf("json: %d entries, cooldown %+v", len(shown), shown[2])
	}
}

func TestLoadRefusesNoAgentsAndMissingCwd(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.Mkdir(filepath.Join(dir, "here"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("file", "x")
	cases := []struct{ name, src, want string }{
		{"empty", "", ":1: no agents: add an [[agent]] table"},
		{"only settings", "cooldown = \"6s\"\n", ":1: no agents"},
		{"missing cwd", "[[agent]]\nname = \"a\"\nprofile = \"shell\"\n\ncwd = \"nowhere\"\n",
			`:5: agent "a": cwd "` + filepath.Join(dir, "nowhere") + `" does not exist`},
		{"cwd is a file", "[[agent]]\nname = \"a\"\nprofile = \"shell\"\ncwd = \"file\"\n",
			`:4: agent "a": cwd "` + filepath.Join(dir, "file") + `" is not a directory`},
		{"second agent's cwd", "[[agent]]\nname = \"a\"\nprofile = \"shell\"\ncwd = \"here\"\n[[agent]]\nname = \"b\"\nprofile = \"shell\"\ncwd = \"/no/such/dir\"\n",
			`:8: agent "b": cwd "/no/such/dir" does not exist`},
	}
	for _, tc := range cases {
		p := write(tc.name+".toml", tc.src)
		_, err := Load(p)
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), p+tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, p+tc.want)
		}
	}
	c, err := Load(write("ok.toml", "[[agent]]\nname = \"a\"\nprofile = \"shell\"\ncwd = \"here\"\n"))
	if err != nil || c.Agents[0].Cwd != filepath.Join(dir, "here") {
		t.Errorf("existing cwd: %v, %+v", err, c)
	}
}

func TestCheckRunnableExpandsHome(t *testing.T) {
	home := t.TempDir()
	c, err := Parse("o.toml", []byte("[[agent]]\nname = \"a\"\nprofile = \"shell\"\ncwd = \"~/\"\n[[agent]]\nname = \"b\"\nprofile = \"shell\"\ncwd = \"~/nope\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Agents[0].Cwd != "~/" {
		t.Fatalf("Parse changed ~/: %q", c.Agents[0].Cwd)
	}
	err = c.checkRunnable(nil, func() (string, error) { return home, nil }, os.Stat)
	want := `o.toml: agent "b": cwd "` + filepath.Join(home, "nope") + `" does not exist`
	if err == nil || err.Error() != want || c.Agents[0].Cwd != home {
		t.Errorf("error %v (want %q), cwd %q", err, want, c.Agents[0].Cwd)
	}
}

// TestQuietPrecedence: an agent's own quiet wins, then a [profile.NAME]
// quiet the office file writes, then the top-level quiet, then a built-in
// profile's (the custom profile's 12s is a default, not an override), then
// the table's default; SettingsFor, AgentValue and config show agree.
func TestQuietPrecedence(t *testing.T) {
	agents := "[[agent]]\nname = \"cust\"\ncommand = [\"x\"]\n" + // 1-3 after the head
		"[[agent]]\nname = \"claude\"\nprofile = \"claude\"\n" +
		"[[agent]]\nname = \"own\"\ncommand = [\"x\"]\nquiet = \"5s\"\n"
	cases := []struct {
		name string
		head string
		// want: the value and source of cust, claude and own.
		want [3][2]string
	}{
		{"no quiet in the file", "# o\n",
			[3][2]string{{"12s", "profile:custom"}, {"12s", "default"}, {"5s", "o.toml:11"}}},
		{"top-level quiet replaces the built-in custom profile's", "quiet = \"20s\"\n",
			[3][2]string{{"20s", "o.toml:1"}, {"20s", "o.toml:1"}, {"5s", "o.toml:11"}}},
		{"a [profile.custom] table that sets other keys keeps quiet built-in", "quiet = \"20s\"\n[profile.custom]\nline_by_line = false\n",
			[3][2]string{{"20s", "o.toml:1"}, {"20s", "o.toml:1"}, {"5s", "o.toml:13"}}},
		{"a quiet the file's profile table writes wins over the top-level one", "quiet = \"20s\"\n[profile.custom]\nquiet = \"40s\"\n",
			[3][2]string{{"40s", "o.toml:3"}, {"20s", "o.toml:1"}, {"5s", "o.toml:13"}}},
		{"a written profile quiet wins without a top-level one", "[profile.claude]\nquiet = \"3s\"\n",
			[3][2]string{{"12s", "profile:custom"}, {"3s", "o.toml:2"}, {"5s", "o.toml:12"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("o.toml", []byte(tc.head+agents))
			if err != nil {
				t.Fatal(err)
			}
			row, _ := Lookup("quiet")
			shown := map[string]ShownSetting{}
			for _, s := range c.Shown() {
				shown[s.Name] = s
			}
			for i, a := range c.Agents {
				v, src := c.AgentValue(row, a)
				if got := [2]string{row.Format(v), src}; got != tc.want[i] {
					t.Errorf("%s: AgentValue %v, want %v", a.Name, got, tc.want[i])
				}
				if got := c.SettingsFor(a).Quiet; row.Format(int64(got)) != tc.want[i][0] {
					t.Errorf("%s: SettingsFor quiet %v, want %s", a.Name, got, tc.want[i][0])
				}
				// config show lists the agent's own line exactly when its
				// source is not the office's.
				s, listed := shown["quiet@"+a.Name]
				if differs := src != c.Source(row); listed != differs || listed && (s.Value != tc.want[i][0] || s.Source != src) {
					t.Errorf("%s: config show %+v (listed %v), want listed %v with %v", a.Name, s, listed, differs, tc.want[i])
				}
			}
			// An agent added outside the file with only a command is custom.
			v, src := c.AgentValue(row, Agent{Name: "added", Command: []string{"y"}})
			if want := tc.want[0]; row.Format(v) != want[0] || (src != want[1]) {
				t.Errorf("an added custom agent: %s %s, want %v", row.Format(v), src, want)
			}
		})
	}
}
