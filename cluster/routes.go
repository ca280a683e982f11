package cluster

// routes.go is who may join the floor as a route of the embedded server:
// the check every incoming route passes (the floor's route password, the
// certificate mutual TLS verified) and the log line of each route taken or
// refused.

import (
	"crypto/subtle"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"office/configs"
)

// checkRoutesAuthenticate refuses a [cluster] whose routes would not be
// mutual TLS (configs refuses it in the office file; this keeps a config
// made elsewhere from starting a server that takes whoever dials listen or
// answers at a peer's address).
func checkRoutesAuthenticate(cfg *configs.Cluster) error {
	if cfg.TLSCert == "" || cfg.TLSKey == "" || cfg.TLSCA == "" {
		return fmt.Errorf("cluster: listen %s: %s", cfg.Listen, configs.MutualTLSRequired)
	}
	return nil
}

// routeGate is the embedded server's check of an incoming route
// (server.Options.CustomRouterAuthentication): the floor's route user and
// password when set, and a certificate verified against tls_ca when mutual
// TLS is on (the TLS handshake has refused a route without one before the
// gate sees it; see natsLog). It logs every route it takes and every one
// it refuses.
type routeGate struct {
	user, pass string
	mutual     bool
	log        *slog.Logger
	// refused logs the routes it refuses (a bounded number of lines).
	refused *refusals
	// self is the server's own id: its route to itself (a floor of one
	// host) is checked like any other but not logged.
	self string
}

// Check implements server.Authentication.
func (g *routeGate) Check(c server.ClientAuthentication) bool {
	from := "unknown"
	if a := c.RemoteAddress(); a != nil {
		from = a.String()
	}
	o := c.GetOpts()
	var by []string
	if g.mutual {
		st := c.GetTLSConnectionState()
		if st == nil || len(st.VerifiedChains) == 0 {
			g.refused.refused(from, "no certificate signed by tls_ca", "server_id", capped(o.Name))
			return false
		}
		by = append(by, "certificate "+certSubject(st))
	}
	if g.pass != "" {
		user := subtle.ConstantTimeCompare([]byte(o.Username), []byte(g.user)) == 1
		pass := subtle.ConstantTimeCompare([]byte(o.Password), []byte(g.pass)) == 1
		if !user || !pass {
			g.refused.refused(from, "wrong route_user or route_password", "server_id", capped(o.Name))
			return false
		}
		by = append(by, "route password")
	}
	if o.Name == g.self {
		return true
	}
	g.log.Info("a route joined the floor", "from", from, "server_id", capped(o.Name), "by", strings.Join(by, " and "))
	return true
}

// certSubject names the peer certificate of st.
func certSubject(st *tls.ConnectionState) string {
	if len(st.PeerCertificates) == 0 {
		return "(none)"
	}
	return st.PeerCertificates[0].Subject.String()
}

// natsLog passes the embedded server's errors to the office's log (its
// warnings as debug lines; of its notices only who leads JetStream's
// cluster layer; its debug and trace lines are dropped: they describe
// NATS's own workings). A route the TLS handshake refused (no certificate,
// one tls_ca did not sign) is only known here, and is logged as refused.
// Its fatal lines (a listener it could not open: the route port taken)
// also go to fatal, when set, so startServer fails at once with the
// reason instead of waiting out StartTimeout.
type natsLog struct {
	log     *slog.Logger
	refused *refusals
	fatal   chan<- string
}

// errAuthLine is what NATS logs of a connection its authentication refused.
var errAuthLine = server.ErrAuthentication.Error()

func (l natsLog) Noticef(format string, v ...any) {
	// Which host leads JetStream's cluster layer (creating streams and
	// buckets, listing them) is worth a line: while none does, those wait.
	msg := fmt.Sprintf(format, v...)
	switch {
	case strings.HasPrefix(msg, "Self is new JetStream cluster metadata leader"):
		l.log.Info("this host leads the floor's JetStream cluster layer")
	case strings.HasPrefix(msg, "JetStream cluster new metadata leader: "):
		l.log.Info("another host leads the floor's JetStream cluster layer", "leader", strings.TrimPrefix(msg, "JetStream cluster new metadata leader: "))
	}
}
func (l natsLog) Debugf(string, ...any) {}
func (l natsLog) Tracef(string, ...any) {}
func (l natsLog) Warnf(format string, v ...any) {
	// Its warnings are about its own workings (JetStream "waiting for
	// routing" every few seconds on a floor of one host, the office's own
	// in-memory login called a plaintext password): debug lines here.
	l.log.Debug("NATS server: " + fmt.Sprintf(format, v...))
}
func (l natsLog) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Error("NATS server: " + msg)
	select {
	case l.fatal <- msg: // a nil channel never takes: no one waits
	default: // the first is the one startServer reports
	}
}
func (l natsLog) Errorf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	if strings.Contains(msg, " - rid:") && strings.Contains(msg, errAuthLine) {
		return // the route gate has logged the refusal, with its reason
	}
	if from, detail, ok := strings.Cut(msg, " - TLS route handshake error: "); ok {
		// NATS's prefix is the remote address and the connection's id.
		from, _, _ = strings.Cut(from, " - rid:")
		l.refused.refused(from, handshakeReason(detail), "detail", capped(detail))
		return
	}
	l.log.Warn("NATS server: " + msg)
}

