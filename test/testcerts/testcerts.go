// Package testcerts makes the certificates of a test floor: an authority
// and, per host, a certificate it signed for 127.0.0.1 and localhost, for
// both server and client use (each host is both on its routes), as
// docs/cluster.md's recipe makes them. Keys are ECDSA P-256, certificates
// live an hour, files are written 0600 into the test's temporary directory.
package testcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Lifetime is how long a test certificate is valid (from a minute ago).
const Lifetime = time.Hour

// Authority is a floor's certificate authority.
type Authority struct {
	// Dir is where its files are written.
	Dir string
	// CA is the PEM file of the authority's certificate (the floor's
	// tls_ca).
	CA   string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// New makes an authority named name (its CN) in a new temporary directory.
func New(t testing.TB, name string) *Authority {
	t.Helper()
	a := &Authority{Dir: t.TempDir()}
	key := newKey(t)
	tmpl := template(name)
	tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if a.cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	a.key = key
	a.CA = filepath.Join(a.Dir, name+"-ca.pem")
	write(t, a.CA, "CERTIFICATE", der)
	return a
}

// Host makes a certificate the authority signed for host (its CN), naming
// 127.0.0.1, ::1 and localhost, and returns its PEM certificate and key
// files (the host's tls_cert and tls_key).
func (a *Authority) Host(t testing.TB, host string) (certFile, keyFile string) {
	t.Helper()
	key := newKey(t)
	tmpl := template(host)
	tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	tmpl.DNSNames = []string{"localhost"}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(a.Dir, host+".pem"), filepath.Join(a.Dir, host+".key")
	write(t, certFile, "CERTIFICATE", der)
	write(t, keyFile, "EC PRIVATE KEY", kder)
	return certFile, keyFile
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func template(cn string) *x509.Certificate {
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(Lifetime),
	}
}

func write(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TOML makes host's certificate and returns the [cluster] keys that use
// it: tls_cert, tls_key and tls_ca, one a line.
func (a *Authority) TOML(t testing.TB, host string) string {
	t.Helper()
	cert, key := a.Host(t, host)
	return "tls_cert = " + strconv.Quote(cert) + "\ntls_key = " + strconv.Quote(key) + "\ntls_ca = " + strconv.Quote(a.CA) + "\n"
}
