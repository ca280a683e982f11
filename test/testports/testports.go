// Package testports hands the tests the TCP ports they give an office to
// bind (a floor's listen address, a proxy's), so that no two tests, in
// this process or in another test process of the machine, bind the same
// one.
//
// Asking the kernel for a free port (listening on ":0" and closing) is
// not enough: the port is free again the moment it is closed, and it is
// one of the kernel's ephemeral range, which every outgoing connection of
// the machine draws from. One did take such a port between a test's pick
// and the office's bind (CI, 2026-12-03: the route listener's "address
// already in use"). The ports here come from just below that range, which
// only explicit binds use, and each is held by a lock file (flock) from
// the pick until the test ends, so other test processes skip it.
package testports

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// span is how many ports below the ephemeral range Port may hand out.
const span = 4000

// defaultLow is the ephemeral range's low end where the kernel does not
// say (Linux's default).
const defaultLow = 32768

// Addr is Port as "127.0.0.1:PORT".
func Addr(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", Port(t))
}

// Port returns a TCP port of 127.0.0.1 that is free now and reserved for
// t until it ends: no other caller of Port, in any test process of this
// user, is handed it meanwhile. It fails t when every port of the span is
// taken.
func Port(t testing.TB) int {
	t.Helper()
	low, err := ephemeralLow()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), "office-test-ports-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatalf("testports: %v", err)
	}
	for port := low - 1; port >= low-span; port-- {
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatalf("testports: %v", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close() // another test holds it (EWOULDBLOCK)
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			f.Close() // another program's
			continue
		}
		ln.Close()
		t.Cleanup(func() { f.Close() }) // closing the file drops the lock
		return port
	}
	t.Fatalf("testports: no free port in the %d below %d", span, low)
	return 0
}

// ephemeralLow is the low end of the kernel's ephemeral port range.
func ephemeralLow() (int, error) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return defaultLow, nil // not Linux, or no /proc: the usual default
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, fmt.Errorf("testports: ip_local_port_range %q is not two numbers", b)
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low <= span+1024 {
		return 0, fmt.Errorf("testports: ip_local_port_range's low end %q leaves no room below it", f[0])
	}
	return low, nil
}
