package configs

// The [web] table: the office's server runs the web server itself, as
// `office web` does (docs/web.md). Nothing listens without it. Like
// `office web --listen`, listen is a loopback address literal, or any
// address with tls_cert and tls_key; without listen the page is on the
// state directory's Unix socket.

import (
	"fmt"
	"net"
)

// Web is the [web] table.
type Web struct {
	// Line is the line of the [web] header.
	Line int
	// Listen is HOST:PORT ("" the Unix socket STATE/web.sock).
	Listen string
	// TLSCert and TLSKey are a PEM certificate and key (both or neither).
	TLSCert, TLSKey string
	// AllowHost are further Host header values accepted (HOST:PORT).
	AllowHost []string
}

// webKeys are the keys of [web].
var webKeys = []string{"listen", "tls_cert", "tls_key", "allow_host"}

// maxAllowHosts bounds allow_host (a few names a browser uses).
const maxAllowHosts = 16

// decodeWeb reads the value of the top-level "web" key; dir is the
// directory relative file paths are joined to.
func decodeWeb(v any, dir string, ix *srcIndex, probs *problems) *Web {
	tb := readTable("web", v, webKeys, ix, probs)
	if tb == nil {
		return nil
	}
	w := &Web{Line: tb.line}
	tb.str("listen", &w.Listen)
	tb.str("tls_cert", &w.TLSCert)
	tb.str("tls_key", &w.TLSKey)
	if v, ok := tb.t["allow_host"]; ok {
		hosts, err := asStrings(v, false)
		if err == nil && len(hosts) > maxAllowHosts {
			err = fmt.Errorf("at most %d names", maxAllowHosts)
		}
		for i, h := range hosts {
			if _, _, e := net.SplitHostPort(h); err == nil && e != nil {
				err = fmt.Errorf("element %d: %q is not HOST:PORT as a browser sends it", i, h)
			}
		}
		if err != nil {
			tb.fail("allow_host", "%v", err)
		}
		w.AllowHost = hosts
	}
	if (w.TLSCert == "") != (w.TLSKey == "") {
		tb.fail("tls_cert", "tls_cert and tls_key go together")
	}
	switch {
	case w.Listen == "" && w.TLSCert != "":
		if !tb.has("listen") {
			tb.fail("tls_cert", "TLS is for listen = \"ADDRESS\" (the Unix socket is reached through your tunnel)")
		}
	case w.Listen != "":
		host, _, err := net.SplitHostPort(w.Listen)
		if err != nil {
			tb.fail("listen", "%q: want HOST:PORT (127.0.0.1:8787 or [::1]:8787)", w.Listen)
			break
		}
		ip := net.ParseIP(host)
		if (ip == nil || !ip.IsLoopback()) && w.TLSCert == "" {
			tb.fail("listen", "%q is not a loopback address literal (127.0.0.1 or [::1]): any other address needs tls_cert and tls_key", w.Listen)
		}
	}
	for _, p := range []*string{&w.TLSCert, &w.TLSKey} {
		if *p != "" && dir != "" {
			*p = expandPath(*p, dir)
		}
	}
	if tb.bad {
		return nil
	}
	return w
}
