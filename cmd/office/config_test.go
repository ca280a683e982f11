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
	if err := os.WriteFile(o.config, append([]byte("cooldown = \"6s\"\n"), body...), 0o600); err != nil {
		t.Fatal(err)
	}
	r := o.cmd("", "config", "show")
	if r.code != 0 || !strings.Contains(r.stdout, "cooldown") {
		t.Fatalf("config show: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stdout, "\n"); n != len(configs.Table()) {
		t.Errorf("%d lines, want one per setting (%d)", n, len(configs.Table()))
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "cooldown" && (f[1] != "6s" || f[2] != o.config+":1") {
			t.Errorf("cooldown line %q", line)
		}
	}
	r = o.cmd("", "config", "show", "--json")
	var shown []configs.ShownSetting
	if err := json.Unmarshal([]byte(r.stdout), &shown); r.code != 0 || err != nil || len(shown) != len(configs.Table()) {
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
}
