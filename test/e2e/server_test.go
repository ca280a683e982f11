package e2e

// server_test.go drives the office server as its clients do: the real
// binary serving, the real client socket, the client library and raw wire
// frames.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/client"
	"office/pool"
	"office/wire"
)

// addAgent appends an [[agent]] with a command (profile custom unless given).
func (o *office) addAgent(name, profile string, argv ...string) {
	o.t.Helper()
	q := make([]string, len(argv))
	for i, s := range argv {
		q[i] = fmt.Sprintf("%q", s)
	}
	p := ""
	if profile != "" {
		p = fmt.Sprintf("profile = %q\n", profile)
	}
	f, err := os.OpenFile(o.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		o.t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "[[agent]]\nname = %q\n%scommand = [%s]\n\n", name, p, strings.Join(q, ", "))
}

// tickerArgv prints a counter every interval.
func tickerArgv(interval string) []string {
	return []string{"bash", "--norc", "-c", "i=0; while :; do i=$((i+1)); echo tick $i; sleep " + interval + "; done"}
}

// dial attaches a client to the office's server.
func (o *office) dial(opts client.Options) *client.Conn {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Local(o.state), opts)
	if err != nil {
		o.t.Fatalf("attach: %v", err)
	}
	o.t.Cleanup(func() { c.Close() })
	return c
}

// screenText returns the client's copy of agent's screen as text.
func screenText(c *client.Conn, agent string) string {
	var s pool.Snapshot
	if !c.Screen(agent, &s) {
		return ""
	}
	return s.Text()
}

// waitScreen waits until the client's copy of agent's screen satisfies cond.
func (o *office) waitScreen(c *client.Conn, agent, what string, cond func(string) bool) string {
	o.t.Helper()
	var text string
	o.waitFor(15*time.Second, agent+"'s screen in the client: "+what, func() bool {
		text = screenText(c, agent)
		return cond(text)
	})
	return text
}

// lastTick returns the highest "tick N" on a screen text.
func lastTick(text string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		var k int
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "tick %d", &k); err == nil && k > n {
			n = k
		}
	}
	return n
}

// rawConn is a wire connection without the client library.
type rawConn struct {
	c net.Conn
	r *wire.Reader
	w *wire.Writer
}

func (o *office) rawDial() *rawConn {
	o.t.Helper()
	c, err := net.Dial("unix", filepath.Join(o.state, wire.SocketFile))
	if err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(func() { c.Close() })
	return &rawConn{c: c, r: wire.NewReader(c, wire.MaxServerFrame), w: wire.NewWriter(c)}
}

func (rc *rawConn) send(t testing.TB, m any) {
	t.Helper()
	if err := rc.w.Write(m); err != nil {
		t.Fatal(err)
	}
	if err := rc.w.Flush(); err != nil {
		t.Fatal(err)
	}
}

func (rc *rawConn) next(t testing.TB) (string, []byte) {
	t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(15 * time.Second))
	typ, p, err := rc.r.Next()
	if err != nil {
		t.Fatalf("read frame: %v", err)
	}
	return typ, append([]byte(nil), p...)
}

func TestServerHandshakeAndVersionRefusal(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	o.startServe()

	c := o.dial(client.Options{Client: "test"})
	w := c.Welcome()
	if w.Version != wire.Version || w.Pid != o.serve.Process.Pid || w.State != o.state {
		t.Fatalf("welcome = %+v, want version %d, pid %d, state %s", w, wire.Version, o.serve.Process.Pid, o.state)
	}

	rc := o.rawDial()
	h := wire.NewHello("old office")
	h.Version = wire.Version + 1
	rc.send(t, h)
	typ, p := rc.next(t)
	var rf wire.Refused
	if typ != wire.TRefused || wire.Decode(p, &rf) != nil {
		t.Fatalf("answer to another version: %q %s", typ, p)
	}
	for _, want := range []string{fmt.Sprintf("protocol %d", wire.Version), fmt.Sprintf("speaks %d", wire.Version+1), "office stop", "office start"} {
		if !strings.Contains(rf.Reason, want) {
			t.Errorf("refusal %q does not say %q", rf.Reason, want)
		}
	}
	if _, _, err := rc.r.Next(); err == nil {
		t.Fatal("connection still open after the refusal")
	}

	rc = o.rawDial()
	rc.send(t, wire.Input{T: wire.TInput, Agent: "a", Data: []byte("x")})
	if typ, p := rc.next(t); typ != wire.TRefused || !strings.Contains(string(p), "hello") {
		t.Fatalf("answer to a first message that is not hello: %q %s", typ, p)
	}
	// The agent got nothing from the refused connection.
	if o.draft("a") {
		t.Fatal("a refused connection typed into the agent")
	}
}

