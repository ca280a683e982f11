package configs

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWebTable(t *testing.T) {
	t.Parallel()
	src := "[web]\nlisten = \"0.0.0.0:8443\"\ntls_cert = \"cert.pem\"\ntls_key = \"/etc/office/key.pem\"\nallow_host = [\"office.example:8443\"]\n\n[[agent]]\nname = \"a\"\nprofile = \"shell\"\n"
	c, err := Parse(filepath.Join("/home/me", "office.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	w := c.Web
	if w == nil || w.Line != 1 || w.Listen != "0.0.0.0:8443" || w.TLSCert != "/home/me/cert.pem" || w.TLSKey != "/etc/office/key.pem" ||
		!slices.Equal(w.AllowHost, []string{"office.example:8443"}) {
		t.Fatalf("web = %+v", w)
	}
	if cl := c.clone(); cl.Web == c.Web || cl.Web.Listen != w.Listen {
		t.Fatalf("clone's web %+v", cl.Web)
	}
	// An empty table: the Unix socket.
	c, err = Parse("office.toml", []byte("[web]\n\n[[agent]]\nname = \"a\"\nprofile = \"shell\"\n"))
	if err != nil || c.Web == nil || c.Web.Listen != "" {
		t.Fatalf("[web] alone: %+v %v", c.Web, err)
	}
	if c, err := Parse("office.toml", []byte("[[agent]]\nname = \"a\"\nprofile = \"shell\"\n")); err != nil || c.Web != nil {
		t.Fatalf("no [web]: %+v %v", c.Web, err)
	}
}

func TestWebBadInputRefusedAtItsLine(t *testing.T) {
	t.Parallel()
	agent := "[[agent]]\nname = \"a\"\nprofile = \"shell\"\n"
	for _, c := range []struct{ src, want string }{
		{"[web]\n\nlisten = \"0.0.0.0:8787\"\n", `office.toml:3: web: listen: "0.0.0.0:8787" is not a loopback address literal (127.0.0.1 or [::1]): any other address needs tls_cert and tls_key`},
		{"[web]\nlisten = \"localhost:8787\"\n", `office.toml:2: web: listen: "localhost:8787" is not a loopback address literal`},
		{"[web]\nlisten = \"8787\"\n", `office.toml:2: web: listen: "8787": want HOST:PORT`},
		{"[web]\nlisten = \"0.0.0.0:8443\"\ntls_cert = \"c.pem\"\n", `office.toml:3: web: tls_cert: tls_cert and tls_key go together`},
		{"[web]\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"\n", `office.toml:2: web: tls_cert: TLS is for listen`},
		{"[web]\nallow_host = [\"office.example\"]\n", `office.toml:2: web: allow_host: element 0: "office.example" is not HOST:PORT`},
		{"[web]\nport = 8787\n", `office.toml:2: web: unknown key "port"`},
		{"web = true\n", `office.toml:1: web: want a [web] table`},
	} {
		_, err := Parse("office.toml", []byte(c.src+"\n"+agent))
		var ce *Error
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.src, err, c.want)
		}
	}
}
