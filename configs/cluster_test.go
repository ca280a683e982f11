package configs

import (
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
route_user = "office"
route_password = "secret"
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