func TestServerSnapshotThenChangedRows(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	o.addAgent("tick", "", tickerArgv("0.2")...)
	o.startServeUntil("the ticker ticks", func() bool {
		st, ok := o.status()
		return ok && len(st) == 2 && st[0].Status == "idle"
	})

	rc := o.rawDial()
	h := wire.NewHello("raw")
	h.Screens = true
	rc.send(t, h)
	want := []string{wire.TWelcome, wire.TRoster, wire.TState}
	for _, w := range want {
		if typ, p := rc.next(t); typ != w {
			t.Fatalf("got %q (%s), want %q first", typ, p, w)
		}
	}
	full := map[string]bool{}
	updates := 0
	for updates < 5 {
		typ, p := rc.next(t)
		if typ != wire.TScreen {
			continue
		}
		var s wire.Screen
		if err := wire.Decode(p, &s); err != nil {
			t.Fatal(err)
		}
		if !full[s.Agent] {
			if !s.Full || s.Cols != 120 || s.Rows != 40 {
				t.Fatalf("first screen of %s: full %v %dx%d, want a full 120x40 snapshot", s.Agent, s.Full, s.Cols, s.Rows)
			}
			full[s.Agent] = true
			continue
		}
		if s.Full {
			t.Fatalf("second screen of %s is full again", s.Agent)
		}
		if s.Agent == "tick" {
			updates++
			if len(s.Lines) > 3 {
				t.Fatalf("a tick sent %d rows, want the changed ones only: %s", len(s.Lines), p)
			}
		}
	}
	if !full["a"] || !full["tick"] {
		t.Fatalf("full snapshots of %v, want both agents", full)
	}

	c := o.dial(client.Options{Client: "test", Screens: true})
	text := o.waitScreen(c, "a", "the fake agent's prompt", func(s string) bool { return strings.Contains(s, "? for shortcuts") })
	if !strings.Contains(text, "❯") {
		t.Fatalf("client screen of a has no prompt:\n%s", text)
	}
	first := lastTick(o.waitScreen(c, "tick", "a tick", func(s string) bool { return lastTick(s) > 0 }))
	o.waitScreen(c, "tick", "the counter moving on", func(s string) bool { return lastTick(s) >= first+3 })
}

func TestServerTwoClientsKeepTheirOwnSizesAndShareTheDraft(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	o.addAgent("tick", "", tickerArgv("0.2")...)
	o.startServeUntil("a idle", func() bool {
		st, ok := o.status()
		return ok && len(st) == 2 && st[0].Status == "idle"
	})
	c1 := o.dial(client.Options{Client: "one", Screens: true})
	c2 := o.dial(client.Options{Client: "two", Screens: true})

	// The most recently active client decides each agent's size.
	if err := c1.SetView("a", map[string]wire.Size{"a": {Cols: 100, Rows: 30}, "tick": {Cols: 50, Rows: 10}}, true); err != nil {
		t.Fatal(err)
	}
	o.uiWaitSize("a", 100, 30)
	if err := c2.SetView("tick", map[string]wire.Size{"a": {Cols: 70, Rows: 20}, "tick": {Cols: 60, Rows: 12}}, true); err != nil {
		t.Fatal(err)
	}
	o.uiWaitSize("a", 70, 20)
	for _, c := range []*client.Conn{c1, c2} {
		o.waitFor(10*time.Second, "both clients see a at 70x20", func() bool {
			var s pool.Snapshot
			return c.Screen("a", &s) && s.Cols == 70 && s.Rows == 20
		})
	}
	// Keys from client one make it the latest: its sizes win again.
	if err := c1.Input("a", []byte("my draft")); err != nil {
		t.Fatal(err)
	}
	o.uiWaitSize("a", 100, 30)
	// The draft typed in client one is the server's: a message waits for it,
	// both clients show it, and clearing it from client two delivers.
	o.waitFor(10*time.Second, "a has a draft", func() bool { return o.draft("a") })
	for _, c := range []*client.Conn{c1, c2} {
		o.waitScreen(c, "a", "the draft", func(s string) bool { return strings.Contains(s, "my draft") })
	}
	id := o.send("a", "from the queue")
	o.waitFor(10*time.Second, "the message held by the draft", o.heldAs("a", "your draft"))
	if err := c2.Input("a", []byte{0x15}); err != nil { // Ctrl-U
		t.Fatal(err)
	}
	if _, errOut, code := o.run("", "wait", "a", "--until", "delivered:"+id, "--timeout", "20s"); code != 0 {
		t.Fatalf("wait delivered: exit %d: %s", code, errOut)
	}
	for _, c := range []*client.Conn{c1, c2} {
		o.waitScreen(c, "a", "the message's echo", func(s string) bool { return strings.Contains(s, "from the queue") })
	}
	if got := o.prompts("a"); len(got) != 1 || got[0] != "from the queue" {
		t.Fatalf("prompts = %q, want exactly the queued message", got)
	}
	// Client two's Ctrl-U made it the latest: a is back at its size. Every
	// resize the agent saw is one of these changes, none repeated.
	o.uiWaitSize("a", 70, 20)
	var sizes []string
	for _, e := range o.log("a") {
		if e.Event == "resize" {
			sizes = append(sizes, fmt.Sprintf("%dx%d", e.Cols, e.Rows))
		}
	}
	if got := strings.Join(sizes, " "); got != "100x30 70x20 100x30 70x20" {
		t.Fatalf("resizes %s, want 100x30 70x20 100x30 70x20", got)
	}
}

