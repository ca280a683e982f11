package cluster

// server.go runs the embedded NATS server (JetStream on, its store inside the
// state directory, routes to the peers) and makes the connection to it, or
// to an existing NATS when the office file gives url.

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"office/configs"
)

// Timings of the connection to NATS.
const (
	// StartTimeout is how long the embedded server may take to be ready for
	// connections.
	StartTimeout = 10 * time.Second
	// ReconnectWait is the pause between two attempts to reach NATS again.
	ReconnectWait = 250 * time.Millisecond
	// RouteRetry is how often the embedded server tries a peer that is down
	// again (NATS's own default is 1 s).
	RouteRetry = time.Second
)

// tagOf is the server tag that places a host's streams on its own server.
func tagOf(host string) string { return "office-host:" + host }

// storeDir is where the embedded server keeps JetStream's files.
func storeDir(stateDir string) string { return filepath.Join(stateDir, "cluster", "jetstream") }

// startServer starts the embedded NATS server of cfg: its client port on
// 127.0.0.1 only (the office connects in-process), routes on cfg.Listen to cfg.Peers, JetStream
// in stateDir. Messages are fsynced on every write (SyncAlways): the stream
// of one host has one copy, so its disk is what holds an accepted item.
func startServer(cfg *configs.Cluster, stateDir string) (*server.Server, error) {
	host, portStr, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("cluster: listen %q: %w", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("cluster: listen %q: bad port", cfg.Listen)
	}
	dir := storeDir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	routes := make([]string, len(cfg.Peers))
	for i, p := range cfg.Peers {
		routes[i] = "nats://" + p
	}
	if cfg.RouteUser != "" {
		for i, p := range cfg.Peers {
			routes[i] = "nats://" + cfg.RouteUser + ":" + cfg.RoutePassword + "@" + p
		}
	}
	opts := &server.Options{
		ServerName: cfg.Host,
		// The client port is loopback only, on a port of the kernel's
		// choice: the office connects in-process, but NATS starts its routes
		// only once a client listener is up (DontListen would stop them).
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		NoSigs:     true,
		NoLog:      true,
		JetStream:  true,
		StoreDir:   dir,
		SyncAlways: true,
		MaxPayload: MaxPayload,
		Tags:       []string{tagOf(cfg.Host)},
		Cluster: server.ClusterOpts{
			Name:           cfg.Name,
			Host:           host,
			Port:           port,
			Username:       cfg.RouteUser,
			Password:       cfg.RoutePassword,
			ConnectRetries: -1,
		},
		Routes: server.RoutesFromStr(strings.Join(routes, ",")),
	}
	if cfg.TLSCert != "" {
		tc, err := tlsConfig(cfg, true)
		if err != nil {
			return nil, err
		}
		opts.Cluster.TLSConfig = tc
		opts.Cluster.TLSTimeout = 2
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: NATS server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(StartTimeout) {
		ns.Shutdown()
		return nil, fmt.Errorf("cluster: the NATS server did not start within %s (is %s free?)", StartTimeout, cfg.Listen)
	}
	return ns, nil
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

// connect opens the office's connection: in-process to ns, or to cfg.URL.
// It reconnects for ever; a publish while disconnected fails at once (the
// item stays in the outbox).
func connect(cfg *configs.Cluster, ns *server.Server) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name("office " + cfg.Host),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(ReconnectWait),
		nats.RetryOnFailedConnect(true),
		nats.ReconnectBufSize(-1),
	}
	url := cfg.URL
	if ns != nil {
		opts = append(opts, nats.InProcessServer(ns))
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
