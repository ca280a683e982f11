package main

import (
	"strings"
	"testing"
)

// TestSendWithoutTextSaysWhatItWants: `office send A` alone names what is
// missing and how the command is called, exit 2, nothing queued.
func TestSendWithoutTextSaysWhatItWants(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	for _, args := range [][]string{{"send", "a1"}, {"send"}} {
		r := o.cmd("", args...)
		want := "office send: no message text (office send AGENT TEXT..., or - to read it from stdin)"
		if args[len(args)-1] == "send" {
			want = "office send: no agent and no message text (office send AGENT TEXT..., or - to read it from stdin)"
		}
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("office %q: exit %d, stderr %q; want exit 2 saying %q", args, r.code, r.stderr, want)
		}
	}
	if ms := o.messages(); len(ms) != 0 {
		t.Errorf("queued %q, want nothing", ms)
	}
}
