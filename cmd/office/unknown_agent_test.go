package main

import (
	"strings"
	"testing"
)

// Every command that takes an agent of the store says of a name the office
// does not know what `office send` says: the name and the office's agents,
// without the store's layers ("queue: agent: unknown agent"), and exits 2.
func TestUnknownAgentNamesTheOfficesAgents(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	g := func(args ...string) []string {
		return append([]string{"--config", o.config, "--state", o.state}, args...)
	}
	const want = `unknown agent "nobody" (the office's agents: a1, b2)`
	for _, args := range [][]string{
		{"send", "nobody", "hi"},
		{"queue", "nobody"},
		{"queue", "clear", "nobody"},
		{"pause", "nobody"},
		{"resume", "nobody"},
		{"history", "nobody"},
		{"inbox", "nobody"},
	} {
		r := o.exec(strings.NewReader(""), g(args...)...)
		msg := strings.TrimSpace(r.stderr)
		if r.code != 2 || !strings.Contains(msg, want) || strings.Contains(msg, "agent: unknown") {
			t.Errorf("office %s: exit %d, %q; want exit 2 saying %q", strings.Join(args, " "), r.code, msg, want)
		}
	}
}
