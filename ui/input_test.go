package ui

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"office/drain"
	"office/inbox"
	"office/queue"
)

// run executes cmd as the program would, feeding its messages back to
// Update (no ticks are ever returned for input). It reports a quit.
func (h *harness) run(cmd tea.Cmd) (quit bool) {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			quit = h.run(c) || quit
		}
	default:
		_, next := h.m.Update(msg)
		quit = h.run(next)
	}
	return quit
}

// do feeds raw input and runs what it asks for.
func (h *harness) do(s string) bool {
	q := h.run(h.key(s))
	h.frame()
	return q
}

func TestKeysReachOnlyTheFocusedPaneUnchanged(t *testing.T) {
	h := newHarness(t, "a", "b", "c", "d")
	h.size(160, 45)
	keys := "hi\x1b\x03\t\x1b[A\x1b[15~\x1bb\x1b[1;5C\r"
	h.do(keys)
	if got := h.terms["a"].got(); got != keys {
		t.Fatalf("a got %q, want %q", got, keys)
	}
	h.do("\x1d2")
	h.do("two")
	if got := h.terms["b"].got(); got != "two" {
		t.Fatalf("b got %q", got)
	}
	for _, n := range []string{"c", "d"} {
		if got := h.terms[n].got(); got != "" {
			t.Fatalf("%s got %q", n, got)
		}
	}
	if got := h.terms["a"].got(); got != keys {
		t.Fatalf("a got more: %q", got)
	}
	// The prefix twice sends the prefix itself.
	h.do("\x1d\x1d")
	if got := h.terms["b"].got(); got != "two\x1d" {
		t.Fatalf("b got %q", got)
	}
	// The prefix in the middle of a chunk splits it.
	h.do("x\x1d3y")
	if got, got3 := h.terms["b"].got(), h.terms["c"].got(); got != "two\x1dx" || got3 != "y" {
		t.Fatalf("b got %q, c got %q", got, got3)
	}
}

func TestKeysFollowTheAgentsModes(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	paste := "\x1b[200~a\nb\x1b[201~"
	h.do(paste + "\x1b[A")
	if got := h.terms["a"].got(); got != "a\nb\x1b[A" {
		t.Fatalf("without ?2004 and ?1: %q", got)
	}
	h.terms["a"].scr.Feed([]byte("\x1b[?2004h\x1b[?1h"))
	h.terms["a"].set(func(t *fakeTerm) { t.input = nil })
	h.do(paste + "\x1b[A")
	if got := h.terms["a"].got(); got != paste+"\x1bOA" {
		t.Fatalf("with ?2004 and ?1: %q", got)
	}
}

func TestPrefixMovesFocusByDirection(t *testing.T) {
	h := newHarness(t, "a", "b", "c", "d")
	h.size(120, 40)
	steps := []struct{ keys, want string }{
		{"\x1d\x1b[C", "b"}, {"\x1dj", "d"}, {"\x1dh", "c"}, {"\x1d\x1b[A", "a"},
		{"\x1dl", "b"}, {"\x1d\x1b[B", "d"}, {"\x1dk", "b"}, {"\x1d3", "c"}, {"\x1d\t", "d"},
	}
	for _, s := range steps {
		h.do(s.keys)
		if got := h.m.focused().name; got != s.want {
			t.Fatalf("after %q focus is %s, want %s", s.keys, got, s.want)
		}
	}
	for _, ft := range h.terms {
		if got := ft.got(); got != "" {
			t.Fatalf("office keys leaked to an agent: %q", got)
		}
	}
}

func TestPagesAndRosterFollowFocus(t *testing.T) {
	h := newHarness(t, namesN(11)...)
	h.size(150, 40)
	if len(h.m.vis) != 9 {
		t.Fatalf("page 1 shows %d panes", len(h.m.vis))
	}
	h.do("\x1d>")
	if h.m.focused().name != "a10" || len(h.m.vis) != 2 {
		t.Fatalf("page 2: focus %s, %d panes", h.m.focused().name, len(h.m.vis))
	}
	if !strings.Contains(h.text(), "page 2/2") {
		t.Fatalf("no page indicator:\n%s", h.text())
	}
	h.do("\x1dr")
	if !strings.Contains(h.text(), " a3 ") {
		t.Fatalf("roster lacks an agent off the page:\n%s", h.text())
	}
}

