package e2e

// A route cut between two running office servers of one floor: each
// reaches the other only through a TCP proxy of this test, which the test
// severs and restores while both servers keep running.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"office/test/testcerts"
	"office/test/testports"
)

// tcpProxy forwards the connections it accepts on addr to target. Cut
// closes its listener and every connection; Restore listens on addr again.
type tcpProxy struct {
	t      testing.TB
	addr   string
	target string

	mu    sync.Mutex
	ln    net.Listener      // nil while cut
	conns map[net.Conn]bool // open connections, both sides
}

// newProxy listens on a free port of 127.0.0.1 (testports': Restore
// binds it again after a cut) and forwards to target.
func newProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{t: t, target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", testports.Addr(t))
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.Cut)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
}

// pipe copies between c and a new connection to the target until either
// closes (or Cut closes both).
func (p *tcpProxy) pipe(c net.Conn) {
	up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut while dialling
		p.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	cp := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		dst.Close()
		src.Close()
	}
	go cp(up, c)
	go cp(c, up)
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// Cut stops forwarding: new connections are refused, open ones closed.
func (p *tcpProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// Restore forwards again, on the same address.
func (p *tcpProxy) Restore() {
	p.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the port was ours a moment ago; its old socket may linger
		if ln, err = net.Listen("tcp", p.addr); err == nil || !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("proxy %s: listen again: %v", p.addr, err)
	}
	p.serve(ln)
}

// joinFloorVia is joinFloor where each office reaches each other one only
// through a proxy to its listen address; it returns the proxies.
func joinFloorVia(t testing.TB, offices []*office, hosts []string) []*tcpProxy {
	t.Helper()
	ports := make([]int, len(offices))
	proxies := make([]*tcpProxy, len(offices))
	for i := range offices {
		ports[i] = testports.Port(t)
		proxies[i] = newProxy(t, fmt.Sprintf("127.0.0.1:%d", ports[i]))
	}
	ca := testcerts.New(t, "floor")
	for i, o := range offices {
		var peers []string
		for j := range offices {
			if j != i {
				peers = append(peers, fmt.Sprintf("%q", proxies[j].addr))
			}
		}
		appendTo(t, o.config, fmt.Sprintf("\n[cluster]\nname = \"floor\"\nhost = %q\nlisten = \"127.0.0.1:%d\"\npeers = [%s]\n%s",
			hosts[i], ports[i], strings.Join(peers, ", "), ca.TOML(t, hosts[i])))
	}
	return proxies
}

// hostRow returns host's row of the host table of `office status` on o:
// whether o reaches it and how many items wait for it; ok is false when
// the table has no row for it.
func (o *office) hostRow(host string) (reachable bool, outbox int, ok bool) {
	o.t.Helper()
	out, _, code := o.run("", "status")
	if code != 0 {
		return false, 0, false
	}
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != host || (f[1] != "reachable" && f[1] != "unreachable") {
			continue
		}
		n, err := strconv.Atoi(f[len(f)-1])
		if err != nil {
			o.t.Fatalf("status: host %s's outbox %q is no number:\n%s", host, f[len(f)-1], out)
		}
		return f[1] == "reachable", n, true
	}
	return false, 0, false
}

// running reports whether o's `office serve` is still running.
func (o *office) running() bool {
	select {
	case <-o.served:
		return false
	default:
		return o.serve != nil
	}
}

// The route between a and b is cut while both servers run: each shows the
// other unreachable with the items waiting for it; sends and mails made in
// both directions during the cut wait, and arrive exactly once after the
// route is back.
func TestClusterRouteCut(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS and a route cut of about 10 s (about 40 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "alice", args: []string{"--busy", "100ms"}})
	b := newTeamOffice(t, teamAgent{name: "bob", args: []string{"--busy", "100ms"}})
	proxies := joinFloorVia(t, []*office{a, b}, []string{"a", "b"})
	a.startServe()
	b.startServe()
	for _, w := range []struct {
		o     *office
		agent string
	}{{a, "bob"}, {b, "alice"}} {
		w.o.waitFor(30*time.Second, "the floor's roster lists "+w.agent, func() bool {
			out, _, code := w.o.run("", "team")
			return code == 0 && strings.Contains(out, w.agent+" ")
		})
	}
	a.must("send", "bob", "before the cut")
	b.waitFor(30*time.Second, "the first send typed into bob", func() bool { return b.promptWith("bob", "before the cut") })

	for _, p := range proxies {
		p.Cut()
	}
	for _, w := range []struct {
		o     *office
		other string
	}{{a, "b"}, {b, "a"}} {
		w.o.waitFor(30*time.Second, "host "+w.other+" unreachable", func() bool {
			reachable, _, ok := w.o.hostRow(w.other)
			return ok && !reachable
		})
	}
	for i := range 5 {
		_, errOut, code := a.run("", "send", "bob", fmt.Sprintf("cut send %d", i))
		if code != 0 || !strings.Contains(errOut, "stored") {
			t.Fatalf("send during the cut: exit %d %q", code, errOut)
		}
		a.mustAs("alice", "mail", "send", "--to", "bob", "--title", fmt.Sprintf("cut a%d", i), fmt.Sprintf("mail a%d", i))
		b.mustAs("bob", "mail", "send", "--to", "alice", "--title", fmt.Sprintf("cut b%d", i), fmt.Sprintf("mail b%d", i))
	}
	a.waitFor(20*time.Second, "a's status shows b unreachable with 10 items waiting", func() bool {
		reachable, n, ok := a.hostRow("b")
		return ok && !reachable && n == 10
	})
	b.waitFor(20*time.Second, "b's status shows a unreachable with 5 items waiting", func() bool {
		reachable, n, ok := b.hostRow("a")
		return ok && !reachable && n == 5
	})
	if n := len(b.mailTo("bob")); n != 0 {
		t.Fatalf("%d mails reached b during the cut", n)
	}
	if !a.running() || !b.running() {
		t.Fatal("a server stopped during the cut; only the route was to go")
	}

	for _, p := range proxies {
		p.Restore()
	}
	b.waitFor(60*time.Second, "the mails from a on b", func() bool { return len(b.mailTo("bob")) == 5 })
	a.waitFor(60*time.Second, "the mails from b on a", func() bool { return len(a.mailTo("alice")) == 5 })
	b.waitFor(60*time.Second, "the sends typed into bob", func() bool { return b.promptWith("bob", "cut send 4") })
	for _, w := range []struct {
		o     *office
		other string
	}{{a, "b"}, {b, "a"}} {
		w.o.waitFor(30*time.Second, "host "+w.other+" reachable again, nothing waiting", func() bool {
			reachable, n, ok := w.o.hostRow(w.other)
			return ok && reachable && n == 0
		})
	}
	for _, w := range []struct {
		o     *office
		agent string
	}{{b, "bob"}, {a, "alice"}} {
		for title, n := range w.o.mailTo(w.agent) {
			if n != 1 {
				t.Errorf("mail %s is on %s's host %d times", title, w.agent, n)
			}
		}
	}
	for i := range 5 {
		if n := b.count("bob", fmt.Sprintf("cut send %d", i)); n != 1 {
			t.Errorf("cut send %d reached bob %d times, want once", i, n)
		}
	}
}
