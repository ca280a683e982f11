package e2e

// The floor as `office status` and `office team` show it on each host
// (docs/commands.md, "Status and team as JSON"): two `office serve` processes on
// loopback with their own state dirs and embedded NATS servers (joinFloor).

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"
)

// floorRow mirrors one row of `office status --json` or `office team
// --json` in a clustered office.
type floorRow struct {
	Name          string    `json:"name"`
	Profile       string    `json:"profile"`
	Role          string    `json:"role"`
	Parent        string    `json:"parent"`
	Status        string    `json:"status"`
	Host          string    `json:"host"`
	Remote        bool      `json:"remote"`
	HostReachable *bool     `json:"host_reachable"`
	HostLastSeen  time.Time `json:"host_last_seen"`
	LastKnown     bool      `json:"last_known"`
}

// floorRows runs `office CMD --json` (status or team) and returns its rows
// by name (nil when it fails).
func (o *office) floorRows(cmd string) map[string]floorRow {
	o.t.Helper()
	out, _, code := o.run("", cmd, "--json")
	if code != 0 {
		return nil
	}
	var rows []floorRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		o.t.Fatalf("%s --json: %v\n%s", cmd, err, out)
	}
	m := map[string]floorRow{}
	for _, r := range rows {
		if _, dup := m[r.Name]; dup {
			o.t.Fatalf("%s --json lists %s twice:\n%s", cmd, r.Name, out)
		}
		m[r.Name] = r
	}
	return m
}

// reachable reports whether the row says its host answers (false when it
// does not say).
func (r floorRow) reachable() bool { return r.HostReachable != nil && *r.HostReachable }