func TestZoomResizesTheFocusedPTY(t *testing.T) {
	h := newHarness(t, "a", "b", "c", "d")
	h.size(120, 40)
	h.do("\x1d4")
	h.do("\x1dz")
	if c, r := h.terms["d"].Size(); c != 120 || r != 38 {
		t.Fatalf("zoomed PTY is %dx%d, want 120x38", c, r)
	}
	if strings.Count(h.text(), "· claude ·") != 1 {
		t.Fatalf("zoom shows more than one pane:\n%s", h.text())
	}
	h.do("\x1dz")
	if c, r := h.terms["d"].Size(); c != 60 || r != 19 {
		t.Fatalf("unzoomed PTY is %dx%d, want 60x19", c, r)
	}
}

func TestMouse(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(100, 30) // a: x 0-48, b: x 50-99; titles on row 0
	// A click on b focuses it and is not passed on.
	h.do("\x1b[<0;61;6M\x1b[<0;61;6m")
	if h.m.focused().name != "b" {
		t.Fatalf("click did not focus b")
	}
	if got := h.terms["b"].got(); got != "" {
		t.Fatalf("the focusing click reached b: %q", got)
	}
	// b did not ask for the mouse: nothing reaches it.
	h.do("\x1b[<0;61;6M\x1b[<0;61;6m")
	if got := h.terms["b"].got(); got != "" {
		t.Fatalf("b got mouse reports it did not ask for: %q", got)
	}
	// SGR mode: pane-relative coordinates (column 61 -> 11, row 6 -> 5).
	h.terms["b"].scr.Feed([]byte("\x1b[?1000h\x1b[?1006h"))
	h.frame()
	h.do("\x1b[<0;61;6M\x1b[<0;61;6m\x1b[<32;62;6M")
	if got := h.terms["b"].got(); got != "\x1b[<0;11;5M\x1b[<0;11;5m" {
		t.Fatalf("SGR reports: %q", got)
	}
	// A report split across reads.
	h.terms["b"].set(func(t *fakeTerm) { t.input = nil })
	h.do("z\x1b[<64;6")
	h.do("1;6M")
	if got := h.terms["b"].got(); got != "z\x1b[<64;11;5M" {
		t.Fatalf("split report: %q", got)
	}
	// X10 encoding when the agent asked for ?1000 only.
	h.terms["b"].scr.Feed([]byte("\x1b[?1006l"))
	h.terms["b"].set(func(t *fakeTerm) { t.input = nil })
	h.frame()
	h.do("\x1b[<0;61;6M\x1b[<0;61;6m")
	if got := h.terms["b"].got(); got != "\x1b[M +%\x1b[M#+%" {
		t.Fatalf("X10 reports: %q", got)
	}
	// A lone Esc at the end of a chunk is not held back.
	h.terms["b"].set(func(t *fakeTerm) { t.input = nil })
	h.do("\x1b")
	if got := h.terms["b"].got(); got != "\x1b" {
		t.Fatalf("Esc: %q", got)
	}
}

func TestDecodeKey(t *testing.T) {
	cases := []struct {
		in   string
		want key
		n    int
	}{
		{"a", key{kind: keyRune, r: 'a'}, 1},
		{"中x", key{kind: keyRune, r: '中'}, 3},
		{"\r", key{kind: keyEnter}, 1},
		{"\x1b\r", key{kind: keyNewline, alt: true}, 2},
		{"\x1b[13;2u", key{kind: keyNewline}, 7},
		{"\x1b[27;2;13~", key{kind: keyNewline}, 10},
		{"\n", key{kind: keyNewline}, 1},
		{"\x1b", key{kind: keyEsc}, 1},
		{"\x1b[A", key{kind: keyUp}, 3},
		{"\x1bOB", key{kind: keyDown}, 3},
		{"\x1b[3~", key{kind: keyDelete}, 4},
		{"\x1b[Z", key{kind: keyBackTab}, 3},
		{"\x7f", key{kind: keyBackspace}, 1},
		{"\x15", key{kind: keyCtrl, r: 'u'}, 1},
		{"\x1bb", key{kind: keyRune, r: 'b', alt: true}, 2},
		{"\x1b[99x", key{kind: keyUnknown}, 5},
	}
	for _, c := range cases {
		k, n := decodeKey([]byte(c.in))
		if k != c.want || n != c.n {
			t.Errorf("decodeKey(%q) = %+v, %d; want %+v, %d", c.in, k, n, c.want, c.n)
		}
	}
	var d keyDecoder
	ks := d.decode([]byte("x\x1b[200~a\r"))
	ks = append(ks, d.decode([]byte("b\x1b[201~y"))...)
	var got []string
	for _, k := range ks {
		if k.kind == keyPaste {
			got = append(got, "paste:"+k.text)
		} else {
			got = append(got, string(k.r))
		}
	}
	if strings.Join(got, "|") != "x|paste:a\r|paste:b|y" {
		t.Fatalf("split paste: %q", got)
	}
}

