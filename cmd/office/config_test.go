package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"office/configs"
)

func TestConfigShowCommand(t *testing.T) {
	o := newTestOffice(t)
	body, err := os.ReadFile(o.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.config, append([]byte("cooldown = \"6s\"\nstatus_debounce = \"1s\"\n"), body...), 0o600); err != nil {
		t.Fatal(err)
	}
	r := o.cmd("", "config", "show")
	if r.code != 0 || !strings.Contains(r.stdout, "cooldown") {
		t.Fatalf("config show: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	// One line per setting, and the two custom agents' quiet, which is the
	// built-in custom profile's.
	if n := strings.Count(r.stdout, "\n"); n != len(configs.Table())+2 {
		t.Errorf("%d lines, want one per setting (%d) and two agents' quiet", n, len(configs.Table()))
	}
	fields := map[string][]string{}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 {
			fields[f[0]] = f
		}
	}
	for _, a := range []string{"a1", "b2"} {
		if f := fields["quiet@"+a]; f == nil || f[1] != "12s" || f[2] != "profile:custom" {
			t.Errorf("quiet@%s: %q, want 12s from the built-in custom profile", a, f)
		}
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "cooldown" && (f[1] != "6s" || f[2] != o.config+":1") {
			t.Errorf("cooldown line %q", line)
		}
		if f := strings.Fields(line); len(f) > 2 && f[0] == "status_debounce" && (f[1] != "1s" || f[2] != o.config+":2") {
			t.Errorf("status_debounce line %q", line)
		}
	}
	r = o.cmd("", "config", "show", "--json")
	var shown []configs.ShownSetting
	if err := json.Unmarshal([]byte(r.stdout), &shown); r.code != 0 || err != nil || len(shown) != len(configs.Table())+2 {
		t.Errorf("--json: exit %d, %v, %d entries", r.code, err, len(shown))
	}
	for _, args := range [][]string{{"config"}, {"config", "bogus"}, {"config", "show", "extra"}, {"config", "show", "--bogus"}} {
		if r := o.cmd("", args...); r.code != 2 {
			t.Errorf("office %v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
	if err := os.WriteFile(o.config, []byte("cooldown = \"-1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := o.cmd("", "config", "show"); r.code != 2 || !strings.Contains(r.stderr, o.config+":1: cooldown: -1s is out of range") {
		t.Errorf("bad file: exit %d, %q", r.code, r.stderr)
	}
	// The rows of automation's windows are checked like every other.
	for src, want := range map[string]string{
		"# tuned\nready_quiet = \"0s\"\n": o.config + ":2: ready_quiet: 0s is out of range (100ms to 5m)",
		"stale = 30\n":                    o.config + `:1: stale: want a duration string like "30m", got an integer`,
		"echo_grace = \"soon\"\n":         o.config + `:1: echo_grace: bad duration "soon"`,
	} {
		if err := os.WriteFile(o.config, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"config", "show"}, {"send", "a", "hi"}} {
			if r := o.cmd("", args...); r.code != 2 || !strings.Contains(r.stderr, want) {
				t.Errorf("%q: office %v: exit %d, %q; want exit 2 and %q", src, args, r.code, r.stderr, want)
			}
		}
	}
}
