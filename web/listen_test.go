package web

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestListenDefaultsToThePrivateSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := Listen(dir, "", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, SocketFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v: want a 0600 socket", fi, err)
	}
	if !l.LoopbackAnyPort || l.Secure {
		t.Fatalf("%+v", l)
	}
	if _, err := Listen(dir, "", "", "", nil); err == nil {
		t.Fatal("a second office web on the same socket: no error")
	}
	l.Close()
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("socket left after Close: %v", err)
	}
}

func TestListenLoopbackOnlyWithoutTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, a := range []string{"127.0.0.1:0", "[::1]:0"} {
		l, err := Listen(dir, a, "", "", nil)
		if err != nil {
			if a == "[::1]:0" {
				t.Logf("no IPv6 loopback here: %v", err)
				continue
			}
			t.Fatal(err)
		}
		_, port, _ := net.SplitHostPort(l.Addr().String())
		host, _, _ := net.SplitHostPort(a)
		if len(l.Hosts) != 1 || l.Hosts[0] != net.JoinHostPort(host, port) || l.Loud != "" {
			t.Errorf("%s: hosts %v loud %q", a, l.Hosts, l.Loud)
		}
		l.Close()
	}
	for _, a := range []string{"0.0.0.0:0", "192.0.2.1:8787", "localhost:0", "8787", ":8787"} {
		if l, err := Listen(dir, a, "", "", nil); !errors.Is(err, ErrBadListen) {
			if l != nil {
				l.Close()
			}
			t.Errorf("--listen %s without TLS: %v, want ErrBadListen", a, err)
		}
	}
	if _, err := Listen(dir, "127.0.0.1:0", "cert.pem", "", nil); !errors.Is(err, ErrBadListen) {
		t.Errorf("--tls-cert without --tls-key: %v", err)
	}
}

// selfSigned writes a throwaway certificate and key for 127.0.0.1.
func selfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "office test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"office.example"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile
}

func TestListenAnyAddressOnlyOverTLSAndLoudly(t *testing.T) {
	t.Parallel()
	cert, key := selfSigned(t)
	l, err := Listen(t.TempDir(), "0.0.0.0:0", cert, key, []string{"office.example:8443"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !l.Secure || !strings.Contains(l.Loud, "NOT A LOOPBACK ADDRESS") || !strings.HasPrefix(l.URL, "https://") {
		t.Fatalf("%+v: want TLS, a loud warning, an https URL", l)
	}
	if len(l.Hosts) != 2 || l.Hosts[1] != "office.example:8443" || l.LoopbackAnyPort {
		t.Fatalf("hosts %v (any port %v)", l.Hosts, l.LoopbackAnyPort)
	}
	// It speaks TLS.
	_, port, _ := net.SplitHostPort(l.Addr().String())
	go func() {
		if c, err := l.Accept(); err == nil {
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	c, err := tls.Dial("tcp", "127.0.0.1:"+port, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("TLS handshake: %v", err)
	}
	c.Close()
	if _, err := Listen(t.TempDir(), "0.0.0.0:0", cert, filepath.Join(t.TempDir(), "none.pem"), nil); !errors.Is(err, ErrBadListen) {
		t.Fatalf("a missing key file: %v, want ErrBadListen", err)
	}
}