// lockedBuffer is the person's terminal for bell tests.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestComposerQueuesAndNeverTypes(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(120, 40)
	h.terms["a"].set(func(t *fakeTerm) { t.draft = "mine" })
	h.do("\x1d2")
	h.do("\x1dm")
	h.do("hello")
	h.do("\x1b\r")        // Alt+Enter: new line
	h.do("\x1b[27;2;13~") // Shift+Enter: new line
	h.do("world\r")
	msgs, err := h.src.store.List(context.Background(), "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Text != "hello\n\nworld" {
		t.Fatalf("queued %+v", msgs)
	}
	if h.terms["a"].got() != "" || h.terms["b"].got() != "" {
		t.Fatalf("the composer typed into a PTY: a %q b %q", h.terms["a"].got(), h.terms["b"].got())
	}
	if h.m.overlay != overlayNone || !strings.Contains(h.text(), "queued for b") {
		t.Fatalf("composer still open or no word:\n%s", h.text())
	}
	if !h.terms["a"].HasDraft() {
		t.Fatal("a's draft was touched")
	}
	// Blank is refused in the box, nothing queued.
	h.do("\x1dm")
	h.do("  \r")
	if !strings.Contains(h.text(), "nothing to queue") {
		t.Fatalf("no refusal:\n%s", h.text())
	}
	if msgs, _ := h.src.store.List(context.Background(), "b"); len(msgs) != 1 {
		t.Fatalf("blank was queued: %+v", msgs)
	}
}

func TestComposerButtonsActForThePerson(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 40)
	h.do("\x1dm")
	h.do("\x0f\x12") // Ctrl-O, Ctrl-R: not offered, nothing happens
	if h.terms["a"].escs != 0 || !strings.Contains(h.text(), "Esc close") || strings.Contains(h.text(), "recover prompt") {
		t.Fatalf("buttons acted without a hold:\n%s", h.text())
	}
	h.terms["a"].set(func(t *fakeTerm) { t.draft = "half typed"; t.picker = true })
	h.src.setHold("a", "picker open")
	h.frame()
	if !strings.Contains(h.text(), "close picker") || !strings.Contains(h.text(), "recover prompt") {
		t.Fatalf("buttons not offered:\n%s", h.text())
	}
	h.do("\x0f")
	if h.terms["a"].escs != 1 {
		t.Fatal("close picker did not act")
	}
	h.do("tail")
	h.do("\x12")
	if got := string(h.m.composer.text); got != "half typed\ntail" {
		t.Fatalf("composer text %q", got)
	}
	if h.terms["a"].HasDraft() {
		t.Fatal("draft not cleared")
	}
}

