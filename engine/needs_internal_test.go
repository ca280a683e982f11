package engine

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"office/configs"
	"office/wire"
)

func TestListNeedsOrdersEveryKindOldestFirstAndSkipsWhatRestartsByItself(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	code := func(n int) *int { return &n }
	dialog := "Bash command\n  rm -rf build\nDo you want to proceed?\n❯ 1. Yes\n  2. No, and tell Claude what to do differently\n"
	in := NeedsInput{
		Host: "h1",
		Agents: []NeedAgent{
			{Name: "dlg", Status: "waiting", Dialog: &NeedDialog{Since: at(5), Screen: dialog, Options: []string{"1. Yes", "2. No"}}},
			{Name: "limit", Status: "waiting", Hold: "usage limit", Dialog: &NeedDialog{Since: at(9), Screen: "Usage limit reached\n1. Wait\n2. Upgrade"}},
			{Name: "offer", Status: "idle", Hold: "unknown screen", Dialog: &NeedDialog{Since: at(11), Screen: "Try the new renderer?\n❯ Yes, try it\n  Not now"}},
			{Name: "crash", Status: "exited", ExitCode: code(3), Restart: configs.RestartNever, ExitedAt: at(2)},
			{Name: "done0", Status: "exited", ExitCode: code(0), Restart: configs.RestartOnFailure, ExitedAt: at(3)},
			{Name: "again", Status: "exited", ExitCode: code(3), Restart: configs.RestartOnFailure, ExitedAt: at(1)},
			{Name: "always", Status: "exited", ExitCode: code(0), Restart: configs.RestartAlways, ExitedAt: at(1)},
			{Name: "ghost", Status: "exited", SpawnError: "no such file", ExitedAt: at(8)},
			{Name: "stuck", Status: "busy", StalledSince: at(4)},
			{Name: "unstuck", Status: "idle", StalledSince: at(4)}, // the stall row outlives the stall by a tick
			{Name: "top", Status: "idle", TurnDone: at(6), TurnText: "All 12 tests pass."},
			{Name: "child", Parent: "top", Status: "idle", TurnDone: at(6)},
			{Name: "running", Status: "busy", TurnDone: at(1)},
			{Name: "quiet", Status: "idle"},
		},
		Held:     []NeedHeld{{ID: 7, Agent: "top", Text: "run the\nmigration", Since: at(7)}},
		Requests: []NeedRequest{{ID: "01M", Sender: "child", Title: "which db?", Body: "postgres or sqlite", Since: at(0)}},
		Refused:  []NeedRefused{{ID: "01R", Agent: "far", Host: "h2", Reason: "send refused: unknown agent", Since: at(10)}},
	}
	got := ListNeeds(in)
	var seq []string
	for _, n := range got {
		seq = append(seq, n.Agent+":"+n.Reason)
	}
	want := []string{"child:request", "crash:failed", "done0:exited", "stuck:stalled", "dlg:dialog", "top:turn done",
		"top:held message", "ghost:failed", "limit:usage limit", "far:refused", "offer:unknown screen"}
	if strings.Join(seq, " ") != strings.Join(want, " ") {
		t.Fatalf("needs\n got %v\nwant %v", seq, want)
	}
	byKey := map[string]wire.Need{}
	for _, n := range got {
		byKey[n.Agent+":"+n.Reason] = n
	}
	if d := byKey["dlg:dialog"]; d.Excerpt != "rm -rf build Do you want to proceed?" || len(d.Options) != 2 || d.Host != "h1" {
		t.Fatalf("dialog need %+v: want the question above the options, the options and this host", d)
	}
	if h := byKey["top:held message"]; h.Excerpt != "run the migration" || h.Ref != "7" {
		t.Fatalf("held need %+v: want its text on one line and its id", h)
	}
	if r := byKey["child:request"]; r.Excerpt != "which db?: postgres or sqlite" || r.Ref != "01M" {
		t.Fatalf("request need %+v", r)
	}
	if r := byKey["far:refused"]; r.Host != "h2" {
		t.Fatalf("refused need %+v: want the host that refused it", r)
	}
	if c := byKey["crash:failed"]; c.Excerpt != "exited with status 3" {
		t.Fatalf("failed need %+v", c)
	}
}

func TestExcerptIsOneBoundedLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é word\t", 60) + "\x1b[31m"
	got := Excerpt(long)
	if n := utf8.RuneCountInString(got); n != wire.MaxNeedExcerpt || !strings.HasSuffix(got, "…") {
		t.Fatalf("excerpt of %d characters %q: want %d ending in …", n, got, wire.MaxNeedExcerpt)
	}
	if strings.ContainsAny(got, "\t\n\x1b") {
		t.Fatalf("excerpt %q keeps control characters", got)
	}
	if got := Excerpt("a\x1b[2Jb\x07\r\nc"); got != "a[2Jb c" {
		t.Fatalf("Excerpt = %q, want control characters dropped", got)
	}
}

// BenchmarkListNeeds100Agents is the pure part of one read of the list for
// an office of 100 agents, a fifth of them waiting on the person.
func BenchmarkListNeeds100Agents(b *testing.B) {
	in := NeedsInput{}
	t0 := time.Now()
	for i := range 100 {
		a := NeedAgent{Name: "agent" + strings.Repeat("x", i%7), Status: "busy"}
		if i%5 == 0 {
			a.Status, a.Dialog = "waiting", &NeedDialog{Since: t0.Add(time.Duration(i) * time.Second), Screen: "Bash command\n rm -rf build\nDo you want to proceed?\n❯ 1. Yes\n  2. No\n"}
		}
		in.Agents = append(in.Agents, a)
	}
	b.ReportAllocs()
	for b.Loop() {
		ListNeeds(in)
	}
}

// Every needs-you reason can be named in [notify]'s on: the office file's
// transitions are the list's reasons (and "notification").
func TestEveryNeedReasonIsANotifyTransition(t *testing.T) {
	t.Parallel()
	reasons := []string{wire.NeedDialog, wire.NeedUsageLimit, wire.NeedUnknown, wire.NeedHeld, wire.NeedRequest,
		wire.NeedFailed, wire.NeedExited, wire.NeedStalled, wire.NeedTurnDone, wire.NeedRefused}
	for _, r := range reasons {
		if !slices.Contains(configs.NotifyTransitions, r) {
			t.Errorf("needs reason %q is not a [notify] transition (configs.NotifyTransitions)", r)
		}
	}
}
