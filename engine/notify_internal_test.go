package engine

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestAlertRulesOnePerGapFoldedAndOnlyWhatIsOn(t *testing.T) {
	t.Parallel()
	on := map[string][]string{"a": {"dialog", "failed"}, "b": {"dialog"}}
	r := alertRules{gap: time.Minute, on: func(agent string) []string { return on[agent] }}
	t0 := time.Unix(1000, 0)
	if _, ok := r.offer(Alert{Agent: "a", Reason: "turn done"}, t0); ok {
		t.Fatal("a transition not in on was let through")
	}
	if a, ok := r.offer(Alert{Agent: "a", Reason: "dialog", Text: "1"}, t0); !ok || a.Text != "1" {
		t.Fatalf("first alert: %+v %v", a, ok)
	}
	if _, ok := r.offer(Alert{Agent: "b", Reason: "dialog"}, t0); !ok {
		t.Fatal("another agent's alert waited for a's gap")
	}
	for i, text := range []string{"2", "3"} {
		if _, ok := r.offer(Alert{Agent: "a", Reason: "failed", Text: text, At: t0.Add(time.Duration(i) * time.Second)}, t0.Add(10*time.Second)); ok {
			t.Fatalf("alert %s within the gap let through", text)
		}
	}
	if got := r.due(t0.Add(30 * time.Second)); len(got) != 0 {
		t.Fatalf("due within the gap: %+v", got)
	}
	got := r.due(t0.Add(time.Minute))
	if len(got) != 1 || got[0].Text != "3" || got[0].Folded != 1 {
		t.Fatalf("after the gap: %+v, want the newest with one folded", got)
	}
	if _, ok := r.offer(Alert{Agent: "a", Reason: "dialog"}, t0.Add(90*time.Second)); ok {
		t.Fatal("the gap did not restart with the folded alert")
	}
}

func TestNotifyCommandGetsTheAlertAsArgumentsWithoutAShell(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	argv := []string{"sh", "-c", `printf '%s|%s|%s' "$1" "$2" "$3" > "$0"`, out, "{agent}", "{reason}", "{body}"}
	a := Alert{Agent: "planner", Reason: "dialog", Text: "rm -rf / ; $(reboot) `x`"}
	if err := runCommand(context.Background(), argv, []string{"PATH=/usr/bin:/bin"}, a); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || string(b) != "planner|dialog|rm -rf / ; $(reboot) `x`" {
		t.Fatalf("the command got %q (%v), want the fields as they are", b, err)
	}
	if err := runCommand(context.Background(), []string{"sh", "-c", "echo nope >&2; exit 4"}, nil, a); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("a failing command: %v, want its exit and output", err)
	}
}

func TestWebhookRetriesAFewTimesAndAnOutageIsLoggedOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var failFirst atomic.Int32
	failFirst.Store(2)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= failFirst.Load() {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}
	}))
	defer hs.Close()
	now := func(time.Duration) <-chan time.Time { c := make(chan time.Time, 1); c <- time.Time{}; return c }
	hc := &http.Client{Timeout: webhookTimeout}
	a := Alert{Agent: "a", Reason: "failed", Text: "x", At: time.Now()}
	if err := postAlert(context.Background(), hc, hs.URL, a, now); err != nil || calls.Load() != 3 {
		t.Fatalf("two failures then a success: %v after %d POSTs, want success on the third", err, calls.Load())
	}
	calls.Store(0)
	failFirst.Store(100)
	err := postAlert(context.Background(), hc, hs.URL, a, now)
	if err == nil || calls.Load() != webhookTries || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a failing webhook: %v after %d POSTs, want an error after %d", err, calls.Load(), webhookTries)
	}

	var log strings.Builder
	h := &sinkHealth{log: slog.New(slog.NewTextHandler(&log, nil)), what: "the notify url"}
	h.result(err)
	h.result(err)
	h.result(nil)
	h.result(nil)
	if n := strings.Count(log.String(), "fails"); n != 1 {
		t.Fatalf("the outage was logged %d times:\n%s", n, log.String())
	}
	if n := strings.Count(log.String(), `msg="the notify url works again"`); n != 1 {
		t.Fatalf("the recovery was logged %d times:\n%s", n, log.String())
	}
}
