package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"office/client"
	"office/inbox"
	"office/pool"
	"office/wire"
)

// dialWS opens a page's WebSocket on r with cookie ck.
func (r *rig) dialWS(ctx context.Context, ck string) *websocket.Conn {
	r.t.Helper()
	c, _, err := websocket.Dial(ctx, "ws://"+r.host+"/ws", wsOpts(r.origin(), ck))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.CloseNow() })
	return c
}

// readType reads messages from c until one of type typ.
func readType(t *testing.T, ctx context.Context, c *websocket.Conn, typ string) map[string]any {
	t.Helper()
	for {
		_, p, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("reading a %s message: %v", typ, err)
		}
		var m map[string]any
		json.Unmarshal(p, &m)
		if m["t"] == typ {
			return m
		}
	}
}

func (r *rig) setScreen(agent, text string) {
	r.fake.mu.Lock()
	r.fake.screen[agent] = text
	w := r.fake.watch
	r.fake.mu.Unlock()
	w(client.Change{Kind: client.ChangeScreen, Agent: agent})
}

// TestWebSocketCarriesTheNeedsList: the page's home gets the client
// state's needs-you list, a dialog's options split into number and label.
func TestWebSocketCarriesTheNeedsList(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	since := time.Date(2026, 12, 1, 8, 55, 0, 0, time.UTC)
	r.fake.needs = []wire.Need{{Agent: "planner", Reason: wire.NeedDialog, Since: since, Excerpt: "Do you want to proceed?",
		Options: []string{"1. Yes", "2. Yes, and don't ask again", "3. No"}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m := readType(t, ctx, r.dialWS(ctx, r.pair()), "needs")
	got, _ := json.Marshal(m["needs"])
	want := `[{"agent":"planner","excerpt":"Do you want to proceed?","options":[{"label":"Yes","num":"1"},{"label":"Yes, and don't ask again","num":"2"},{"label":"No","num":"3"}],"reason":"dialog","since":"2026-12-01T08:55:00Z"}]`
	if string(got) != want {
		t.Fatalf("needs\n got %s\nwant %s", got, want)
	}
}

// TestWebSocketSendsChangedRowsOnly: the page gets the whole screen once,
// then only the rows that changed.
func TestWebSocketSendsChangedRowsOnly(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.fake.status["planner"] = "idle"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := r.dialWS(ctx, r.pair())
	c.Write(ctx, websocket.MessageText, []byte(`{"t":"watch","agent":"planner"}`))
	if m := readType(t, ctx, c, "screen"); !strings.Contains(m["text"].(string), "hello from planner") {
		t.Fatalf("the first screen message %v", m)
	}
	r.setScreen("planner", "hello from planner\n  1. Yes\n  3. Maybe")
	m := readType(t, ctx, c, "rows")
	got, _ := json.Marshal(m["changed"])
	if !strings.HasPrefix(string(got), `[{"ansi":"  3. Maybe`) || !strings.Contains(string(got), `"y":2}]`) {
		t.Fatalf("changed rows %s: want row 2 only", got)
	}
	// Another size is a whole screen again.
	r.setScreen("planner", "one row")
	if m := readType(t, ctx, c, "screen"); m["rows"].(float64) != 1 {
		t.Fatalf("after a resize %v", m)
	}
}

// TestWebSocketSendsTheCursor: the whole screen carries the agent's
// cursor; a cursor that moves or hides, with no row changed, is a rows
// message of no rows with the new cursor.
func TestWebSocketSendsTheCursor(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.fake.status["planner"] = "idle"
	r.fake.cursor = pool.Snapshot{CursorX: 2, CursorY: 1, CursorVisible: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := r.dialWS(ctx, r.pair())
	c.Write(ctx, websocket.MessageText, []byte(`{"t":"watch","agent":"planner"}`))
	cursorOf := func(m map[string]any) string { p, _ := json.Marshal(m["cursor"]); return string(p) }
	if m := readType(t, ctx, c, "screen"); cursorOf(m) != `{"visible":true,"x":2,"y":1}` {
		t.Fatalf("the whole screen's cursor %s", cursorOf(m))
	}
	for _, want := range []pool.Snapshot{{CursorX: 7, CursorY: 2, CursorVisible: true}, {CursorX: 7, CursorY: 2}} {
		r.fake.mu.Lock()
		r.fake.cursor = want
		r.fake.mu.Unlock()
		r.setScreen("planner", "hello from planner\n  1. Yes\n  2. No")
		m := readType(t, ctx, c, "rows")
		w := fmt.Sprintf(`{"visible":%v,"x":%d,"y":%d}`, want.CursorVisible, want.CursorX, want.CursorY)
		if got, _ := json.Marshal(m["changed"]); string(got) != "[]" || cursorOf(m) != w {
			t.Fatalf("after the cursor moved: changed %s cursor %s, want [] and %s", got, cursorOf(m), w)
		}
	}
}

// TestWebSocketCarriesTheNewestEvents: the office's events reach the
// page, the newest maxEvents of them, each text cut at maxEventText on a
// rune boundary; a page opened later gets those kept.
func TestWebSocketCarriesTheNewestEvents(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ck := r.pair()
	c := r.dialWS(ctx, ck)
	if m := readType(t, ctx, c, "events"); len(m["events"].([]any)) != 0 {
		t.Fatalf("events before any: %v", m)
	}
	r.fake.mu.Lock()
	w := r.fake.watch
	r.fake.mu.Unlock()
	for i := range maxEvents + 5 {
		w(client.Change{Kind: client.ChangeEvent, Event: wire.Event{Type: wire.EventDelivery, Agent: "planner", MsgID: int64(i + 1),
			State: "submitted", Detail: strings.Repeat("é", maxEventText)}})
	}
	check := func(c *websocket.Conn) {
		t.Helper()
		for {
			m := readType(t, ctx, c, "events")
			evs := m["events"].([]any)
			last := evs[len(evs)-1].(map[string]any)
			if last["msg_id"].(float64) != maxEvents+5 {
				continue
			}
			first := evs[0].(map[string]any)
			detail := last["detail"].(string)
			if len(evs) != maxEvents || first["msg_id"].(float64) != 6 || len(detail) > maxEventText || !utf8.ValidString(detail) {
				t.Fatalf("%d events from #%v, detail of %d bytes: want the newest %d, cut at %d on a rune boundary", len(evs), first["msg_id"], len(detail), maxEvents, maxEventText)
			}
			return
		}
	}
	check(c)
	check(r.dialWS(ctx, ck))
}

// TestSlowPageDelaysNoOther: a page that never reads its socket does not
// hold back another page's updates: each gets its own.
func TestSlowPageDelaysNoOther(t *testing.T) {
	t.Parallel()
	// A fast pace and big screens: the page that does not read fills its
	// socket's buffers within a few frames.
	r := newRig(t, func(c *Config) { c.FramePace = time.Millisecond })
	big := func(i int) string {
		var b strings.Builder
		for y := 0; y < 200; y++ {
			fmt.Fprintf(&b, "frame %d row %d %s\n", i, y, strings.Repeat("x", 900))
		}
		return b.String()
	}
	r.fake.status["planner"] = "busy"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ck := r.pair()
	slow := r.dialWS(ctx, ck)
	slow.Write(ctx, websocket.MessageText, []byte(`{"t":"watch","agent":"planner"}`))
	fast := r.dialWS(ctx, ck)
	fast.Write(ctx, websocket.MessageText, []byte(`{"t":"watch","agent":"planner"}`))
	var worst time.Duration
	for i := 0; i < 60; i++ {
		start := time.Now()
		r.setScreen("planner", big(i))
		want := fmt.Sprintf("frame %d row 0", i)
		for {
			_, p, err := fast.Read(ctx)
			if err != nil {
				t.Fatalf("frame %d: %v", i, err)
			}
			if strings.Contains(string(p), want) {
				break
			}
		}
		worst = max(worst, time.Since(start))
	}
	// 60 frames of 200 KB each are far beyond what the slow page's socket
	// buffers; had its writes held the other page's, the fast page would
	// have waited writeTimeout for it.
	if worst >= writeTimeout/2 {
		t.Fatalf("the reading page waited %v for a frame", worst)
	}
	t.Logf("the reading page's slowest frame: %v", worst)
}

// fakeMail is the office's mail: one request to the person, and the
// replies that reach it.
type fakeMail struct {
	mu      sync.Mutex
	replies []string
	states  []string
}

var fakeRequest = wire.Mail{ID: "m1", Sender: "planner", Receiver: "person", Type: inbox.MailRequest, Title: "deploy?", State: "working"}

func (f *fakeMail) PersonInbox(ctx context.Context) ([]wire.InboxItem, error) {
	return []wire.InboxItem{{ID: "m1", Sender: "planner", Kind: "mail", Body: "may I deploy?", Cut: true, Mail: &fakeRequest}}, nil
}

func (f *fakeMail) Reply(ctx context.Context, id, text string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, id+" "+text)
	return "r1", nil
}

func (f *fakeMail) List(ctx context.Context, state string) (wire.MailList, error) {
	f.mu.Lock()
	f.states = append(f.states, state)
	f.mu.Unlock()
	if state == "nosuch" {
		return wire.MailList{}, &client.CallError{Op: "mail.list", Msg: "mail.list: bad input: \"nosuch\" is not a state", Reason: `"nosuch" is not a state`}
	}
	return wire.MailList{Mail: []wire.Mail{fakeRequest}, Total: 1}, nil
}

func (f *fakeMail) Show(ctx context.Context, id string) (wire.MailShown, error) {
	if id != "m1" {
		return wire.MailShown{}, &client.CallError{Op: "mail.show", Msg: "mail.show: not found", Reason: "no mail " + id}
	}
	return wire.MailShown{Mail: fakeRequest, Text: "may I deploy?", Timeline: []wire.MailStep{{State: "queued"}, {State: "working"}}}, nil
}

// TestInboxAndReply: the page reads the person's inbox as the office
// server answers it (a cut body says so) and replies through Mail.Reply; a
// watch-only session reads it but its reply is refused before it reaches
// the office.
func TestInboxAndReply(t *testing.T) {
	t.Parallel()
	fm := &fakeMail{}
	r := newRig(t, func(c *Config) { c.Mail = fm })
	watcher := r.pair()
	resp := r.do("GET", "/api/inbox", "", watcher, nil)
	var rows []inboxRow
	json.NewDecoder(resp.Body).Decode(&rows)
	if resp.StatusCode != 200 || len(rows) != 1 || !rows[0].Request || !rows[0].Cut || rows[0].Title != "deploy?" {
		t.Fatalf("inbox: %s %+v", resp.Status, rows)
	}
	if resp := r.do("POST", "/api/mail/reply", `{"id":"m1","text":"yes"}`, watcher, nil); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a watch-only reply: %s", resp.Status)
	}
	answerer := r.pair(CapWatch, CapAnswer)
	if resp := r.do("POST", "/api/mail/reply", `{"id":"m1","text":""}`, answerer, nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an empty reply: %s", resp.Status)
	}
	if resp := r.do("POST", "/api/mail/reply", `{"id":"m1","text":"yes"}`, answerer, nil); resp.StatusCode != 200 {
		t.Fatalf("a reply: %s", resp.Status)
	}
	if len(fm.replies) != 1 || fm.replies[0] != "m1 yes" {
		t.Fatalf("replies that reached the office: %v", fm.replies)
	}
}

// TestMailListAndShow: a watch session lists the office's mail (with the
// state asked) and opens one mail; the office's refusal comes back in its
// own words; without the session's key nothing is read.
func TestMailListAndShow(t *testing.T) {
	t.Parallel()
	fm := &fakeMail{}
	r := newRig(t, func(c *Config) { c.Mail = fm })
	ck := r.pair()
	var list wire.MailList
	resp := r.do("GET", "/api/mail?state=working", "", ck, nil)
	json.NewDecoder(resp.Body).Decode(&list)
	if resp.StatusCode != 200 || list.Total != 1 || len(list.Mail) != 1 || list.Mail[0].ID != "m1" {
		t.Fatalf("mail list: %s %+v", resp.Status, list)
	}
	var shown wire.MailShown
	resp = r.do("GET", "/api/mail/show?id=m1", "", ck, nil)
	json.NewDecoder(resp.Body).Decode(&shown)
	if resp.StatusCode != 200 || shown.Text != "may I deploy?" || len(shown.Timeline) != 2 || shown.Receiver != "person" {
		t.Fatalf("mail show: %s %+v", resp.Status, shown)
	}
	for path, want := range map[string]string{"/api/mail?state=nosuch": `"nosuch" is not a state`, "/api/mail/show?id=m9": "no mail m9",
		"/api/mail/show": "give the mail's id"} {
		resp := r.do("GET", path, "", ck, nil)
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(e.Error, want) {
			t.Errorf("GET %s: %s %q, want 400 with %q", path, resp.Status, e.Error, want)
		}
	}
	cookie, _ := creds(ck)
	if resp := r.do("GET", "/api/mail", "", cookie, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("mail with the cookie alone: %s", resp.Status)
	}
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if strings.Join(fm.states, ",") != "working,nosuch" {
		t.Fatalf("states asked of the office: %q", fm.states)
	}
}
