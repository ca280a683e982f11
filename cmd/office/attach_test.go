package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"office/configs"
)

func TestAttachViewHosts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	view := filepath.Join(dir, "view.toml")
	body := "[hosts.a]\nstate = \"st-a\"\nconfig = \"~/office.toml\"\n\n[hosts.b]\nssh = \"me@b.example\"\nstate = \"/srv/office\"\nconfig = \"office.toml\"\n"
	if err := os.WriteFile(view, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	hostNames := func(hs []configs.Host) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		af   attachFlags
		g    globals
		want []string
	}{
		{"no flag: this machine", attachFlags{}, globals{state: "S"}, []string{"local"}},
		{"two ssh", attachFlags{ssh: []string{"me@x", "y"}}, globals{}, []string{"x", "y"}},
		{"local and ssh", attachFlags{local: true, ssh: []string{"b"}}, globals{}, []string{"local", "b"}},
		{"hosts then ssh", attachFlags{hosts: []string{"b", "a"}, ssh: []string{"c"}}, globals{config: view}, []string{"b", "a", "c"}},
	} {
		hs, err := tc.af.viewHosts(&tc.g, "/home/me")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := hostNames(hs); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: hosts %v, want %v", tc.name, got, tc.want)
		}
	}

	// --ssh carries --state, --config and --remote-office to the far side.
	hs, err := attachFlags{ssh: []string{"me@x"}, office: "/opt/office"}.viewHosts(&globals{state: "/far/state", config: "/far/office.toml"}, "/home/me")
	if err != nil || hs[0].SSH != "me@x" || hs[0].State != "/far/state" || hs[0].Config != "/far/office.toml" || hs[0].Office != "/opt/office" {
		t.Fatalf("--ssh host %+v %v", hs, err)
	}
	// --host takes its table: the far side's paths as written, this
	// machine's joined to the file's directory.
	hs, err = attachFlags{hosts: []string{"a", "b"}, office: "/opt/office"}.viewHosts(&globals{config: view}, "/home/me")
	if err != nil {
		t.Fatal(err)
	}
	if a := hs[0]; a.SSH != "" || a.State != filepath.Join(dir, "st-a") || a.Config != "/home/me/office.toml" {
		t.Errorf("hosts.a = %+v", a)
	}
	if b := hs[1]; b.SSH != "me@b.example" || b.State != "/srv/office" || b.Config != "office.toml" || b.Office != "/opt/office" {
		t.Errorf("hosts.b = %+v", b)
	}
}

func TestAttachBadViews(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	bad := filepath.Join(t.TempDir(), "bad.toml")
	if err := os.WriteFile(bad, []byte("[hosts.b]\nsssh = \"b\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"attach", "--host", "b"}, "give it with --config FILE"},
		{[]string{"attach", "--host", "nope", "--config", o.config}, "has no [hosts.nope] table"},
		{[]string{"attach", "--host", "b", "--config", bad}, `bad.toml:2: hosts.b: unknown key "sssh"`},
		{[]string{"attach", "--ssh", "me@x", "--ssh", "you@x"}, `two servers named "x"`},
		{[]string{"attach", "--ssh", "me@"}, "no host"},
		{[]string{"attach", "--stdio", "--ssh", "x"}, "--stdio does not go with"},
		{[]string{"attach", "--stdio", "--local"}, "--stdio does not go with"},
	} {
		r := o.exec(nil, append(tc.args, "--state", o.state)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("office %v: exit %d, %q; want exit 2 saying %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
