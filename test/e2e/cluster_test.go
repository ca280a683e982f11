package e2e

// One office across hosts (docs/cluster.md): two `office serve` processes
// with their own state dirs and embedded NATS servers routed to each other
// on free ports of 127.0.0.1.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"office/test/testcerts"
	"office/test/testports"
)

// joinFloor appends a [cluster] table to each office's file: host names
// hosts[i], every host routed to every other.
func joinFloor(t testing.TB, offices []*office, hosts []string) {
	t.Helper()
	ports := make([]int, len(offices))
	for i := range offices {
		ports[i] = testports.Port(t)
	}
	ca := testcerts.New(t, "floor")
	for i, o := range offices {
		var peers []string
		for j := range offices {
			if j != i {
				peers = append(peers, fmt.Sprintf("%q", fmt.Sprintf("127.0.0.1:%d", ports[j])))
			}
		}
		appendTo(t, o.config, fmt.Sprintf("\n[cluster]\nname = \"floor\"\nhost = %q\nlisten = \"127.0.0.1:%d\"\npeers = [%s]\n%s",
			hosts[i], ports[i], strings.Join(peers, ", "), ca.TOML(t, hosts[i])))
	}
}

// appendTo appends text to path.
func appendTo(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// mailTo counts the mail in o's store whose receiver is agent, by title.
func (o *office) mailTo(agent string) map[string]int {
	o.t.Helper()
	out := o.mustAs("", "mail", "ls", "--json")
	var ms []struct {
		Receiver string `json:"receiver"`
		Title    string `json:"title"`
	}
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		o.t.Fatalf("mail ls --json: %v\n%s", err, out)
	}
	n := map[string]int{}
	for _, m := range ms {
		if m.Receiver == agent {
			n[m.Title]++
		}
	}
	return n
}

// Host a lists host b's agents; `office send` and 30 mails from a to an
// agent of b each arrive exactly once although b's server is killed -9 in
// the middle (the sender is told "stored") and restarted; a name no host
// has is refused with exit 2.
func TestClusterSendAndMailAcrossKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS and a kill -9 (about 30 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "alice"})
	b := newTeamOffice(t, teamAgent{name: "bob"})
	joinFloor(t, []*office{a, b}, []string{"a", "b"})
	a.startServe()
	b.startServe()
	a.waitFor(30*time.Second, "a lists b's agents", func() bool {
		out, _, code := a.run("", "team")
		return code == 0 && strings.Contains(out, "bob") && strings.Contains(out, " b ")
	})
	out, errOut, code := a.run("", "send", "bob", "hello from a")
	if code != 0 || !strings.Contains(errOut, "stored") {
		t.Fatalf("send bob: exit %d, %q %q", code, out, errOut)
	}
	for i := range 15 {
		a.mustAs("", "mail", "send", "--to", "bob", "--title", fmt.Sprintf("m%02d", i), fmt.Sprintf("mail %d", i))
	}
	b.stopServe(syscall.SIGKILL)
	for i := 15; i < 30; i++ {
		_, errOut, code := a.runAs("", "mail", "send", "--to", "bob", "--title", fmt.Sprintf("m%02d", i), fmt.Sprintf("mail %d", i))
		if code != 0 || !strings.Contains(errOut, "stored") {
			t.Fatalf("mail %d with b down: exit %d, %q", i, code, errOut)
		}
	}
	if _, errOut, code := a.run("", "send", "nobody-anywhere", "hi"); code != 2 {
		t.Fatalf("send to a name no host has: exit %d (%s), want 2", code, errOut)
	}
	a.waitFor(20*time.Second, "a shows b unreachable", func() bool {
		out, _, code := a.run("", "status")
		return code == 0 && strings.Contains(out, "unreachable")
	})
	b.startServe()
	b.waitFor(60*time.Second, "every mail on b", func() bool { return len(b.mailTo("bob")) == 30 })
	b.waitFor(30*time.Second, "the send typed on b", func() bool { return b.promptWith("bob", "hello from a") })
	for title, n := range b.mailTo("bob") {
		if n != 1 {
			t.Errorf("mail %s is on b %d times", title, n)
		}
	}
	n := 0
	for _, p := range b.prompts("bob") {
		n += strings.Count(p, "hello from a")
	}
	if n != 1 {
		t.Errorf("the send reached bob %d times, want once", n)
	}
}

