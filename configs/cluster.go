package configs

// The [cluster] table: one office across hosts (docs/cluster.md). A file
// without it is a one-host office and starts no NATS.

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Cluster is the [cluster] table: this host's place on a floor of hosts that
// share roster, mail, inbox items and `office send` messages over NATS
// JetStream. Either Listen (with Peers) runs NATS embedded in the office
// server, or URL names an existing NATS system to use instead.
type Cluster struct {
	// Line is the line of the [cluster] header, for errors found later.
	Line int
	// Name is the floor's name, the same on every host (the NATS cluster
	// name).
	Name string
	// Host is this host's name, unique on the floor.
	Host string
	// Listen is host:port where the embedded NATS server listens for its
	// peers' routes. Empty with URL set.
	Listen string
	// Peers are the other hosts' Listen addresses (host:port), the embedded
	// server's routes.
	Peers []string
	// URL, when set, is an existing NATS system (nats://host:port, several
	// comma-separated) to connect to instead of embedding a server.
	URL string
	// TLSCert and TLSKey are a PEM certificate and key: for the routes of
	// the embedded server (both ways, with TLSCA) or the client connection
	// to URL.
	TLSCert, TLSKey string
	// TLSCA is a PEM file of the certificate authorities to trust.
	TLSCA string
	// Credentials is a NATS credentials file (JWT and nkey seed) for the
	// connection to URL.
	Credentials string
	// RouteUser and RoutePassword, when set, are the user and password every
	// route of the floor presents and requires: an extra layer on mutual
	// TLS, which the embedded server always needs.
	RouteUser, RoutePassword string
}

// MinRoutePassword is the shortest route_password taken: a route port
// answers whoever reaches it, as often as they try, so the password must
// be one nobody guesses (`openssl rand -hex 16` makes 32 characters).
const MinRoutePassword = 16

// MutualTLSRequired is why a [cluster] with listen (an embedded server,
// with or without peers) must set tls_cert, tls_key and tls_ca.
const MutualTLSRequired = "the floor's routes need mutual TLS: set tls_cert, tls_key and tls_ca (how to make them: docs/cluster.md, \"Setting up two hosts\"). " +
	"A route password cannot prove who is at the other end: this host sends it to whatever answers at a peer's address " +
	"(a user who takes the port of a stopped peer, anyone on the path) and takes that server's messages, and a server " +
	"dialing listen is known only by a certificate tls_ca signed; route_user and route_password are an optional extra layer"

// clusterKeys are the keys of [cluster].
var clusterKeys = []string{"name", "host", "listen", "peers", "url", "tls_cert", "tls_key", "tls_ca", "credentials", "route_user", "route_password"}

