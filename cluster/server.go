package cluster

// server.go runs the embedded NATS server (JetStream on, its store inside the
// state directory, routes to the peers) and makes the connection to it, or
// to an existing NATS when the office file gives url.

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"office/configs"
)

// Timings of the connection to NATS.
const (
	// StartTimeout is how long the embedded server may take to be ready for
	// connections.
	StartTimeout = 10 * time.Second
	// ReconnectWait is the pause between two attempts to reach NATS again:
	// short (a local, in-process server is back at once), and the attempts
	// cost a failed dial each.
	ReconnectWait = 250 * time.Millisecond
	// RouteRetry is how often the embedded server tries a peer that is down
	// again (NATS's own default is 1 s): well within Unreachable, so a host
	// that comes back is routed again before it would be shown unreachable
	// a second time.
	RouteRetry = time.Second
)

// tagOf is the server tag that places a host's streams on its own server.
func tagOf(host string) string { return "office-host:" + host }

// storeDir is where the embedded server keeps JetStream's files.
func storeDir(stateDir string) string { return filepath.Join(stateDir, "cluster", "jetstream") }

// officeUser is the one client login of the embedded server: the office's
// own in-process connection.
const officeUser = "office"

// startServer starts the embedded NATS server of cfg: routes on cfg.Listen
// to cfg.Peers, JetStream in stateDir, and a client side only the office's
// own in-process connection can log in to. Messages are fsynced on every
// write (SyncAlways): the stream of one host has one copy, so its disk is
// what holds an accepted item. It returns the server and the password of
// that login, made here and held only in this process's memory. Every
// route is mutual TLS, both the ones dialed and the ones dialing in, and
// passes routeGate; log gets each route taken or refused and the server's
// warnings and errors.
//
// The client port: NATS starts its routes only once its client listener is
// up (with DontListen the routes never start), so the server listens on
// 127.0.0.1, on a port of the kernel's choice. That listener takes no one:
// its one user may connect in-process only (AllowedConnectionTypes), so a
// TCP client of any uid, with or without a password, is refused before it
// can publish or subscribe.
func startServer(cfg *configs.Cluster, stateDir string, log *slog.Logger) (*server.Server, string, error) {
	if err := checkRoutesAuthenticate(cfg); err != nil {
		return nil, "", err
	}
	host, portStr, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, "", fmt.Errorf("cluster: listen %q: %w", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, "", fmt.Errorf("cluster: listen %q: bad port", cfg.Listen)
	}
	dir := storeDir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("cluster: %w", err)
	}
	routes := make([]string, len(cfg.Peers))
	for i, p := range cfg.Peers {
		routes[i] = routeURL(cfg, p)
	}
	pass := rand.Text()
	refused := newRefusals(log, time.Now)
	gate := &routeGate{user: cfg.RouteUser, pass: cfg.RoutePassword, mutual: cfg.TLSCert != "" && cfg.TLSCA != "", log: log, refused: refused}
	opts := &server.Options{
		ServerName: cfg.Host,
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		NoSigs:     true,
		NoLog:      true,
		JetStream:  true,
		StoreDir:   dir,
		SyncAlways: true,
		MaxPayload: MaxPayload,
		Tags:       []string{tagOf(cfg.Host)},
		Users: []*server.User{{
			Username:               officeUser,
			Password:               pass,
			AllowedConnectionTypes: map[string]struct{}{jwt.ConnectionTypeInProcess: {}},
		}},
		Cluster: server.ClusterOpts{
			Name:           cfg.Name,
			Host:           host,
			Port:           port,
			Username:       cfg.RouteUser,
			Password:       cfg.RoutePassword,
			ConnectRetries: -1,
		},
		CustomRouterAuthentication: gate,
	}
	if len(routes) == 0 {
		// JetStream's cluster mode wants a configured route: a floor of one
		// host routes to itself, which NATS notices and drops (a route to
		// "" would be retried, and logged, for ever).
		routes = []string{routeURL(cfg, cfg.Listen)}
	}
	opts.Routes = server.RoutesFromStr(strings.Join(routes, ","))
	// Mutual TLS both ways (checkRoutesAuthenticate): a route coming in
	// must present a certificate tls_ca signed (ClientCAs), and a peer
	// this server dials must too, for the address dialed (RootCAs; NATS
	// sets the dialed host as the TLS server name).
	tc, err := tlsConfig(cfg, true)
	if err != nil {
		return nil, "", err
	}
	opts.Cluster.TLSConfig = tc
	opts.Cluster.TLSTimeout = 2
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, "", fmt.Errorf("cluster: NATS server: %w", err)
	}
	fatal := make(chan string, 1)
	ns.SetLoggerV2(natsLog{log: log, refused: refused, fatal: fatal}, false, false, false)
	gate.self = ns.ID()
	ns.Start()
	ready := make(chan bool, 1)
	go func() { ready <- ns.ReadyForConnections(StartTimeout) }()
	var msg string
	select {
	case msg = <-fatal:
		// A listener it could not open (the route port taken): NATS
		// says so once and carries on without it, so the floor would
		// never form. The goroutine waiting for it ends at StartTimeout.
	case ok := <-ready:
		select {
		case msg = <-fatal: // JetStream, say, which Start runs before the listeners
		default:
			if !ok {
				ns.Shutdown()
				return nil, "", fmt.Errorf("cluster: the NATS server did not start within %s (is %s free?)", StartTimeout, cfg.Listen)
			}
			return ns, pass, nil
		}
	}
	ns.Shutdown()
	if rest, ok := strings.CutPrefix(msg, routeListenFailed); ok {
		_, why, _ := strings.Cut(rest, " - ")
		return nil, "", fmt.Errorf("cluster: listen %s: %s", cfg.Listen, why)
	}
	return nil, "", fmt.Errorf("cluster: NATS server: %s", msg)
}

