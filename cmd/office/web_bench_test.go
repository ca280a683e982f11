package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"office/client"
	"office/test/testbin"
	"office/web"
)

// benchWindow is how long each phase of BenchmarkWebClientCost9Panes
// measures CPU: USER_HZ is 100, so 5 s resolve 0.2 % of a core.
const benchWindow = 5 * time.Second

// BenchmarkWebClientCost9Panes measures what the office server pays for a
// browser watching 9 panes against what it pays for a terminal client
// showing the same 9 (the target: no more). The real binaries, in
// processes of their own: `office serve` with 9 agents each redrawing a
// spinner row ten times a second, then, each for benchWindow, nothing
// attached, a wire client subscribed to the 9 screens (what the UI asks
// for a page of 9), and `office web` with 9 pages, one WebSocket each
// watching one agent (9 paired sessions, a phone's tabs). It reports the
// server's CPU (% of one core) in each phase, office web's own CPU, and
// the bytes office web sent the pages a second.
//
//	go test -run '^$' -bench WebClientCost -benchtime 1x ./cmd/office
func BenchmarkWebClientCost9Panes(b *testing.B) {
	bins, err := testbin.Build(b.TempDir(), "office/cmd/office")
	if err != nil {
		b.Fatal(err)
	}
	office := bins["office"]
	dir := b.TempDir()
	cfg, state := filepath.Join(dir, "office.toml"), filepath.Join(dir, "state")
	var body strings.Builder
	body.WriteString("brief = false\n")
	var names []string
	for i := 1; i <= 9; i++ {
		name := fmt.Sprintf("s%d", i)
		names = append(names, name)
		fmt.Fprintf(&body, "\n[[agent]]\nname = %q\ncommand = [\"sh\", \"-c\", \"i=0; while :; do i=$((i+1)); printf '\\\\r\\\\033[2Kworking %%d' $i; sleep 0.1; done\"]\n", name)
	}
	if err := os.WriteFile(cfg, []byte(body.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "LANG=C.UTF-8", "TERM=xterm-256color")
	start := func(args ...string) *exec.Cmd {
		c := exec.Command(office, append(args, "--config", cfg, "--state", state)...)
		c.Env = env
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Process.Signal(os.Interrupt); c.Wait() })
		return c
	}
	out := func(args ...string) string {
		c := exec.Command(office, append(args, "--config", cfg, "--state", state)...)
		c.Env = env
		p, err := c.CombinedOutput()
		if err != nil {
			b.Fatalf("office %v: %v\n%s", args, err, p)
		}
		return string(p)
	}
	serve := start("serve")
	deadline := time.Now().Add(30 * time.Second)
	for exec.Command(office, "status", "--config", cfg, "--state", state).Run() != nil {
		if time.Now().After(deadline) {
			b.Fatal("office serve did not answer within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // the agents start and settle into their loop
	cpu := func(pid int, during func()) float64 {
		t0, w0 := procTicks(pid), time.Now()
		during()
		return float64(procTicks(pid)-t0) / 100 / time.Since(w0).Seconds() * 100
	}
	idle := func() { time.Sleep(benchWindow) }
	ctx := context.Background()

	for range b.N {
		headless := cpu(serve.Process.Pid, idle)

		// A terminal client showing the 9: its screens, read as they come.
		conn, err := client.Dial(ctx, client.Local(state), client.Options{Client: "bench terminal", Screens: true, Subscribe: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := conn.Subscribe(names); err != nil {
			b.Fatal(err)
		}
		stopRead := make(chan struct{})
		go func() {
			for {
				select {
				case <-conn.Changed():
				case <-stopRead:
					return
				}
			}
		}()
		time.Sleep(500 * time.Millisecond) // the first full screens
		terminal := cpu(serve.Process.Pid, idle)
		close(stopRead)
		conn.Close()

		// office web with 9 pages, each watching one agent.
		webProc := start("web", "--listen", "127.0.0.1:0")
		st := &web.Store{Dir: state}
		for wait := time.Now().Add(30 * time.Second); st.Listen() == ""; {
			if time.Now().After(wait) {
				b.Fatal("office web did not listen within 30 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		base := strings.TrimSuffix(st.Listen(), "/")
		var sent atomic.Int64
		wctx, wcancel := context.WithCancel(ctx)
		for _, name := range names {
			tok := regexp.MustCompile(`#pair=([A-Za-z0-9_-]+)`).FindStringSubmatch(out("web", "pair", "--watch-only"))[1]
			p := redeemPage(b, base, tok)
			c, _, err := websocket.Dial(wctx, "ws"+strings.TrimPrefix(base, "http")+"/ws", &websocket.DialOptions{
				HTTPHeader:   http.Header{"Origin": {base}, "Cookie": {"office_web=" + p.cookie}},
				Subprotocols: []string{"office", "office-key." + p.key}})
			if err != nil {
				b.Fatal(err)
			}
			c.SetReadLimit(-1)
			c.Write(wctx, websocket.MessageText, []byte(`{"t":"watch","agent":"`+name+`"}`))
			go func() {
				defer c.CloseNow()
				for {
					_, msg, err := c.Read(wctx)
					if err != nil {
						return
					}
					sent.Add(int64(len(msg)))
				}
			}()
		}
		time.Sleep(500 * time.Millisecond)
		var webCPU float64
		before := sent.Load()
		w0 := time.Now()
		server := cpu(serve.Process.Pid, func() { webCPU = cpu(webProc.Process.Pid, idle) })
		rate := float64(sent.Load()-before) / time.Since(w0).Seconds()
		wcancel()
		webProc.Process.Signal(os.Interrupt)
		webProc.Wait()

		b.ReportMetric(headless, "server-headless-%cpu")
		b.ReportMetric(terminal, "server-terminal-%cpu")
		b.ReportMetric(server, "server-web-%cpu")
		b.ReportMetric(webCPU, "officeweb-%cpu")
		b.ReportMetric(rate, "page-B/s")
		b.Logf("server CPU: headless %.1f %%, a terminal client showing 9 %.1f %%, office web with 9 pages %.1f %%; office web itself %.1f %%, %.0f B/s to the pages",
			headless, terminal, server, webCPU, rate)
	}
}

// procTicks is pid's user and system time in clock ticks (USER_HZ, 100).
func procTicks(pid int) int64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0
	}
	fs := strings.Fields(line[i+1:])
	if len(fs) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(fs[11], 10, 64)
	s, _ := strconv.ParseInt(fs[12], 10, 64)
	return u + s
}
