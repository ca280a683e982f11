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
