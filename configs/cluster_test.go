package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClusterTable(t *testing.T) {
	t.Parallel()
	src := `[[agent]]
name = "a1"
profile = "shell"

[cluster]
name = "floor"
host = "a"
listen = "127.0.0.1:7422"
peers = ["127.0.0.1:7423", "b.example:7422"]
tls_cert = "certs/a.pem"
tls_key = "certs/a.key"
tls_ca = "certs/ca.pem"
route_user = "office"
route_password = "0123456789abcdef"
`
	c, err := Parse("/etc/office/office.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cl := c.Cluster
	if cl == nil || cl.Name != "floor" || cl.Host != "a" || cl.Listen != "127.0.0.1:7422" || len(cl.Peers) != 2 || cl.Line != 5 {
		t.Fatalf("cluster = %+v", cl)
	}
	if cl.TLSCert != "/etc/office/certs/a.pem" {
		t.Errorf("tls_cert = %q, want it joined to the file's directory", cl.TLSCert)
	}
	if c.clone().Cluster == cl {
		t.Error("clone shares the cluster table")
	}
}

func TestNoClusterTable(t *testing.T) {
	t.Parallel()
	c, err := Parse("office.toml", []byte("[[agent]]\nname = \"a1\"\nprofile = \"shell\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Cluster != nil {
		t.Fatalf("cluster = %+v, want nil without a [cluster] table", c.Cluster)
	}
}

func TestClusterErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ body, want string }{
		{"name = \"f\"\nhost = \"a\"\n", "office.toml:1: cluster: set listen"},
		{"host = \"a\"\nlisten = \"127.0.0.1:1\"\n", "office.toml:1: cluster: name is required"},
		{"name = \"f\"\nhost = \"a.b\"\nlisten = \"127.0.0.1:1\"\n", "office.toml:3: cluster: host: bad name \"a.b\""},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"nowhere\"\n", "office.toml:4: cluster: listen: \"nowhere\": want host:port"},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:1\"\npeers = [\"x:0\"]\n", "office.toml:5: cluster: peers: element 0"},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:1\"\nurl = \"nats://x:4222\"\n", "office.toml:5: cluster: url: set listen"},
		{"name = \"f\"\nhost = \"a\"\nurl = \"http://x\"\n", "office.toml:4: cluster: url: \"http://x\" is not a NATS URL"},
		{"name = \"f\"\nhost = \"a\"\nurl = \"nats://x:4222\"\ncolour = 1\n", "office.toml:5: cluster: unknown key \"colour\""},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:1\"\ntls_cert = \"c.pem\"\n", "office.toml:5: cluster: tls_cert: tls_cert and tls_key go together"},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:1\"\ncredentials = \"x.creds\"\n", "office.toml:5: cluster: credentials: only for url"},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:1\"\n", "office.toml:1: cluster: the floor's routes need mutual TLS"},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"0.0.0.0:1\"\ntls_cert = \"c.pem\"\ntls_key = \"c.key\"\n", "office.toml:1: cluster: the floor's routes need mutual TLS"},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:1\"\nroute_user = \"u\"\nroute_password = \"short\"\n", "office.toml:6: cluster: route_password: shorter than 16 characters"},
		{"name = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:1\"\nroute_user = \"u\"\nroute_password = \"0123456789abcdef\"\ntls_ca = \"ca.pem\"\n", "office.toml:1: cluster: the floor's routes need mutual TLS"},
	}
	for _, tc := range cases {
		_, err := Parse("office.toml", []byte("[cluster]\n"+tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.body, err, tc.want)
		}
	}
	if _, err := Parse("office.toml", []byte("cluster = 3\n")); err == nil || !strings.Contains(err.Error(), "office.toml:1: cluster: want a [cluster] table") {
		t.Errorf("cluster = 3: err = %v", err)
	}
}