func TestServerStalledClientSlowsNobody(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: floods a pane for seconds (CPU-heavy on a shared machine)")
	}
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	// A busy pane: a full screen of new lines every 20 ms.
	o.addAgent("flood", "", "bash", "--norc", "-c", "i=0; while :; do i=$((i+1)); seq -f \"flood $i %g $(printf '%0100d' 0)\" 1 40; sleep 0.02; done")
	o.addAgent("tick", "", tickerArgv("0.1")...)
	o.startServeUntil("a idle", func() bool {
		st, ok := o.status()
		return ok && len(st) == 3 && st[0].Status == "idle"
	})
	// A client that attaches and never reads again.
	stalled := o.rawDial()
	h := wire.NewHello("stalled")
	h.Screens = true
	stalled.send(t, h)
	if uc, ok := stalled.c.(*net.UnixConn); ok {
		_ = uc.SetReadBuffer(4096)
	}
	c := o.dial(client.Options{Client: "live", Screens: true})
	first := lastTick(o.waitScreen(c, "tick", "a tick", func(s string) bool { return lastTick(s) > 0 }))
	// Give the flood time to fill the stalled client's socket.
	o.waitScreen(c, "tick", "ten more ticks", func(s string) bool { return lastTick(s) >= first+10 })
	start := time.Now()
	id := o.send("a", "through the stall")
	if _, errOut, code := o.run("", "wait", "a", "--until", "delivered:"+id, "--timeout", "20s"); code != 0 {
		t.Fatalf("wait delivered with a stalled client: exit %d: %s", code, errOut)
	}
	t.Logf("delivered %v after the send with a stalled client attached", time.Since(start))
	now := lastTick(screenText(c, "tick"))
	o.waitScreen(c, "tick", "the live client still following", func(s string) bool { return lastTick(s) >= now+5 })
	// The stalled client really was stalled: the server had filled its
	// socket and was holding the rest.
	n := 0
	buf := make([]byte, 64<<10)
	for {
		_ = stalled.c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		k, err := stalled.c.Read(buf)
		n += k
		if err != nil {
			break
		}
		if n > 1<<20 {
			break
		}
	}
	if n < 64<<10 {
		t.Fatalf("only %d bytes were waiting for the stalled client: it was never stalled", n)
	}
	t.Logf("%d bytes were waiting in the stalled client's socket", n)
}

// eventClients counts the `office events` connections the server logged.
func (o *office) eventClients() int {
	b, _ := os.ReadFile(filepath.Join(o.state, "office.log"))
	return strings.Count(string(b), `program="office events"`)
}

// waitEventClient waits until the server has logged more than before
// `office events` attachments: the stream is up.
func (o *office) waitEventClient(before int) {
	o.t.Helper()
	o.waitFor(20*time.Second, "office events attached", func() bool { return o.eventClients() > before })
}

// eventLines runs `office events --json ARGS` and returns its decoded lines
// on a channel (closed when it ends) and a stop function.
func (o *office) eventLines(args ...string) (<-chan wire.Event, func()) {
	o.t.Helper()
	before := o.eventClients()
	cmd := exec.Command(officeBin, append([]string{"events", "--json", "--state", o.state}, args...)...)
	cmd.Env = o.env()
	out, err := cmd.StdoutPipe()
	if err != nil {
		o.t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		o.t.Fatal(err)
	}
	ch := decodeEvents(o.t, out)
	o.waitEventClient(before)
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	o.t.Cleanup(stop)
	return ch, stop
}