// decodeCluster reads the value of the top-level "cluster" key; dir is the
// directory relative file paths are joined to ("" leaves them relative).
func decodeCluster(v any, dir string, ix *srcIndex, probs *problems) *Cluster {
	tb := readTable("cluster", v, clusterKeys, ix, probs)
	if tb == nil {
		return nil
	}
	c := &Cluster{Line: tb.line}
	t, fail, str := tb.t, tb.fail, tb.str
	str("name", &c.Name)
	str("host", &c.Host)
	str("listen", &c.Listen)
	str("url", &c.URL)
	str("tls_cert", &c.TLSCert)
	str("tls_key", &c.TLSKey)
	str("tls_ca", &c.TLSCA)
	str("credentials", &c.Credentials)
	str("route_user", &c.RouteUser)
	str("route_password", &c.RoutePassword)
	if v, ok := t["peers"]; ok {
		peers, err := asStrings(v, false)
		if err != nil {
			fail("peers", "%v", err)
		}
		for i, p := range peers {
			if err := checkHostPort(p); err != nil {
				fail("peers", "element %d: %v", i, err)
			}
		}
		c.Peers = peers
	}
	for _, k := range []struct {
		key string
		val string
	}{{"name", c.Name}, {"host", c.Host}} {
		if !tb.has(k.key) {
			tb.failTable("%s is required", k.key)
		} else if k.val != "" {
			if err := checkClusterName(k.val); err != nil {
				fail(k.key, "%v", err)
			}
		}
	}
	switch {
	case c.Listen == "" && c.URL == "":
		if !tb.has("listen") && !tb.has("url") {
			tb.failTable("set listen (embedded NATS, with peers) or url (an existing NATS)")
		}
	case c.Listen != "" && c.URL != "":
		fail("url", "set listen (embedded NATS) or url (an existing NATS), not both")
	case c.Listen != "":
		if err := checkHostPort(c.Listen); err != nil {
			fail("listen", "%v", err)
		}
		if c.Credentials != "" {
			fail("credentials", "only for url (an existing NATS); the embedded server's routes use route_user and route_password")
		}
		if c.TLSCert == "" || c.TLSKey == "" || c.TLSCA == "" {
			tb.failTable("%s", MutualTLSRequired)
		}
		if c.RoutePassword != "" && len(c.RoutePassword) < MinRoutePassword {
			fail("route_password", "shorter than %d characters: make one with `openssl rand -hex 16`", MinRoutePassword)
		}
	case c.URL != "":
		if len(c.Peers) > 0 {
			fail("peers", "peers are the embedded server's routes; with url the existing NATS knows its own")
		}
		for _, u := range strings.Split(c.URL, ",") {
			pu, err := url.Parse(strings.TrimSpace(u))
			if err != nil || pu.Host == "" || (pu.Scheme != "nats" && pu.Scheme != "tls") {
				fail("url", "%q is not a NATS URL like nats://host:4222", strings.TrimSpace(u))
			}
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		fail("tls_cert", "tls_cert and tls_key go together")
	}
	if (c.RouteUser == "") != (c.RoutePassword == "") {
		fail("route_user", "route_user and route_password go together")
	}
	for _, p := range []*string{&c.TLSCert, &c.TLSKey, &c.TLSCA, &c.Credentials} {
		if *p != "" && dir != "" {
			*p = expandPath(*p, dir)
		}
	}
	if tb.bad {
		return nil
	}
	return c
}

// checkSecret refuses an office file whose route_password other users can
// read (group or other read permission): with it they could join the
// floor. data is the file's text, for the key's line.
func (c *Config) checkSecret(data []byte, stat func(string) (os.FileInfo, error)) error {
	if c.Cluster == nil || c.Cluster.RoutePassword == "" {
		return nil
	}
	fi, err := stat(c.Path)
	if err != nil {
		return fmt.Errorf("configs: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o044 != 0 {
		probs := &problems{file: c.Path}
		probs.add(indexSource(string(data)).line("cluster", "route_password"),
			"cluster: route_password: the file is readable by other users (mode %#o), who could join the floor with it: chmod 600 %s", perm, c.Path)
		return probs.err()
	}
	return nil
}

// expandPath joins a relative path to dir (the office file's directory);
// absolute paths and paths starting with "~" are kept as written.
func expandPath(p, dir string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		return p
	}
	return filepath.Join(dir, p)
}

// checkClusterName allows what NATS allows in a server, stream and bucket
// name and a subject token: 1 to 32 letters, digits, '_' or '-', starting
// with a letter or digit.
func checkClusterName(name string) error {
	ok := len(name) >= 1 && len(name) <= 32
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		ok = alnum || i > 0 && (c == '_' || c == '-')
	}
	if !ok {
		return fmt.Errorf("bad name %q: use 1 to 32 letters, digits, '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// checkHostPort wants host:port with a port from 1 to 65535.
func checkHostPort(s string) error {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("%q: want host:port like \"10.0.0.2:7422\"", s)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 || h == "" {
		return fmt.Errorf("%q: want host:port with a port from 1 to 65535", s)
	}
	return nil
}

// Host is a [hosts.NAME] table: a server `office attach --host NAME` shows
// in one view with others (docs/cluster.md, "One view"). Without SSH it is
// a server of this machine.
type Host struct {
	// Name is the table's name, the host's name in the view (AGENT@NAME).
	Name string
	// Line is the line of the table's header.
	Line int
	// SSH is ssh's destination ("user@host" or an alias of ~/.ssh/config);
	// empty: this machine.
	SSH string
	// State and Config are the server's state directory and office file
	// there ("": its defaults). For this machine a relative path is
	// relative to this file; through ssh it is the far side's (relative to
	// the login's home directory) and kept as written.
	State, Config string
	// Office is the office command there (default "office").
	Office string
}

// hostKeys are the keys of a [hosts.NAME] table.
var hostKeys = []string{"ssh", "state", "config", "office"}

// decodeHosts reads the value of the top-level "hosts" key.
func decodeHosts(v any, dir string, ix *srcIndex, probs *problems) map[string]Host {
	t, ok := v.(map[string]any)
	if !ok {
		probs.add(ix.line("hosts"), "hosts: want [hosts.NAME] tables, got %s", tomlType(v))
		return nil
	}
	out := map[string]Host{}
	for _, name := range slices.Sorted(maps.Keys(t)) {
		at := ix.line("hosts", name)
		ht, ok := t[name].(map[string]any)
		if !ok {
			probs.add(at, "hosts.%s: want a [hosts.%s] table, got %s", name, name, tomlType(t[name]))
			continue
		}
		if err := checkClusterName(name); err != nil {
			probs.add(at, "hosts.%s: %v", name, err)
			continue
		}
		h, bad := Host{Name: name, Line: at}, false
		for _, key := range slices.Sorted(maps.Keys(ht)) {
			var dst *string
			switch key {
			case "ssh":
				dst = &h.SSH
			case "state":
				dst = &h.State
			case "config":
				dst = &h.Config
			case "office":
				dst = &h.Office
			default:
				bad = true
				probs.add(ix.line("hosts", name, key), "hosts.%s: unknown key %q (known: %s)", name, key, strings.Join(hostKeys, ", "))
				continue
			}
			s, err := asString(ht[key])
			if err == nil && strings.TrimSpace(s) == "" {
				err = fmt.Errorf("is blank")
			}
			if err != nil {
				bad = true
				probs.add(ix.line("hosts", name, key), "hosts.%s: %s: %v", name, key, err)
				continue
			}
			*dst = s
		}
		if h.SSH == "" && h.Office != "" {
			bad = true
			probs.add(ix.line("hosts", name, "office"), "hosts.%s: office: only with ssh (this machine runs this office)", name)
		}
		if h.SSH == "" && dir != "" {
			for _, p := range []*string{&h.State, &h.Config} {
				if *p != "" {
					*p = expandPath(*p, dir)
				}
			}
		}
		if !bad {
			out[name] = h
		}
	}
	return out
}
