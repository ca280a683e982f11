package web

// listen.go decides where `office web` listens. Nothing listens unless the
// person runs it; by default only the Unix socket STATE/web.sock (0600 in
// the 0700 state directory), reached through the person's own tunnel
// (`ssh -L 8787:STATE/web.sock HOST`). A loopback literal listens on TCP;
// any other address only over TLS, and says so loudly.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Listening is where the server listens and what Host headers it accepts.
type Listening struct {
	net.Listener
	// Hosts, LoopbackAnyPort and Secure go into Config.
	Hosts           []string
	LoopbackAnyPort bool
	Secure          bool
	// Where says where it listens, for the person ("unix socket PATH",
	// "http://127.0.0.1:8787"); URL is the page's address ("" for the
	// socket: it depends on the tunnel).
	Where, URL string
	// Loud is a warning to print at start ("" none).
	Loud string
	sock string
}

// Close stops listening and removes the socket file.
func (l *Listening) Close() error {
	err := l.Listener.Close()
	if l.sock != "" {
		os.Remove(l.sock)
	}
	return err
}

// ErrBadListen marks a --listen the person must change (exit 2).
var ErrBadListen = errors.New("office web")

// Listen listens on addr ("" the state directory's socket), over TLS with
// certFile and keyFile when given; allowHosts are further Host names
// accepted (with their port, as a browser sends them).
func Listen(stateDir, addr, certFile, keyFile string, allowHosts []string) (*Listening, error) {
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("%w: --tls-cert and --tls-key go together", ErrBadListen)
	}
	if addr == "" {
		if certFile != "" {
			return nil, fmt.Errorf("%w: --tls-cert is for --listen ADDRESS (the Unix socket is reached through your tunnel)", ErrBadListen)
		}
		return listenSocket(stateDir, allowHosts)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: --listen %q: want HOST:PORT (127.0.0.1:8787 or [::1]:8787): %v", ErrBadListen, addr, err)
	}
	ip := net.ParseIP(host)
	loopback := ip != nil && ip.IsLoopback()
	if !loopback && certFile == "" {
		return nil, fmt.Errorf("%w: --listen %q is not a loopback address literal (127.0.0.1 or [::1]): any other address needs --tls-cert and --tls-key", ErrBadListen, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("office web: listen on %s: %w", addr, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	self := net.JoinHostPort(host, port)
	l := &Listening{Listener: ln, Hosts: append([]string{self}, allowHosts...)}
	scheme := "http"
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("%w: --tls-cert %s --tls-key %s: %v", ErrBadListen, certFile, keyFile, err)
		}
		l.Listener = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		l.Secure, scheme = true, "https"
	}
	l.URL = scheme + "://" + self + "/"
	l.Where = l.URL
	if !loopback {
		l.Loud = fmt.Sprintf("office web: LISTENING ON %s, NOT A LOOPBACK ADDRESS, over TLS: whoever reaches it can try; only browsers paired with `office web pair` get in, under the Host names %v", addr, l.Hosts)
	}
	return l, nil
}

func listenSocket(stateDir string, allowHosts []string) (*Listening, error) {
	path := filepath.Join(stateDir, SocketFile)
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("office web: another office web listens on %s already", path)
		}
		os.Remove(path) // left by one that died
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("office web: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("office web: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return &Listening{Listener: ln, Hosts: allowHosts, LoopbackAnyPort: true, Where: "unix socket " + path, sock: path}, nil
}

// Serve serves h on l until ctx ends, then shuts down within a few seconds;
// at most lim.Connections connections are served at once.
func Serve(ctx context.Context, l *Listening, h http.Handler, lim Limits) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10,
		IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(limitConns(l, lim.orDefaults().Connections)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	}
}