// An agent name one host already has is refused on the other, naming both
// hosts (here b learnt a's roster first, then gets an agent of a's name).
func TestClusterNameClashRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS: not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "x"})
	b := newTeamOffice(t, teamAgent{name: "y"})
	joinFloor(t, []*office{a, b}, []string{"a", "b"})
	a.startServe()
	b.startServe()
	b.waitFor(30*time.Second, "b lists a's agents", func() bool {
		out, _, code := b.run("", "team")
		return code == 0 && strings.Contains(out, "x ")
	})
	b.stopServe(syscall.SIGTERM)
	appendFile(t, b.config, "\n[[agent]]\nname = \"x\"\nprofile = \"shell\"\n")
	_, errOut, code := b.run("", "serve")
	if code == 0 || !strings.Contains(errOut, `agent "x" is on host a and on host b`) {
		t.Fatalf("serve b with a's name: exit %d, %q", code, errOut)
	}
}

// BenchmarkClusterSendToTyped measures `office send` → typed into the agent,
// from another host of the floor and from the agent's own host (the wait
// polls every 50 ms, which bounds the resolution):
//
//	go test -run '^$' -bench ClusterSendToTyped -benchtime 10x ./test/e2e
func BenchmarkClusterSendToTyped(b *testing.B) {
	oa := newOffice(b, agentSpec{name: "alice"})
	ob := newOffice(b, agentSpec{name: "bob"})
	joinFloor(b, []*office{oa, ob}, []string{"a", "b"})
	oa.startServe()
	ob.startServe()
	oa.waitFor(30*time.Second, "a lists b's agents", func() bool {
		out, _, code := oa.run("", "team")
		return code == 0 && strings.Contains(out, "bob")
	})
	for _, from := range []struct {
		name string
		o    *office
	}{{"other-host", oa}, {"same-host", ob}} {
		b.Run(from.name, func(b *testing.B) {
			for i := range b.N {
				text := fmt.Sprintf("lat %s %d", from.name, i)
				from.o.must("send", "bob", text)
				ob.waitFor(30*time.Second, text+" typed", func() bool { return ob.promptWith("bob", text) })
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/typed")
		})
	}
}

// A request's state lives with its sender's host: alice on a sends one
// request to bob on b, who answers it with `office mail reply` from his own
// shell while his turn runs, and one to carol on b, who does not. On a the
// first ends done and the reply reaches alice; the second ends
// failed(no_reply_found) and alice is told.
func TestClusterRequestStateLivesWithSender(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS (about 20 s): not under -short")
	}
	a := newTeamOffice(t, teamAgent{name: "alice", args: []string{"--busy", "200ms"}})
	b := newTeamOffice(t, teamAgent{name: "bob", args: []string{"--busy", "6s"}}, teamAgent{name: "carol", args: []string{"--busy", "300ms"}})
	joinFloor(t, []*office{a, b}, []string{"a", "b"})
	a.startServe()
	b.startServe()
	a.waitFor(30*time.Second, "a lists b's agents", func() bool {
		out, _, code := a.run("", "team")
		return code == 0 && strings.Contains(out, "bob") && strings.Contains(out, "carol")
	})
	answered := a.mustAs("alice", "mail", "send", "--to", "bob", "--request", "--title", "Review", "please review parser.go")
	silent := a.mustAs("alice", "mail", "send", "--to", "carol", "--request", "--title", "Question", "what is the plan?")
	if st := a.mailShow(answered).State; st != "queued" {
		t.Fatalf("a's envelope of the request is %q, want queued", st)
	}
	b.waitFor(30*time.Second, "the request typed into bob, working on both hosts", func() bool {
		return b.promptWith("bob", `id="`+answered+`"`) && b.mailShow(answered).State == "working" && a.mailShow(answered).State == "working"
	})
	rid := b.mustAs("bob", "mail", "reply", answered, "LGTM, two nits")
	a.waitFor(30*time.Second, "the request done on a", a.mailState(answered, "done"))
	if st := b.mailShow(answered).State; st != "done" {
		t.Fatalf("the request on b is %q, want done", st)
	}
	a.waitFor(30*time.Second, "the reply typed into alice", func() bool {
		return a.promptWith("alice", `id="`+rid+`"`, `in_reply_to="`+answered+`"`, "LGTM, two nits")
	})
	a.waitFor(30*time.Second, "failed(no_reply_found) on a", func() bool {
		m := a.mailShow(silent)
		return m.State == "failed" && m.Reason == "no_reply_found"
	})
	a.waitFor(30*time.Second, "alice told", func() bool {
		return a.promptWith("alice", "<actor-notification", silent, "no_reply_found")
	})
	n := 0
	for _, p := range a.prompts("alice") {
		n += strings.Count(p, "LGTM, two nits")
	}
	if n != 1 {
		t.Errorf("the reply reached alice %d times, want once", n)
	}
}