// Host a lists host b's agents with host b in `status --json` and `team
// --json` (and their tables); a `team add` of a name b has is refused with
// exit 2 naming b, on a and (for a's name) on b; a name no host ever had is
// refused by send and mail send. After b's server stops, a shows host b
// unreachable and b's agents with their last-known status, still refuses
// b's names, and still takes a send for b's agent (stored).
func TestClusterViewListsOtherHostAndLastKnown(t *testing.T) {
	if testing.Short() {
		t.Skip("two office servers with clustered NATS (about 20 s): not under -short")
	}
	t.Parallel()
	a := newTeamOffice(t, teamAgent{name: "alice", role: "writes the parser"})
	b := newTeamOffice(t, teamAgent{name: "carol"}, teamAgent{name: "bob", role: "reviews diffs", parent: "carol"})
	joinFloor(t, []*office{a, b}, []string{"a", "b"})
	a.startServe()
	b.startServe()

	for _, cmd := range []string{"status", "team"} {
		a.waitFor(30*time.Second, "a's "+cmd+" --json lists b's agents, host b reachable", func() bool {
			rows := a.floorRows(cmd)
			bob, carol := rows["bob"], rows["carol"]
			return bob.Host == "b" && bob.Remote && bob.reachable() && !bob.LastKnown && bob.Status == "idle" &&
				bob.Profile == "claude" && bob.Role == "reviews diffs" && bob.Parent == "carol" && !bob.HostLastSeen.IsZero() &&
				carol.Host == "b" && carol.Remote && carol.Status == "idle"
		})
		alice := a.floorRows(cmd)["alice"]
		if alice.Host != "a" || alice.Remote || !alice.reachable() || alice.LastKnown || alice.Role != "writes the parser" {
			t.Fatalf("a's own agent in %s --json: %+v", cmd, alice)
		}
	}
	out := a.must("team")
	if !strings.Contains(out, "HOST") || !fieldsLine(out, "bob", "b", "reviews diffs") || !fieldsLine(out, "alice", "a") {
		t.Fatalf("a's team table does not list bob on host b and alice on host a:\n%s", out)
	}
	out = a.must("status")
	if !fieldsLine(out, "bob", "b", "claude", "idle") || !fieldsLine(out, "b", "reachable") {
		t.Fatalf("a's status table does not list bob on host b and host b reachable:\n%s", out)
	}

	if rows := a.floorRows("status"); len(rows) != 3 {
		t.Fatalf("a's status --json lists %d agents, want alice, bob and carol: %+v", len(rows), rows)
	}
	out = a.must("status", "bob")
	if !fieldsLine(out, "bob", "b", "claude", "idle") || strings.Contains(out, "alice") {
		t.Fatalf("a's status bob:\n%s", out)
	}
	if _, errOut, code := a.run("", "status", "--explain", "bob"); code != 2 || !strings.Contains(errOut, "host b") {
		t.Fatalf("status --explain bob (on host b) from a: exit %d, %q; want 2 naming host b", code, errOut)
	}

	refused := func(o *office, name, host string) {
		t.Helper()
		_, errOut, code := o.run("", "team", "add", name, "--profile", "shell")
		if code != 2 || !strings.Contains(errOut, "host "+host) || !strings.Contains(errOut, "already in use") {
			t.Fatalf("team add %s (an agent of host %s): exit %d, %q; want 2 naming host %s", name, host, code, errOut, host)
		}
	}
	refused(a, "bob", "b")
	// b learns a's roster on its own schedule: a's view of b says nothing
	// about b's view of a, so wait for it before asking b to refuse a's name.
	b.waitFor(30*time.Second, "b's status --json lists a's alice, host a reachable", func() bool {
		alice := b.floorRows("status")["alice"]
		return alice.Host == "a" && alice.Remote && alice.reachable()
	})
	refused(b, "alice", "a")
	for _, args := range [][]string{{"send", "nobody-anywhere", "hi"}, {"mail", "send", "--to", "nobody-anywhere", "hi"}} {
		if _, errOut, code := a.run("", args...); code != 2 || !strings.Contains(errOut, "nobody-anywhere") {
			t.Fatalf("%v (a name no host ever had): exit %d, %q; want 2 naming it", args, code, errOut)
		}
	}

	b.stopServe(syscall.SIGTERM)
	for _, cmd := range []string{"status", "team"} {
		a.waitFor(30*time.Second, "a's "+cmd+" --json: host b unreachable, b's agents last known", func() bool {
			bob := a.floorRows(cmd)["bob"]
			return bob.Host == "b" && bob.HostReachable != nil && !*bob.HostReachable && bob.LastKnown && bob.Status == "idle" &&
				!bob.HostLastSeen.IsZero() && time.Since(bob.HostLastSeen) < 2*time.Minute
		})
		alice := a.floorRows(cmd)["alice"]
		if !alice.reachable() || alice.LastKnown {
			t.Fatalf("a's own agent with b down, %s --json: %+v", cmd, alice)
		}
	}
	out = a.must("status")
	if !fieldsLine(out, "bob", "b", "claude", "idle (last known; host b unreachable, last seen") || !fieldsLine(out, "b", "unreachable") {
		t.Fatalf("a's status table with b down:\n%s", out)
	}
	refused(a, "bob", "b")
	if _, errOut, code := a.run("", "send", "bob", "while b is down"); code != 0 || !strings.Contains(errOut, "stored") {
		t.Fatalf("send to bob with b down: exit %d, %q; want it stored", code, errOut)
	}
	if _, errOut, code := a.run("", "send", "nobody-anywhere", "hi"); code != 2 {
		t.Fatalf("send to a name no host ever had, b down: exit %d, %q; want 2", code, errOut)
	}
}

// fieldsLine reports whether a line of table out starts with the cells
// want, in order (each cell a run of text between the table's gaps; the
// last of want may be the start of its cell, the others are whole cells).
func fieldsLine(out string, want ...string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		var cells []string
		for c := range strings.SplitSeq(line, "  ") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		if len(cells) < len(want) {
			continue
		}
		ok := true
		for i, w := range want {
			if cells[i] != w && (i < len(want)-1 || !strings.HasPrefix(cells[i], w)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
