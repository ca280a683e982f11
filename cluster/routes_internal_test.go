package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"office/configs"
	"office/test/testcerts"
	"office/test/testports"
)

// logTap is a slog handler that hands every record to the test as one line
// ("message key=value ...").
type logTap struct{ lines chan string }

func newLogTap() *logTap { return &logTap{lines: make(chan string, 1024)} }

func (l *logTap) Enabled(context.Context, slog.Level) bool { return true }
func (l *logTap) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logTap) WithGroup(string) slog.Handler            { return l }
func (l *logTap) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	select {
	case l.lines <- b.String():
	default:
	}
	return nil
}

// wait returns the first line logged from now on that holds want; it fails
// the test after d.
func (l *logTap) wait(t *testing.T, want string, d time.Duration) string {
	t.Helper()
	end := time.After(d)
	for {
		select {
		case line := <-l.lines:
			if strings.Contains(line, want) {
				return line
			}
		case <-end:
			t.Fatalf("no log line with %q within %s", want, d)
		}
	}
}

// rogue is a NATS server of the floor's cluster name that is not of the
// floor: plain (tc nil) or with a TLS config of its own. It routes to
// route (empty: to no one) and its cluster port listens on listen (empty:
// a port of the kernel's choice). It takes every route that reaches it
// and keeps the password each presented.
type rogue struct {
	*server.Server
	nc        *nats.Conn
	mu        sync.Mutex
	passwords []string
}

func (r *rogue) Check(c server.ClientAuthentication) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.passwords = append(r.passwords, c.GetOpts().Password)
	return true
}

// learned is every password a route presented to r.
func (r *rogue) learned() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.passwords...)
}