func TestQueuePanelActions(t *testing.T) {
	h := newHarness(t, "a")
	h.size(120, 40)
	ctx := context.Background()
	for _, s := range []string{"one", "two", "three"} {
		h.enqueue("a", s)
	}
	h.do("\x1dq")
	h.readStore()
	if !strings.Contains(h.text(), "3 queued") || strings.Contains(h.text(), "send now") {
		t.Fatalf("panel:\n%s", h.text())
	}
	texts := func() string {
		ms, err := h.src.store.List(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Text)
		}
		return strings.Join(out, ",")
	}
	h.do("j") // select "two"
	h.do("s") // not paused: send now is not offered
	if got := texts(); got != "one,two,three" {
		t.Fatalf("send now acted while not paused: %s", got)
	}
	h.do("\x1dp")
	h.readStore()
	if p, _ := h.src.store.FloorPaused(ctx); !p || !strings.Contains(h.text(), "s send now") {
		t.Fatalf("pause: %v\n%s", p, h.text())
	}
	h.do("s")
	if got := texts(); got != "two,one,three" {
		t.Fatalf("after send now: %s", got)
	}
	h.do("d") // selection stays on row 2, now "one"
	if got := texts(); got != "two,three" {
		t.Fatalf("after delete: %s", got)
	}
	h.do("c")
	h.do("n")
	if got := texts(); got != "two,three" {
		t.Fatalf("clear without confirmation: %s", got)
	}
	h.do("c")
	if !strings.Contains(h.text(), "clear all 2 messages for a? (y/n)") {
		t.Fatalf("no confirmation:\n%s", h.text())
	}
	h.do("y")
	if got := texts(); got != "" {
		t.Fatalf("after clear: %s", got)
	}
	h.do("\x1b")
	h.do("\x1dp")
	if p, _ := h.src.store.FloorPaused(ctx); p {
		t.Fatal("pause did not toggle back")
	}
	if h.src.wakes == 0 {
		t.Fatal("intents did not wake the drain")
	}
}