// routeListenFailed begins NATS's fatal line for a route listener it
// could not open ("...: PORT - the listen error").
const routeListenFailed = "Error listening on router port: "

// routeURL is the route to the peer at hostPort, with the floor's route
// credentials when it has them.
func routeURL(cfg *configs.Cluster, hostPort string) string {
	u := url.URL{Scheme: "nats", Host: hostPort}
	if cfg.RouteUser != "" {
		u.User = url.UserPassword(cfg.RouteUser, cfg.RoutePassword)
	}
	return u.String()
}

// tlsConfig builds the TLS settings of cfg: its certificate and, with
// tls_ca, the authorities to trust (required of peers when mutual).
func tlsConfig(cfg *configs.Cluster, mutual bool) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("cluster: tls_cert/tls_key: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if cfg.TLSCA != "" {
		pem, err := os.ReadFile(cfg.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("cluster: tls_ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("cluster: tls_ca %s: no PEM certificate in it", cfg.TLSCA)
		}
		tc.RootCAs = pool
		if mutual {
			tc.ClientCAs = pool
			tc.ClientAuth = tls.RequireAndVerifyClientCert
		}
	}
	return tc, nil
}

// connect opens the office's connection: in-process to ns with the login
// pass startServer made, or to cfg.URL. It reconnects for ever; a publish
// while disconnected fails at once (the item stays in the outbox).
func connect(cfg *configs.Cluster, ns *server.Server, pass string) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name("office " + cfg.Host),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(ReconnectWait),
		nats.RetryOnFailedConnect(true),
		nats.ReconnectBufSize(-1),
	}
	url := cfg.URL
	if ns != nil {
		opts = append(opts, nats.InProcessServer(ns), nats.UserInfo(officeUser, pass))
		url = ""
	} else {
		if cfg.Credentials != "" {
			opts = append(opts, nats.UserCredentials(cfg.Credentials))
		}
		if cfg.TLSCert != "" || cfg.TLSCA != "" {
			tc, err := tlsConfig(cfg, false)
			if err != nil {
				return nil, err
			}
			opts = append(opts, nats.Secure(tc))
		}
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to NATS: %w", err)
	}
	return nc, nil
}