// decodeEvents decodes `office events --json` lines from r onto a channel,
// closed at the end of r.
func decodeEvents(t testing.TB, r io.Reader) <-chan wire.Event {
	ch := make(chan wire.Event, 1024)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var ev wire.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("events --json printed a line that is not JSON: %q", sc.Text())
				continue
			}
			ch <- ev
		}
	}()
	return ch
}

// expectEvents reads events until each matcher has matched one, in any
// order (events of the store's log and live ones interleave).
func expectEvents(t *testing.T, ch <-chan wire.Event, want map[string]func(wire.Event) bool) {
	t.Helper()
	left := maps.Clone(want)
	timeout := time.After(20 * time.Second)
	for len(left) > 0 {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("event stream ended; still missing %v", slices.Collect(maps.Keys(left)))
			}
			for name, m := range left {
				if m(ev) {
					delete(left, name)
				}
			}
		case <-timeout:
			t.Fatalf("events %v missing after 20s", slices.Collect(maps.Keys(left)))
		}
	}
}

// expectEvent reads events until one matches.
func expectEvent(t *testing.T, ch <-chan wire.Event, what string, match func(wire.Event) bool) wire.Event {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("event stream ended before %s", what)
			}
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("no event %s within 20s", what)
		}
	}
}

func TestEventsJSONAndWait(t *testing.T) {
	t.Parallel()
	o := newOffice(t, agentSpec{name: "a"})
	o.addAgent("sh", "shell", "bash", "--norc", "--noprofile")
	o.startServe()
	// What happened while no client was attached is not news to a stream
	// that starts from now.
	old := o.send("a", "before any client")
	o.waitFor(20*time.Second, "the first message delivered", func() bool { return len(o.prompts("a")) == 1 })
	o.waitFor(20*time.Second, "the first message off the queue", func() bool { return len(o.queue()) == 0 })
	var msgID, oldID int64
	fmt.Sscan(old, &oldID)
	// The first message's turn ends when the agent's hook says so, which can
	// come after it left the queue: read the stored events from the start
	// until that end, so the stream from now starts after everything of it.
	past, stopPast := o.eventLines("a", "--since", "0")
	expectEvent(t, past, "the first message's turn ended", func(e wire.Event) bool {
		return e.Type == wire.EventTurn && e.Kind == wire.TurnEnded && e.MsgID == oldID
	})
	stopPast()

	evs, _ := o.eventLines("a")
	id := o.send("a", "hello events")
	fmt.Sscan(id, &msgID)
	expectEvents(t, evs, map[string]func(wire.Event) bool{
		"nothing of the first message": func(e wire.Event) bool {
			if e.MsgID == oldID {
				t.Fatalf("a stream from now got an event of the message before it: %+v", e)
			}
			return true
		},
		"enqueued": func(e wire.Event) bool {
			return e.Type == wire.EventQueue && e.Kind == "enqueued" && e.MsgID == msgID && e.Seq > 0 && !e.At.IsZero()
		},
		"typing": func(e wire.Event) bool {
			return e.Type == wire.EventDelivery && e.State == wire.DeliveryTyping && e.MsgID == msgID
		},
		"busy": func(e wire.Event) bool { return e.Type == wire.EventStatus && e.Status == "busy" && e.Agent == "a" },
		"verified": func(e wire.Event) bool {
			return e.Type == wire.EventDelivery && e.State == wire.DeliveryVerified && e.MsgID == msgID
		},
	})
	expectEvent(t, evs, "idle", func(e wire.Event) bool { return e.Type == wire.EventStatus && e.Status == "idle" && e.Agent == "a" })

	wait := func(args ...string) (string, int) {
		_, errOut, code := o.run("", append([]string{"wait"}, args...)...)
		return errOut, code
	}
	if out, code := wait("a", "--until", "delivered:"+id); code != 0 {
		t.Fatalf("wait for a delivered message: exit %d: %s", code, out)
	}
	if out, code := wait("a", "--until", "idle", "--timeout", "20s"); code != 0 {
		t.Fatalf("wait idle: exit %d: %s", code, out)
	}
	start := time.Now()
	if out, code := wait("a", "--until", "exited", "--timeout", "300ms"); code != 1 || !strings.Contains(out, "within 300ms") {
		t.Fatalf("wait exited on a live agent: exit %d: %s, want 1 and a timeout message", code, out)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("a 300ms timeout took %v", d)
	}
	for _, bad := range [][]string{
		{"a", "--until", "asleep"},
		{"a", "--until", "delivered:x"},
		{"a", "--until", "idle", "--timeout", "soon"},
		{"nobody", "--until", "idle"},
		{"a", "--until", "delivered:99999"},
		{"a"},
	} {
		if out, code := wait(bad...); code != 2 {
			t.Errorf("wait %q: exit %d (%s), want 2", bad, code, out)
		}
	}

	// A wait started before the delivery ends with it.
	o.must("pause", "a")
	id2 := o.send("a", "second")
	done := make(chan int, 1)
	go func() {
		_, code := wait("a", "--until", "delivered:"+id2, "--timeout", "30s")
		done <- code
	}()
	o.waitFor(10*time.Second, "held: paused", o.heldAs("a", "paused"))
	select {
	case code := <-done:
		t.Fatalf("wait returned %d before the message was delivered", code)
	default:
	}
	o.must("resume", "a")
	if code := <-done; code != 0 {
		t.Fatalf("wait for a later delivery: exit %d", code)
	}
	// A removed message will never be delivered: exit 1.
	o.must("pause", "a")
	id3 := o.send("a", "never")
	o.must("queue", "rm", id3)
	if out, code := wait("a", "--until", "delivered:"+id3, "--timeout", "10s"); code != 1 || !strings.Contains(out, "will not be delivered") {
		t.Fatalf("wait for a removed message: exit %d: %s", code, out)
	}

	// An agent that exits: the shell, told to.
	shEvents, _ := o.eventLines("sh")
	exited := make(chan int, 1)
	go func() {
		_, code := wait("sh", "--until", "exited", "--timeout", "30s")
		exited <- code
	}()
	o.send("sh", "exit 3")
	if code := <-exited; code != 0 {
		t.Fatalf("wait exited: exit %d", code)
	}
	ev := expectEvent(t, shEvents, "exit", func(e wire.Event) bool { return e.Type == wire.EventExit && e.Agent == "sh" })
	if ev.Code == nil || *ev.Code != 3 {
		t.Fatalf("exit event %+v, want code 3", ev)
	}
	if out, code := wait("sh", "--until", "exited"); code != 0 {
		t.Fatalf("wait exited on an exited agent: exit %d: %s", code, out)
	}
}

