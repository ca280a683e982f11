package main

import (
	"strings"
	"testing"
	"time"

	"office/engine"
	"office/history"
	"office/pool"
)

// With no office running, `office history` prints the history file alone
// and says so; its flags are checked at the door.
func TestHistoryCommandWithoutAnOffice(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	g := func(args ...string) []string {
		return append([]string{"--config", o.config, "--state", o.state, "history"}, args...)
	}
	log, _, err := history.Open(engine.AgentDir(o.state, "a1"), 100)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	var recs []pool.HistoryRecord
	for i, text := range []string{"old 中文", "older than a minute", "recent \x1b", "last"} {
		at := now - int64(3-i)*40_000 // 120 s, 80 s, 40 s, 0 s ago
		red := pool.Cell{Rune: 'R', Width: 1, FG: 1, BG: pool.DefaultBG}
		cells := []pool.Cell{red}
		for _, r := range text {
			c := pool.Cell{Rune: r, Width: 1, FG: pool.DefaultFG, BG: pool.DefaultBG}
			if r == '中' || r == '文' {
				c.Width = 2
				cells = append(cells, c, pool.Cell{Width: 0, FG: pool.DefaultFG, BG: pool.DefaultBG})
				continue
			}
			cells = append(cells, c)
		}
		cells = append(cells, pool.Cell{Rune: ' ', Width: 1, FG: pool.DefaultFG, BG: pool.DefaultBG})
		recs = append(recs, pool.HistoryRecord{Seq: int64(i), At: at, Line: pool.AppendLine(nil, cells)})
	}
	if err := log.Append(recs); err != nil {
		t.Fatal(err)
	}
	log.Close()
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"all, plain", g("a1"), 0, "Rold 中文\nRolder than a minute\nRrecent \uFFFD\nRlast\n", "no office is running"},
		{"last 2", g("a1", "--lines", "2"), 0, "Rrecent \uFFFD\nRlast\n", ""},
		{"since", g("a1", "--since", "1m"), 0, "Rrecent \uFFFD\nRlast\n", ""},
		{"ansi", g("a1", "--lines", "1", "--ansi"), 0, "\x1b[0;31mR\x1b[0mlast\n", ""},
		{"an agent with no history", g("b2"), 0, "", "no office is running"},
		{"unknown agent", g("nobody"), 2, "", "unknown agent"},
		{"negative --lines", g("a1", "--lines", "-1"), 2, "", "--lines"},
		{"negative --since", g("a1", "--since", "-1m"), 2, "", "--since"},
		{"no agent", g(), 2, "", "usage"},
	} {
		r := o.exec(nil, tc.args...)
		if r.code != tc.code || r.stdout != tc.out || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q",
				tc.name, r.code, r.stdout, r.stderr, tc.code, tc.out, tc.err)
		}
	}
}
