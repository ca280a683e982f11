package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// firstEvent runs `office events --json ARGS` against o's server and
// returns the seq of the first stored event it prints (events without a seq
// are live and skipped).
func (o *testOffice) firstEvent(args ...string) int64 {
	t := o.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		e := &env{stdin: strings.NewReader(""), stdout: pw, stderr: &errb, getenv: func(k string) string { return o.env[k] }, bin: "office"}
		done <- run(ctx, e, append(append([]string{"events", "--json"}, args...), "--config", o.config, "--state", o.state))
		pw.Close()
	}()
	defer func() { cancel(); pr.Close(); <-done }()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		var ev struct {
			Seq int64 `json:"seq"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("events printed %q: %v", sc.Text(), err)
		}
		if ev.Seq != 0 {
			return ev.Seq
		}
	}
	t.Fatalf("office events %v printed no stored event (stderr %q)", args, errb.String())
	return 0
}

// TestEventsSinceZeroReplaysFromTheStart: --since 0 replays the store's log
// from its first event, --since N after event N (0 is not "from now").
func TestEventsSinceZeroReplaysFromTheStart(t *testing.T) {
	t.Parallel()
	o := newTestOffice(t)
	o.serve()
	for _, body := range []string{"one", "two"} {
		if r := o.cmd("", "send", "a1", body); r.code != 0 {
			t.Fatalf("send: %d %q", r.code, r.stderr)
		}
	}
	if got := o.firstEvent("--since", "0"); got != 1 {
		t.Fatalf("--since 0 began at event %d, want 1", got)
	}
	if got := o.firstEvent("--since", "1"); got != 2 {
		t.Fatalf("--since 1 began at event %d, want 2", got)
	}
}