func TestNoticesRingAndList(t *testing.T) {
	h := newHarness(t, "a")
	out := &lockedBuffer{}
	h.m.out = out
	h.size(120, 40)
	h.readStore() // takes the event log's end
	h.m.intake.add(notice{agent: "a", kind: "exit", text: "exited with code 1"})
	h.run(h.m.refresh(testClock))
	if !strings.Contains(out.String(), "\a\x1b]9;office: a: exited with code 1\a") {
		t.Fatalf("bell/OSC 9: %q", out.String())
	}
	if !strings.Contains(h.text(), "! a: exited with code 1") || !strings.Contains(h.text(), "1 new notice (") {
		t.Fatalf("status line:\n%s", h.text())
	}
	// The inbox layer's notices arrive through the event log.
	svc, err := inbox.Open(context.Background(), h.src.store, inbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.NotifyParent(context.Background(), inbox.Person, inbox.Notice{Kind: inbox.NoticeStalled, Desc: "tester", Agent: "a", Quiet: 6 * time.Minute}, "k1"); err != nil {
		t.Fatal(err)
	}
	if err := h.src.store.AppendEvent(context.Background(), queue.Event{Agent: "a", Kind: "enqueued"}); err != nil {
		t.Fatal(err)
	}
	h.run(func() tea.Msg { return h.m.readStoreOnce()() })
	const stalled = `a: Background sub-session "tester" (actor_id: a) appears stalled`
	if len(h.m.notices.items) != 2 || !strings.Contains(out.String(), stalled) {
		t.Fatalf("notices %+v; out %q", h.m.notices.items, out.String())
	}
	h.do("\x1dn")
	txt := h.text()
	if !strings.Contains(txt, "notices (2)") || !strings.Contains(txt, "appears stalled") || h.m.notices.unread != 0 {
		t.Fatalf("list:\n%s", txt)
	}
	if h.terms["a"].got() != "" {
		t.Fatal("notices stole keys")
	}
}

func TestRosterChangesWhileRunning(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.size(120, 40)
	h.do("\x1d2")
	nt := newFakeTerm(80, 24, agentScreen("c"))
	h.src.mu.Lock()
	h.src.members = append([]member{{Name: "z", Profile: "shell", Term: newFakeTerm(80, 24, "")}}, h.src.members...)
	h.src.members = append(h.src.members, member{Name: "c", Profile: "codex", Term: nt})
	h.src.mu.Unlock()
	h.frame()
	if len(h.m.panes) != 4 || h.m.focused().name != "b" {
		t.Fatalf("panes %d, focus %s", len(h.m.panes), h.m.focused().name)
	}
	h.run(h.m.layout())
	if c, _ := nt.Size(); c != 60 {
		t.Fatalf("new agent's PTY not resized to its box: %d", c)
	}
	h.src.mu.Lock()
	h.src.members = h.src.members[2:]
	h.src.mu.Unlock()
	h.frame()
	if len(h.m.panes) != 2 || h.m.focused().name != "b" {
		t.Fatalf("after removal: panes %d, focus %s", len(h.m.panes), h.m.focused().name)
	}
	if !strings.Contains(h.text(), "c · codex") {
		t.Fatalf("frame:\n%s", h.text())
	}
}

func TestQuitAsksFirst(t *testing.T) {
	h := newHarness(t, "a")
	h.size(80, 24)
	if h.do("\x1dx") || !strings.Contains(h.text(), "(y/n)") {
		t.Fatalf("no question:\n%s", h.text())
	}
	if h.do("n") {
		t.Fatal("quit on n")
	}
	h.do("\x1dx")
	if !h.do("y") {
		t.Fatal("no quit on y")
	}
	if h.terms["a"].got() != "" {
		t.Fatalf("quit keys reached the agent: %q", h.terms["a"].got())
	}
}

func TestParsePrefix(t *testing.T) {
	for in, want := range map[string]byte{"C-]": 0x1d, "C-a": 1, "Ctrl-B": 2, "^A": 1, "c-\\": 0x1c, "`": '`'} {
		if got, err := ParsePrefix(in); err != nil || got != want {
			t.Errorf("ParsePrefix(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	for _, in := range []string{"", "C-", "C-ab", "ab", " "} {
		if _, err := ParsePrefix(in); err == nil {
			t.Errorf("ParsePrefix(%q) accepted", in)
		}
	}
}

func TestCustomPrefix(t *testing.T) {
	h := newHarness(t, "a", "b")
	h.m.prefix = 1 // C-a
	h.size(100, 30)
	h.do("x\x1d\x012y")
	if a, b := h.terms["a"].got(), h.terms["b"].got(); a != "x\x1d" || b != "y" {
		t.Fatalf("a %q b %q", a, b)
	}
	if !strings.Contains(h.text(), "Ctrl-A ? for help") {
		t.Fatalf("status line:\n%s", h.text())
	}
}

func TestRosterClickFocuses(t *testing.T) {
	h := newHarness(t, namesN(12)...)
	h.size(160, 45)
	h.do("\x1dr")
	// The rail starts at column 160-30 = 130; row 0 is its header, row 1+i
	// lists agent i. Click a11 (off the first page).
	h.do("\x1b[<0;135;12M\x1b[<0;135;12m")
	if got := h.m.focused().name; got != "a11" {
		t.Fatalf("focus %s, want a11", got)
	}
	if page, _ := h.m.page(); page != 1 {
		t.Fatalf("page %d, want the second", page+1)
	}
}

func TestTinyTerminalsDoNotBreak(t *testing.T) {
	for _, w := range []int{1, 2, 3, 5, 8, 12} {
		for _, ht := range []int{1, 2, 3, 5} {
			for _, n := range []int{1, 4, 9} {
				h := newHarness(t, namesN(n)...)
				h.size(w, ht)
				for _, k := range []string{"\x1dr", "\x1dm", "\x1dz", "\x1dq"} {
					h.do(k)
					if rows := strings.Count(h.m.View(), "\n"); ht > 1 && rows != ht-1 {
						t.Fatalf("%dx%d n=%d after %q: %d rows", w, ht, n, k, rows+1)
					}
				}
			}
		}
	}
}

func TestDrainNoticesInThePersonsWords(t *testing.T) {
	a := &App{}
	a.Notice(drain.Notice{Agent: "a", MsgID: 7, Kind: drain.NoticeDropped, Text: "hello\nworld"})
	a.Notice(drain.Notice{Agent: "b", MsgID: 8, Kind: drain.NoticeTypedNotSubmitted, Text: "x"})
	got := a.intake.take()
	want := []string{
		"a: message 7 dropped after its last failed attempt: hello …",
		"b: message 8 typed but not submitted; it sits on the prompt as your draft",
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i].line() != want[i] {
			t.Errorf("notice %d = %q, want %q", i, got[i].line(), want[i])
		}
	}
	if a.intake.take() != nil {
		t.Fatal("take did not clear")
	}
}
