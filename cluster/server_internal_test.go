package cluster

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"office/configs"
	"office/test/testcerts"
	"office/test/testports"
)

// probeEnv names the client URL TestClientPortProbe tries when the test
// binary is run again as another user.
const probeEnv = "OFFICE_TEST_NATS_PROBE"

// testRoutePassword is the route password of the test floors.
const testRoutePassword = "test-floor-route-password"

// soloServer starts an embedded server of a floor of one and the office's
// own connection to it.
func soloServer(t *testing.T) (*server.Server, *nats.Conn, string) {
	t.Helper()
	ca := testcerts.New(t, "floor")
	cert, key := ca.Host(t, "solo")
	cfg := &configs.Cluster{Name: "floor", Host: "solo", Listen: testports.Addr(t), TLSCert: cert, TLSKey: key, TLSCA: ca.CA}
	ns, pass, err := startServer(cfg, t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := connect(cfg, ns, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if !nc.IsConnected() {
		t.Fatalf("the office's in-process connection is %v, want connected", nc.Status())
	}
	return ns, nc, pass
}

// probe tries the client port at url as a stranger would: a stock client
// without a login, the same client with the office's user name and a
// guessed password, and the raw protocol (CONNECT, SUB >, PUB). It returns
// what got through, empty when everything was refused.
func probe(url, pass string) []string {
	var through []string
	if nc, err := nats.Connect(url, nats.NoReconnect()); err == nil {
		nc.Close()
		through = append(through, "a stock client without a login connected")
	}
	if pass != "" {
		if nc, err := nats.Connect(url, nats.NoReconnect(), nats.UserInfo(officeUser, pass)); err == nil {
			nc.Close()
			through = append(through, "a TCP client with the office's own login connected")
		}
	}
	hp := strings.TrimPrefix(url, "nats://")
	c, err := net.DialTimeout("tcp", hp, 2*time.Second)
	if err != nil {
		return append(through, "dial: "+err.Error())
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "INFO ") {
		return append(through, fmt.Sprintf("no INFO from the server: %q %v", line, err))
	}
	fmt.Fprint(c, "CONNECT {\"verbose\":false,\"pedantic\":false}\r\nSUB > 1\r\nPUB office.in.solo.x 5\r\nhello\r\nPING\r\n")
	rest, _ := io.ReadAll(r)
	if !strings.Contains(string(rest), "Authorization Violation") {
		through = append(through, fmt.Sprintf("the raw protocol was not refused: %q", rest))
	}
	if strings.Contains(string(rest), "PONG") || strings.Contains(string(rest), "MSG ") {
		through = append(through, fmt.Sprintf("the raw protocol was served: %q", rest))
	}
	return through
}

// TestClientPortTakesNoOne: the embedded server's client listener (which
// NATS needs for its routes) refuses every TCP client, of this uid, with or
// without the office's login, while the office's in-process connection
// works; nothing a refused client published reaches a subscriber.
func TestClientPortTakesNoOne(t *testing.T) {
	t.Parallel()
	ns, nc, pass := soloServer(t)
	sub, err := nc.SubscribeSync("office.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if through := probe(ns.ClientURL(), pass); len(through) > 0 {
		t.Fatalf("the client port let a stranger in: %s", strings.Join(through, "; "))
	}
	if err := nc.Publish("office.marker", []byte("m")); err != nil {
		t.Fatal(err)
	}
	msg, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Subject != "office.marker" {
		t.Fatalf("the office's subscriber got %s %q before its own marker: a refused client's publish got through", msg.Subject, msg.Data)
	}
}

// TestClientPortRefusesAnotherUser runs the probe as uid 65534 (nobody):
// the test binary again, with the client URL in its environment. It needs
// root to change its uid.
func TestClientPortRefusesAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a client as another uid needs root")
	}
	t.Parallel()
	ns, _, _ := soloServer(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy nobody can run: the build's own directory is private.
	dir, err := os.MkdirTemp("", "office-probe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestClientPortProbe$", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{probeEnv + "=" + ns.ClientURL(), "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the probe as uid 65534: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "probe: refused as uid 65534") {
		t.Fatalf("the probe did not run as uid 65534:\n%s", out)
	}
}

// TestClientPortProbe is the probe TestClientPortRefusesAnotherUser runs as
// another user; run on its own it has nothing to probe.
func TestClientPortProbe(t *testing.T) {
	url := os.Getenv(probeEnv)
	if url == "" {
		t.Skip("run by TestClientPortRefusesAnotherUser as another user")
	}
	if through := probe(url, ""); len(through) > 0 {
		t.Fatalf("uid %d got in: %s", os.Getuid(), strings.Join(through, "; "))
	}
	fmt.Printf("probe: refused as uid %d\n", os.Getuid())
}

// TestTakenRoutePortFailsWithTheReason: a floor whose listen address
// another program holds starts no server, and the error names the address
// and the kernel's reason (not only that the server did not start): NATS
// logs a route listener it could not open and carries on without it.
func TestTakenRoutePortFailsWithTheReason(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	ca := testcerts.New(t, "floor")
	cert, key := ca.Host(t, "solo")
	cfg := &configs.Cluster{Name: "floor", Host: "solo", Listen: held.Addr().String(), TLSCert: cert, TLSKey: key, TLSCA: ca.CA}
	ns, _, err := startServer(cfg, t.TempDir(), slog.New(slog.DiscardHandler))
	if err == nil {
		ns.Shutdown()
		t.Fatalf("a server started on %s, which another listener holds", cfg.Listen)
	}
	if msg := err.Error(); !strings.Contains(msg, "address already in use") || !strings.Contains(msg, cfg.Listen) {
		t.Errorf("err = %v, want it to name %s and say it is in use", err, cfg.Listen)
	}
}
