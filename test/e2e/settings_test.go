package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	o.withSettings(`cooldown = "6s"`, `history = 500`, `stale = "45m"`)
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
	// The agent's stall is at line 10: the three settings, brief, a blank
	// line, then [[agent]], name, profile, command, stall.
	want := map[string][2]string{
		"cooldown": {"6s", o.config + ":1"},
		"history":  {"500", o.config + ":2"},
		"stale":    {"45m", o.config + ":3"},
		"stall@a":  {"20m", o.config + ":10"},
		"stall":    {"6m", "default"},
		"debounce": {"200ms", "default"},
		"tick":     {"3s", "default"},
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
		if _, ok := want[row.Key]; !ok && f[2] != "default" {
			t.Errorf("%s: source %s, want default", row.Key, f[2])
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

// TestAutomationWindowsFromTheFile: the windows that were automation's
// constants are the office file's. A custom agent that prints one line and
// then reads its input into a file gets a message queued before office
// started no sooner than ready_quiet = "6s" after that line (readiness)
// plus status_debounce = "3s" (the idle it then reads must last that long
// before it counts): 9 s, where the defaults (2 s and 300 ms) would have
// typed it within about 2.5 s. The top-level quiet = "1s" is the one its
// judge runs on, not the built-in custom profile's 12 s, and config show
// says so.
func TestAutomationWindowsFromTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a 6 s ready_quiet and a 3 s status_debounce")
	}
	t.Parallel()
	o := newOffice(t)
	o.withSettings(`ready_quiet = "6s"`, `status_debounce = "3s"`, `quiet = "1s"`)
	started, got := filepath.Join(o.dir, "started"), filepath.Join(o.dir, "received.txt")
	f, err := os.OpenFile(o.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("stty -echo; date +%%s.%%N > %s; echo ready; exec cat > %s", started, got)
	fmt.Fprintf(f, "[[agent]]\nname = \"custom\"\ncommand = [\"sh\", \"-c\", %q]\n", script)
	f.Close()

	shown := map[string][]string{}
	for _, line := range strings.Split(o.must("config", "show"), "\n") {
		if f := strings.Fields(line); len(f) > 2 {
			shown[f[0]] = f
		}
	}
	for key, want := range map[string][2]string{
		"ready_quiet":     {"6s", o.config + ":1"},
		"status_debounce": {"3s", o.config + ":2"},
		"quiet":           {"1s", o.config + ":3"},
	} {
		if f := shown[key]; f == nil || f[1] != want[0] || f[2] != want[1] {
			t.Errorf("config show %s: %q, want %v", key, f, want)
		}
	}
	if f := shown["quiet@custom"]; f != nil {
		t.Errorf("config show lists the custom agent's own quiet %q: the top-level one applies", f)
	}

	o.send("custom", "hello after the windows")
	o.startServeUntil("the agent running", func() bool { return o.statusOf("custom").Name != "" })
	read := func() string { b, _ := os.ReadFile(got); return string(b) }
	o.waitFor(60*time.Second, "the queued message at the agent", func() bool { return strings.Contains(read(), "hello after the windows") })
	raw, err := os.ReadFile(started)
	if err != nil {
		t.Fatal(err)
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(got)
	if err != nil {
		t.Fatal(err)
	}
	// The line was printed after the time was taken, and the file's
	// modification time is when the message was written into it.
	d := fi.ModTime().Sub(time.Unix(0, int64(secs*1e9)))
	t.Logf("the message arrived %v after the agent's line", d)
	if d < 9*time.Second {
		t.Errorf("the message arrived %v after the agent's line, want at least ready_quiet 6s + status_debounce 3s", d)
	}
	o.waitFor(10*time.Second, "queue empty", func() bool { return len(o.queue()) == 0 })
	if n := strings.Count(read(), "hello after the windows"); n != 1 {
		t.Errorf("the message arrived %d times", n)
	}
	// The judge's output step runs on the top-level quiet.
	if out := o.must("status", "custom", "--explain"); !strings.Contains(out, "(>= 1s)") {
		t.Errorf("office status --explain does not judge quiet by the file's 1s:\n%s", out)
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

	// A row that was automation's constant is checked like the others.
	o = newOffice(t, agentSpec{name: "a"})
	o.withSettings("# tuned", "", `status_debounce = "20s"`)
	refused(t, o, o.config+`:3: status_debounce: 20s is out of range (10ms to 10s)`)
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