func startRogue(t *testing.T, name, listen, route string, tc *tls.Config) *rogue {
	t.Helper()
	r := &rogue{}
	co := server.ClusterOpts{Name: "floor", Host: "127.0.0.1", Port: server.RANDOM_PORT, ConnectRetries: -1}
	if listen != "" {
		h, p, _ := net.SplitHostPort(listen)
		co.Host = h
		co.Port, _ = strconv.Atoi(p)
	}
	if tc != nil {
		co.TLSConfig, co.TLSTimeout = tc, 2
	}
	opts := &server.Options{
		ServerName: name, Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		Cluster: co, CustomRouterAuthentication: r,
	}
	if route != "" {
		opts.Routes = server.RoutesFromStr(route)
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	ns.Start()
	r.Server = ns
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	if !ns.ReadyForConnections(StartTimeout) {
		t.Fatalf("%s did not start", name)
	}
	if r.nc, err = nats.Connect("", nats.InProcessServer(ns)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.nc.Close)
	return r
}

// certTLS is the TLS config of a server with the certificate and key
// given; with caFile it requires and verifies its peers' certificates.
func certTLS(t *testing.T, certFile, keyFile, caFile string) *tls.Config {
	t.Helper()
	tc, err := tlsConfig(&configs.Cluster{TLSCert: certFile, TLSKey: keyFile, TLSCA: caFile}, caFile != "")
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// floorHost starts host a's embedded server with cfg and subscribes its
// office connection to a's agents' subjects.
func floorHost(t *testing.T, cfg *configs.Cluster, tap *logTap) (*server.Server, *nats.Subscription) {
	t.Helper()
	ns, pass, err := startServer(cfg, t.TempDir(), slog.New(tap))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := connect(cfg, ns, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	sub, err := nc.SubscribeSync("office.in.a.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return ns, sub
}

// publishes reports whether a publish of from on office.in.a.victim
// reaches sub within d (polled: no event says a route carried a's
// interest over); anything else arriving fails the test.
func publishes(t *testing.T, from *nats.Conn, sub *nats.Subscription, body string, d time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := from.Publish("office.in.a.victim", []byte(body)); err != nil {
			t.Fatal(err)
		}
		if err := from.Flush(); err != nil {
			t.Fatal(err)
		}
		msg, err := sub.NextMsg(100 * time.Millisecond)
		if err == nil {
			if got := string(msg.Data); got != body {
				t.Fatalf("host a got %q", got)
			}
			return true
		}
	}
	return false
}

// TestRogueRouteIsRefused: a server routing to listen is refused and
// logged with where it came from when it has no TLS, and when it has a
// certificate the floor's authority signed but not the route password (the
// extra layer); nothing it publishes reaches the host. A server with both
// (the control) joins, is logged as joined with how, and its publish to an
// agent's subject arrives.
func TestRogueRouteIsRefused(t *testing.T) {
	t.Parallel()
	ca := testcerts.New(t, "floor")
	aCert, aKey := ca.Host(t, "a")
	cfg := &configs.Cluster{Name: "floor", Host: "a", Listen: testports.Addr(t), TLSCert: aCert, TLSKey: aKey, TLSCA: ca.CA,
		RouteUser: "floor", RoutePassword: testRoutePassword}
	tap := newLogTap()
	ns, sub := floorHost(t, cfg, tap)

	plain := startRogue(t, "plain", "", "nats://"+cfg.Listen, nil)
	line := tap.wait(t, "a route was refused", 10*time.Second)
	if !strings.Contains(line, "TLS handshake failed") || !strings.Contains(line, "from=127.0.0.1") {
		t.Errorf("the refusal of a route without TLS logged %q", line)
	}
	rCert, rKey := ca.Host(t, "rogue")
	signed := startRogue(t, "signed", "", "nats://"+cfg.Listen, certTLS(t, rCert, rKey, ca.CA))
	line = tap.wait(t, "a route was refused: wrong route_user or route_password", 10*time.Second)
	if !strings.Contains(line, "from=127.0.0.1:") {
		t.Errorf("the refusal's log line %q does not say why and from where", line)
	}
	for _, r := range []*rogue{plain, signed} {
		if publishes(t, r.nc, sub, "typed by a rogue", 300*time.Millisecond) {
			t.Fatalf("the publish of %s reached host a", r.Name())
		}
	}
	// (A rogue's own count may show its side of the connection for the
	// moment before a closes it; a's is what lets anything in.)
	if n := ns.NumRoutes(); n != 0 {
		t.Fatalf("host a has %d routes with only rogues routing to it, want none", n)
	}

	mCert, mKey := ca.Host(t, "member")
	member := startRogue(t, "member", "", "nats://floor:"+testRoutePassword+"@"+cfg.Listen, certTLS(t, mCert, mKey, ca.CA))
	line = tap.wait(t, "a route joined the floor", 10*time.Second)
	if !strings.Contains(line, "by=certificate CN=member and route password") {
		t.Errorf("the join's log line %q does not say how it authenticated", line)
	}
	if !publishes(t, member.nc, sub, "typed by a member", 10*time.Second) {
		t.Fatal("the member's publish never reached host a: the control failed, the refusal proves nothing")
	}
}

// TestRogueRouteWithoutCertificateIsRefused: on a floor of mutual TLS (no
// route password), a server routing to listen without TLS, and one with a
// certificate the floor's authority did not sign, are refused and logged;
// a server with a certificate it signed joins and is logged with its
// certificate's name.
func TestRogueRouteWithoutCertificateIsRefused(t *testing.T) {
	t.Parallel()
	ca := testcerts.New(t, "floor")
	aCert, aKey := ca.Host(t, "a")
	cfg := &configs.Cluster{Name: "floor", Host: "a", Listen: testports.Addr(t), TLSCert: aCert, TLSKey: aKey, TLSCA: ca.CA}
	tap := newLogTap()
	floorHost(t, cfg, tap)

	startRogue(t, "plain", "", "nats://"+cfg.Listen, nil)
	line := tap.wait(t, "a route was refused", 10*time.Second)
	if !strings.Contains(line, "TLS handshake failed") {
		t.Errorf("the refusal of a route without TLS logged %q", line)
	}
	other := testcerts.New(t, "other")
	sCert, sKey := other.Host(t, "stranger")
	stranger := startRogue(t, "stranger", "", "nats://"+cfg.Listen, certTLS(t, sCert, sKey, other.CA))
	tap.wait(t, "a route was refused", 10*time.Second)
	mCert, mKey := ca.Host(t, "member")
	startRogue(t, "member", "", "nats://"+cfg.Listen, certTLS(t, mCert, mKey, ca.CA))
	line = tap.wait(t, "a route joined the floor", 10*time.Second)
	if !strings.Contains(line, "by=certificate CN=member") {
		t.Errorf("the join's log line %q does not name the member's certificate", line)
	}
	if n := stranger.NumRoutes(); n != 0 {
		t.Errorf("the stranger has %d routes, want none", n)
	}
}

// TestRoguePeerIsRefused is the outbound direction: host a dials its peer
// b's address, where first a plain NATS server (no TLS, taking any route)
// and then one with a certificate the floor's authority did not sign
// answer. a refuses both (its TLS client verifies the peer's certificate
// against tls_ca), logs it, has no route, sends neither its route password
// (the rogues keep every password they are shown), and a publish of their
// clients never reaches a's subscription. Then the real b (a certificate
// the authority signed) takes the address: a's route to it comes up and
// b's publish arrives (the control).
func TestRoguePeerIsRefused(t *testing.T) {
	t.Parallel()
	ca := testcerts.New(t, "floor")
	aCert, aKey := ca.Host(t, "a")
	peer := testports.Addr(t)
	cfg := &configs.Cluster{Name: "floor", Host: "a", Listen: testports.Addr(t), Peers: []string{peer},
		TLSCert: aCert, TLSKey: aKey, TLSCA: ca.CA, RouteUser: "floor", RoutePassword: testRoutePassword}
	tap := newLogTap()
	ns, sub := floorHost(t, cfg, tap)

	other := testcerts.New(t, "other")
	sCert, sKey := other.Host(t, "b")
	for _, tc := range []struct {
		name string
		tls  *tls.Config
	}{
		{"plain", nil},
		{"stranger", certTLS(t, sCert, sKey, "")},
	} {
		r := startRogue(t, tc.name, peer, "", tc.tls)
		line := tap.wait(t, "a route was refused", 10*time.Second)
		if !strings.Contains(line, "TLS handshake failed") {
			t.Errorf("%s: a logged %q", tc.name, line)
		}
		if publishes(t, r.nc, sub, "typed by "+tc.name, time.Second) {
			t.Fatalf("%s at b's address injected a message into host a", tc.name)
		}
		if n := ns.NumRoutes(); n != 0 {
			t.Fatalf("%s: host a has %d routes, want none", tc.name, n)
		}
		for _, p := range r.learned() {
			if p != "" {
				t.Fatalf("%s at b's address learned the route password %q", tc.name, p)
			}
		}
		r.Shutdown()
		r.WaitForShutdown()
	}

	bCert, bKey := ca.Host(t, "b")
	b := startRogue(t, "b", peer, "", certTLS(t, bCert, bKey, ca.CA))
	if !publishes(t, b.nc, sub, "typed by b", 10*time.Second) {
		t.Fatal("the real b's publish never reached host a: the control failed, the refusals prove nothing")
	}
	if got := b.learned(); len(got) == 0 || got[0] != testRoutePassword {
		t.Errorf("b was shown passwords %q, want the route password (the extra layer, over TLS)", got)
	}
}

// TestRefusalsAreBounded: a remote refused again and again, with a 4 KB
// server_id, makes one log line per address and reason, its server_id cut
// to MaxLoggedText; the refusals that follow within RefusalWindow are one
// line with their count, logged once the window has passed; beyond
// MaxRefusalAddrs addresses the rest share one line.
func TestRefusalsAreBounded(t *testing.T) {
	t.Parallel()
	tap := newLogTap()
	now := time.Unix(1_700_000_000, 0)
	r := newRefusals(slog.New(tap), func() time.Time { return now })
	huge := strings.Repeat("x", 4096)
	for i := range 100 {
		r.refused("10.0.0.9:"+strconv.Itoa(40000+i), "wrong route_user or route_password", "server_id", capped(huge))
	}
	r.refused("10.0.0.8:40000", "wrong route_user or route_password", "server_id", "b")
	r.refused("10.0.0.9:41000", "its TLS handshake failed", "detail", capped(huge))
	lines := drain(tap)
	if len(lines) != 3 {
		t.Fatalf("102 refusals from two addresses, two reasons logged %d lines, want 3:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if len(l) > 2*MaxLoggedText+100 {
			t.Errorf("a line of %d bytes: the remote's text is not capped", len(l))
		}
	}
	if !strings.Contains(lines[0], "from=10.0.0.9:40000") || !strings.Contains(lines[0], "server_id="+strings.Repeat("x", MaxLoggedText)+"...") {
		t.Errorf("the first refusal logged %q", lines[0])
	}

	now = now.Add(RefusalWindow - time.Second)
	r.refused("10.0.0.9:42000", "wrong route_user or route_password", "server_id", "x")
	if lines := drain(tap); len(lines) != 0 {
		t.Fatalf("a refusal within the window logged %q", lines)
	}
	now = now.Add(time.Second)
	r.refused("10.0.0.7:40000", "wrong route_user or route_password", "server_id", "y")
	lines = drain(tap)
	want := "more routes were refused: wrong route_user or route_password from=10.0.0.9 count=100"
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) || len(lines) != 2 {
		t.Fatalf("after the window got %q, want the count %q and the new address's line", lines, want)
	}

	for i := range MaxRefusalAddrs + 50 {
		r.refused(fmt.Sprintf("10.1.%d.%d:1", i/256, i%256), "its TLS handshake failed", "detail", "d")
	}
	if n := len(drain(tap)); n > MaxRefusalAddrs {
		t.Errorf("%d addresses made %d lines, want at most %d", MaxRefusalAddrs+50, n, MaxRefusalAddrs)
	}
	if n := len(r.byAddr); n > MaxRefusalAddrs+1 {
		t.Errorf("%d windows kept, want at most %d", n, MaxRefusalAddrs+1)
	}
}

// drain returns the lines logged to tap so far.
func drain(tap *logTap) []string {
	var out []string
	for {
		select {
		case l := <-tap.lines:
			out = append(out, l)
		default:
			return out
		}
	}
}

// TestServerWithoutMutualTLSIsRefused: a config made elsewhere than an
// office file (which configs refuses) with peers and a route password but
// not all of tls_cert, tls_key and tls_ca starts no server.
func TestServerWithoutMutualTLSIsRefused(t *testing.T) {
	t.Parallel()
	ca := testcerts.New(t, "floor")
	cert, key := ca.Host(t, "a")
	for _, cfg := range []*configs.Cluster{
		{Name: "floor", Host: "a", Listen: testports.Addr(t), Peers: []string{testports.Addr(t)}, RouteUser: "floor", RoutePassword: testRoutePassword},
		{Name: "floor", Host: "a", Listen: testports.Addr(t), TLSCert: cert, TLSKey: key, RouteUser: "floor", RoutePassword: testRoutePassword},
	} {
		ns, _, err := startServer(cfg, t.TempDir(), slog.New(slog.DiscardHandler))
		if err == nil {
			ns.Shutdown()
			t.Fatalf("%+v: a server started without mutual TLS", cfg)
		}
		if !strings.Contains(err.Error(), "need mutual TLS") {
			t.Errorf("err = %v, want it to say mutual TLS is needed", err)
		}
	}
}