func TestPeerOfAnotherUIDIsRefused(t *testing.T) {
	t.Parallel()
	// The check itself, on a real socket pair: our own uid passes.
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	held := make(chan struct{})
	defer close(held)
	go func() {
		if c, err := net.Dial("unix", filepath.Join(dir, "s")); err == nil {
			defer c.Close()
			<-held // keep the connection open while it is checked
		}
	}()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if err := engineCheckPeer(conn, os.Getuid()); err != nil {
		t.Fatalf("own uid refused: %v", err)
	}
	var pe *peerError
	if err := engineCheckPeer(conn, os.Getuid()+1); !errors.As(err, &pe) || pe.UID != os.Getuid() {
		t.Fatalf("another uid: %v, want a PeerError naming uid %d", err, os.Getuid())
	}
	conn.Close()

	// A real process of another uid, when we are root to start one: it
	// connects to a socket opened up for the test (the office's own socket
	// is 0600 in a 0700 directory, so it could not even reach it).
	if os.Getuid() != 0 {
		t.Skip("not root: no second uid to connect with")
	}
	// The state dir and the socket in it are the other uid's own (the
	// client refuses a state dir, or a socket in it, that is not its
	// user's), the binary lives elsewhere.
	open := filepath.Join(os.TempDir(), fmt.Sprintf("office-peer-%d", os.Getpid()))
	if err := os.MkdirAll(open, 0o700); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(open)
	if err := os.Chown(open, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	binDir := filepath.Join(os.TempDir(), fmt.Sprintf("office-peer-bin-%d", os.Getpid()))
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(binDir)
	// A hard link, not a copy: a child another parallel test is starting
	// holds a copy of every descriptor between fork and exec, so a copy's
	// write descriptor could make this exec fail with "text file busy".
	bin := filepath.Join(binDir, "office")
	if err := os.Link(officeBin, bin); err != nil {
		t.Fatal(err)
	}
	ln2, err := net.Listen("unix", filepath.Join(open, wire.SocketFile))
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	if err := os.Chown(filepath.Join(open, wire.SocketFile), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "attach", "--stdio", "--state", open)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	_ = ln2.(*net.UnixListener).SetDeadline(time.Now().Add(30 * time.Second)) // a client that never connects fails, not hangs
	conn, err = ln2.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := engineCheckPeer(conn, os.Getuid()); !errors.As(err, &pe) || pe.UID != 65534 {
		t.Fatalf("a process of uid 65534: %v, want refused naming uid 65534", err)
	}
}