// Bounds of the log lines of refused routes: whoever reaches listen (or
// answers at a peer's address) chooses how often a route is refused and
// what its server_id and certificate say.
const (
	// RefusalWindow is how long the refusals from one address for one
	// reason after the first logged one are counted instead of logged.
	RefusalWindow = time.Minute
	// MaxRefusalAddrs is how many addresses are counted apart; refusals from
	// any further address are counted together.
	MaxRefusalAddrs = 1024
	// MaxLoggedText is how much of a text a peer chose (its server_id, a
	// TLS error naming its certificate) a log line carries.
	MaxLoggedText = 128
)

// otherAddrs is the address the refusals are counted under once
// MaxRefusalAddrs addresses are.
const otherAddrs = "(other addresses)"

// refusals logs refused routes: of each remote IP address and reason the
// first refusal in a line of its own, and the refusals that follow within
// RefusalWindow as one line with their count, logged with the first
// refusal (from any address) after the window ends. Bounded in lines and
// memory whatever the remote sends (the reasons are office's few own).
type refusals struct {
	log *slog.Logger
	now func() time.Time
	mu  sync.Mutex
	// byAddr is the open window of each remote IP address and reason.
	byAddr map[refusalKey]*refusalWindow
}

type refusalKey struct{ addr, reason string }

type refusalWindow struct {
	start time.Time
	more  int
}

func newRefusals(log *slog.Logger, now func() time.Time) *refusals {
	return &refusals{log: log, now: now, byAddr: map[refusalKey]*refusalWindow{}}
}

// handshakeReason says why a route's TLS handshake failed, from NATS's
// error text: the other side speaks no TLS, or a certificate was not
// trusted (the peer's, by tls_ca, or this host's, by the peer).
func handshakeReason(detail string) string {
	switch {
	case strings.Contains(detail, "does not look like a TLS handshake"):
		return "its TLS handshake failed: it does not speak TLS"
	case strings.Contains(detail, "certificate"):
		return "its TLS handshake failed: a certificate tls_ca did not sign (or the peer refused this host's)"
	}
	return "its TLS handshake failed"
}

// refused logs (or counts) the refusal, for reason, of a route from
// (host:port, or a host).
func (r *refusals) refused(from, reason string, attrs ...any) {
	addr := from
	if h, _, err := net.SplitHostPort(from); err == nil {
		addr = h
	}
	addr = capped(addr)
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for a, w := range r.byAddr {
		if now.Sub(w.start) >= RefusalWindow {
			r.flush(a, w)
			delete(r.byAddr, a)
		}
	}
	k := refusalKey{addr, reason}
	if _, ok := r.byAddr[k]; !ok && len(r.byAddr) >= MaxRefusalAddrs {
		k.addr = otherAddrs
	}
	if w, ok := r.byAddr[k]; ok {
		w.more++
		return
	}
	r.byAddr[k] = &refusalWindow{start: now}
	r.log.Warn("a route was refused: "+reason, append([]any{"from", capped(from)}, attrs...)...)
}

// flush logs the count of w's refusals after its first, if any.
func (r *refusals) flush(k refusalKey, w *refusalWindow) {
	if w.more == 0 {
		return
	}
	r.log.Warn("more routes were refused: "+k.reason, "from", k.addr, "count", w.more, "since", w.start.Format(time.RFC3339))
}

// capped is s cut to MaxLoggedText bytes (valid UTF-8, "..." marking a
// cut).
func capped(s string) string {
	if len(s) <= MaxLoggedText {
		return strings.ToValidUTF8(s, "?")
	}
	return strings.ToValidUTF8(s[:MaxLoggedText], "") + "..."
}
