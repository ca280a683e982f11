package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/configs"
)

// withSettings puts lines at the top of o's office file (so the first is
// line 1).
func (o *office) withSettings(lines ...string) {
	o.t.Helper()
	body, err := os.ReadFile(o.config)
	if err != nil {
		o.t.Fatal(err)
	}
	src := strings.Join(lines, "\n") + "\n" + string(body)
	if err := os.WriteFile(o.config, []byte(src), 0o600); err != nil {
		o.t.Fatal(err)
	}
}

func TestConfigShowListsEverySetting(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", keys: map[string]string{"stall": "20m"}})
	o.withSettings(`cooldown = "6s"`, `history = 500`)
	out := o.must("config", "show")
	lines := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			t.Fatalf("line %q: want NAME VALUE SOURCE help", sc.Text())
		}
		lines[f[0]] = f
	}
	// The agent's stall is at line 8: the two settings, brief, a blank
	// line, then [[agent]], name, profile, command, stall.
	want := map[string][2]string{
		"cooldown": {"6s", o.config + ":1"},
		"history":  {"500", o.config + ":2"},
		"stall@a":  {"20m", o.config + ":9"},
		"stall":    {"6m", "default"},
		"debounce": {"200ms", "default"},
		"tick":     {"3s", "default"},
		"stale":    {"30m", "fixed"},
	}
	for _, row := range configs.Table() {
		f := lines[row.Key]
		if f == nil {
			t.Errorf("config show does not list %s:\n%s", row.Key, out)
			continue
		}
		if w, ok := want[row.Key]; ok && (f[1] != w[0] || f[2] != w[1]) {
			t.Errorf("%s: value %s source %s, want %s %s", row.Key, f[1], f[2], w[0], w[1])
		}
		if _, ok := want[row.Key]; !ok && f[2] != "default" && f[2] != "fixed" {
			t.Errorf("%s: source %s, want default or fixed", row.Key, f[2])
		}
	}
	if f := lines["stall@a"]; f == nil || f[1] != want["stall@a"][0] || f[2] != want["stall@a"][1] {
		t.Errorf("stall@a: %v, want %v", f, want["stall@a"])
	}
	if len(lines) != len(configs.Table())+1 {
		t.Errorf("%d lines, want one per setting (%d) and the agent's stall", len(lines), len(configs.Table()))
	}

	var shown []configs.ShownSetting
	if err := json.Unmarshal([]byte(o.must("config", "show", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown) != len(lines) || shown[2].Name != "cooldown" || shown[2].Value != "6s" || shown[2].Default != "4.5s" {
		t.Errorf("--json: %d entries, third %+v", len(shown), shown[2])
	}
}

// promptTimes returns when agent received each prompt.
func (o *office) promptTimes(agent string) []time.Time {
	o.t.Helper()
	data, err := os.ReadFile(o.logs[agent])
	if err != nil && !os.IsNotExist(err) {
		o.t.Fatal(err)
	}
	var out []time.Time
	for _, line := range strings.Split(string(data), "\n") {
		var e struct {
			Event string    `json:"event"`
			Time  time.Time `json:"time"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Event == "prompt" {
			out = append(out, e.Time)
		}
	}
	return out
}

// TestCooldownSettingSpacesDeliveries: with cooldown = "6s" in the file,
// two messages queued back to back for one agent arrive at least 6 s apart
// (the agent's turn takes 200 ms, so without the setting the 4.5 s default
// would space them).
func TestCooldownSettingSpacesDeliveries(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a 6 s cooldown")
	}
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", args: []string{"--busy", "200ms"}})
	o.withSettings(`cooldown = "6s"`)
	o.startServe()
	o.send("a", "first")
	o.send("a", "second")
	o.waitFor(30*time.Second, "both prompts", func() bool { return len(o.prompts("a")) == 2 })
	if p := o.prompts("a"); p[0] != "first" || p[1] != "second" {
		t.Fatalf("prompts %q", p)
	}
	// The cooldown runs from the start of the first attempt; the agent logs
	// each prompt when its Enter arrives, 140 ms and a scheduling jitter
	// later, so the gap between the logs is the gap between the attempts
	// give or take that jitter (a few ms on a quiet machine). Allowing
	// 250 ms of it still tells 6 s from the 4.5 s default.
	at := o.promptTimes("a")
	if gap := at[1].Sub(at[0]); gap < 6*time.Second-250*time.Millisecond {
		t.Errorf("deliveries %v apart, want the 6s cooldown between them", gap)
	}
}

// refused runs `office serve` and `office send` on o's file and checks each
// exits 2 naming want (FILE:LINE: ...) and writes no state.
func refused(t *testing.T, o *office, want string) {
	t.Helper()
	for _, args := range [][]string{{"serve"}, {"send", "a", "hi"}, {"config", "show"}} {
		_, errOut, code := o.run("", args...)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("office %s: exit %d, stderr %q; want exit 2 and %q", args[0], code, errOut, want)
		}
	}
	if _, err := os.Stat(o.state); !os.IsNotExist(err) {
		t.Errorf("state dir written: %v", err)
	}
}

func TestBadSettingRefusedAtItsLine(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	o.withSettings("# tuned", `cooldown = "-6s"`)
	refused(t, o, o.config+`:2: cooldown: -6s is out of range (100ms to 1h)`)

	o = newOffice(t, agentSpec{name: "a"})
	o.withSettings(`tick = "fast"`)
	refused(t, o, o.config+`:1: tick: bad duration "fast"`)
}

func TestMissingCwdAndEmptyFileRefused(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a", keys: map[string]string{"cwd": "no/such/dir"}})
	// Line 7: brief, a blank line, [[agent]], name, profile, command, cwd.
	refused(t, o, fmt.Sprintf(`%s:7: agent "a": cwd %q does not exist`, o.config, filepath.Join(o.dir, "no/such/dir")))

	o = newOffice(t)
	if err := os.WriteFile(o.config, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, o, o.config+":1: no agents")
}

// TestMailTimeoutFromTheFileReachesAgentMail: `mail_timeout = "3s"` in the
// office file fails a request an agent sent from its own shell (no
// --config: that process knows no office file) 3 s after it went working,
// while the receiver is still busy (its turn takes 30 s, so no turn end
// settles it first).
func TestMailTimeoutFromTheFileReachesAgentMail(t *testing.T) {
	t.Parallel()
	o := newTeamOffice(t, teamAgent{name: "lead"}, teamAgent{name: "dev", args: []string{"--busy", "30s"}, parent: "lead"})
	o.withSettings(`mail_timeout = "3s"`, `mail_sweep = "1s"`, `stall_sample = "1s"`)
	o.startServe()
	id := o.mustAs("lead", "mail", "send", "--to", "dev", "--request", "--title", "Q", "what is the plan?")
	o.waitFor(20*time.Second, "the mail failed at its deadline", o.mailState(id, "failed"))
	if m := o.mailShow(id); m.Reason != "timeout" {
		t.Fatalf("mail %s(%s), want failed(timeout)", m.State, m.Reason)
	}
	// From working to failed: the 3 s deadline, checked every 1 s.
	var tl struct {
		Timeline []struct {
			At    time.Time `json:"at"`
			State string    `json:"state"`
		} `json:"timeline"`
	}
	if err := json.Unmarshal([]byte(o.mustAs("", "mail", "show", id, "--json")), &tl); err != nil {
		t.Fatal(err)
	}
	var working, failed time.Time
	for _, e := range tl.Timeline {
		switch e.State {
		case "working":
			working = e.At
		case "failed":
			failed = e.At
		}
	}
	if d := failed.Sub(working); working.IsZero() || d < 3*time.Second || d > 10*time.Second {
		t.Errorf("failed %v after going working, want the 3s mail_timeout (checked every second)", d)
	}
}