func TestHostsTables(t *testing.T) {
	t.Parallel()
	src := `[hosts.a]
state = "st/a"
config = "/etc/office/a.toml"

[hosts.b]
ssh = "me@b.example"
state = "office-state"
office = "/opt/office/bin/office"
`
	c, err := Parse("/etc/office/view.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Hosts["a"], c.Hosts["b"]
	if a.SSH != "" || a.State != "/etc/office/st/a" || a.Config != "/etc/office/a.toml" || a.Line != 1 || a.Name != "a" {
		t.Errorf("hosts.a = %+v, want this machine, its state joined to the file's directory", a)
	}
	if b.SSH != "me@b.example" || b.State != "office-state" || b.Office != "/opt/office/bin/office" || b.Line != 5 {
		t.Errorf("hosts.b = %+v, want the far side's paths as written", b)
	}
	if len(c.Hosts) != 2 {
		t.Errorf("hosts = %v", c.Hosts)
	}
	c2 := c.clone()
	delete(c2.Hosts, "a")
	if _, ok := c.Hosts["a"]; !ok {
		t.Error("clone shares the hosts map")
	}
}

func TestHostsTableErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{"[hosts.b]\nssh = \"b\"\nport = 22\n", `view.toml:3: hosts.b: unknown key "port" (known: ssh, state, config, office)`},
		{"[hosts.b]\nssh = \"\"\n", `view.toml:2: hosts.b: ssh: is blank`},
		{"[hosts.b]\nssh = 7\n", `view.toml:2: hosts.b: ssh: want a string, got an integer`},
		{"[hosts.\"b@c\"]\nssh = \"b\"\n", `view.toml:1: hosts.b@c: bad name "b@c"`},
		{"[hosts.a]\noffice = \"/bin/office\"\n", `view.toml:2: hosts.a: office: only with ssh`},
		{"hosts = 3\n", `view.toml:1: hosts: want [hosts.NAME] tables, got an integer`},
	} {
		_, err := Parse("view.toml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestClusterRoutesAuthenticate: a listen (with peers or without) is taken
// only with mutual TLS (certificate, key and the authorities peers must be
// signed by), a route password on top or not; the url form has no routes
// of its own and needs neither.
func TestClusterRoutesAuthenticate(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"listen = \"10.0.0.1:7422\"\ntls_cert = \"a.pem\"\ntls_key = \"a.key\"\ntls_ca = \"ca.pem\"\n",
		"listen = \"127.0.0.1:1\"\npeers = [\"127.0.0.1:2\"]\ntls_cert = \"a.pem\"\ntls_key = \"a.key\"\ntls_ca = \"ca.pem\"\n" +
			"route_user = \"floor\"\nroute_password = \"0123456789abcdef\"\n",
		"url = \"nats://10.0.0.9:4222\"\n",
	} {
		if _, err := Parse("office.toml", []byte("[cluster]\nname = \"f\"\nhost = \"a\"\n"+body)); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestPasswordOnlyFloorIsRefused: the reviewer's floor, peers and a route
// password and no TLS, is refused at the [cluster] line saying what the
// password cannot prove and where the recipe is; so is a listen without
// peers (a host only dialed by others) with a password alone.
func TestPasswordOnlyFloorIsRefused(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"listen = \"127.0.0.1:7422\"\npeers = [\"127.0.0.1:7423\"]\nroute_user = \"floor\"\nroute_password = \"0123456789abcdef\"\n",
		"listen = \"127.0.0.1:7422\"\nroute_user = \"floor\"\nroute_password = \"0123456789abcdef\"\n",
	} {
		_, err := Parse("office.toml", []byte("[[agent]]\nname = \"a1\"\nprofile = \"shell\"\n\n[cluster]\nname = \"f\"\nhost = \"a\"\n"+body))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%q: err = %v, want a configs error", body, err)
		}
		for _, want := range []string{"office.toml:5: cluster: the floor's routes need mutual TLS", "cannot prove who is at the other end",
			"whatever answers at a peer's address", "docs/cluster.md"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q: err = %v, want %q", body, err, want)
			}
		}
	}
}

// TestRoutePasswordFileMode: Load refuses an office file holding a
// route_password that other users can read, at the key's line, and takes
// the same file once it is 0600.
func TestRoutePasswordFileMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "office.toml")
	src := "[[agent]]\nname = \"a1\"\nprofile = \"shell\"\n\n[cluster]\nname = \"f\"\nhost = \"a\"\nlisten = \"127.0.0.1:7422\"\n" +
		"route_user = \"floor\"\nroute_password = \"0123456789abcdef\"\ntls_cert = \"a.pem\"\ntls_key = \"a.key\"\ntls_ca = \"ca.pem\"\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + ":10: cluster: route_password: the file is readable by other users (mode 0644)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Load of a 0644 file with a route password: err = %v, want %q", err, want)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Errorf("err = %T, want an *Error (exit 2)", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("Load of the 0600 file: %v", err)
	}
}

// TestClusterDocExamples: every [cluster] example of docs/cluster.md is an
// office file's table the decoder takes, and its key table lists exactly
// the keys of [cluster].
func TestClusterDocExamples(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../docs/cluster.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	blocks := 0
	for rest := doc; ; {
		i := strings.Index(rest, "```toml\n")
		if i < 0 {
			break
		}
		rest = rest[i+len("```toml\n"):]
		j := strings.Index(rest, "```")
		block := rest[:j]
		rest = rest[j+3:]
		if !strings.Contains(block, "[cluster]") {
			continue
		}
		blocks++
		if _, err := Parse("office.toml", []byte("[[agent]]\nname = \"a1\"\nprofile = \"shell\"\n\n"+block)); err != nil {
			t.Errorf("docs/cluster.md example %d: %v\n%s", blocks, err, block)
		}
	}
	if blocks < 2 {
		t.Errorf("docs/cluster.md has %d [cluster] examples, want the secure setup and the one-machine one", blocks)
	}
	for _, key := range clusterKeys {
		if !strings.Contains(doc, "`"+key+"`") {
			t.Errorf("docs/cluster.md's key table does not list %q", key)
		}
	}
}
