package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's chromium (.ci/run installs it).
const chromiumPath = "/usr/bin/chromium"

// TestWebInAHeadlessBrowser drives the page in a real headless Chromium:
// open the pairing URL `office web pair` printed, see the roster, open the
// fake agent's pane and find its prompt text, queue a message from the
// composer, answer its permission dialog from the needs-you list (the
// home) with the option's button, and see
// the message submitted once. A screenshot is saved as a test artifact
// (go test -artifacts).
func TestWebInAHeadlessBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("no Chromium at %s (Debian's chromium package; .ci/run installs it): %v", chromiumPath, err)
	}
	t.Parallel()
	o, base, agentLog := webOffice(t)
	r := o.cmd("", "web", "pair")
	url := regexp.MustCompile(`http://\S+#pair=\S+`).FindString(r.stdout)
	if r.code != 0 || url == "" || !strings.HasPrefix(url, base) {
		t.Fatalf("office web pair: %d %q", r.code, r.stdout)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(412, 915))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer acancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first run starts the browser: no timeout on its context (one
	// would stop the browser); later steps run under tctx.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	defer tcancel()
	step := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(tctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// openAgent taps an agent in the roster: in the page's own script, as
	// the roster is drawn again whenever it changes (a node found first
	// and clicked next may be gone by then).
	openAgent := func(name string) chromedp.Action[chromedp.Void] {
		tap := chromedp.Poll[bool](`(() => { const b = document.querySelector('#roster button[data-agent="` + name + `"]'); if (b) b.click(); return !!b; })()`)
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := tap(ctx, tg)
			return chromedp.Void{}, err
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(tctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	step("pairing and the roster", chromedp.Navigate(url), chromedp.WaitVisible(`#roster button[data-agent="a1"]`))
	if roster := text(`#roster`); !strings.Contains(roster, "a1") || !strings.Contains(roster, "b2") || !strings.Contains(roster, "queued") {
		t.Fatalf("roster %q", roster)
	}
	if loc, err := chromedp.Run(tctx, chromedp.Location()); err != nil || strings.Contains(loc, "pair=") {
		t.Fatalf("the token stayed in the address bar: %s %v", loc, err)
	}
	// Another server on the same host, another port: the browser sends it
	// the session cookie (cookies go by host, not port), but the page's
	// key stays in the page's own origin, so a replay of what that server
	// got opens nothing. The page, opened again, still holds its session.
	got := make(chan http.Header, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Header.Clone():
		default:
		}
		io.WriteString(w, "<!doctype html><title>another server</title><p>another server</p>")
	}))
	defer other.Close()
	step("another server on this host", chromedp.Navigate(other.URL), chromedp.WaitVisible(`p`))
	hdr := <-got
	if !strings.Contains(hdr.Get("Cookie"), "office_web=") {
		t.Fatalf("the browser did not send the session cookie to another port of the host (%q): the test proves nothing", hdr.Get("Cookie"))
	}
	for _, path := range []string{"/api/me", "/api/send"} {
		method, body := "GET", ""
		if path == "/api/send" {
			method, body = "POST", `{"agent":"a1","text":"replayed"}`
		}
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Origin", base)
		req.Header.Set("Cookie", hdr.Get("Cookie"))
		for k, v := range hdr {
			if strings.HasPrefix(strings.ToLower(k), "x-office") {
				req.Header[k] = v
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s %s with the cookie another server got: %s, want 401", method, path, resp.Status)
		}
	}
	step("the page again, still paired", chromedp.Navigate(base+"/"), chromedp.WaitVisible(`#roster button[data-agent="a1"]`))
	step("the agent's pane", openAgent("a1"), chromedp.WaitVisible(`#pane`))
	// Not paired with --type: no keys box, only the composer, which queues.
	if shown, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`document.getElementById("keys").offsetParent !== null`)); err != nil || shown {
		t.Fatalf("the keys box shows for a session that may not type: %v %v", shown, err)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.getElementById("screen").textContent.includes("? for shortcuts")`)); err != nil {
		t.Fatalf("the agent's prompt text on the page: %v (screen %q)", err, text(`#screen`))
	}
	// xterm.js (vendored) draws the same screen.
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`(document.querySelector("#term .xterm-rows") || {textContent: ""}).textContent.includes("? for shortcuts")`)); err != nil {
		t.Fatalf("xterm.js did not draw the agent's screen: %v", err)
	}
	// Queue from the pane; answer the dialog from the home, the needs-you
	// list, where it appears with its options as buttons.
	step("queueing, then answering the dialog from the needs-you list",
		chromedp.SetValue(`#text`, "hello from chromium"),
		chromedp.Click(`#composer button`),
		chromedp.WaitVisible(`#options button`),
		chromedp.Click(`#back`),
		chromedp.WaitVisible(`#needs li[data-agent="a1"][data-reason="dialog"] button[data-option="1"]`))
	if need := text(`#needs li[data-agent="a1"]`); !strings.Contains(need, "dialog") || !strings.Contains(need, "Yes") {
		t.Fatalf("the need on the home %q", need)
	}
	step("the answer", chromedp.Click(`#needs li[data-agent="a1"] button[data-option="1"]`),
		openAgent("a1"), chromedp.WaitVisible(`#pane`))
	deadline := time.Now().Add(30 * time.Second)
	for {
		raw, _ := os.ReadFile(agentLog)
		log := string(raw)
		if strings.Contains(log, `"event":"reply"`) {
			if n := strings.Count(log, `"event":"prompt","text":"hello from chromium"`); n != 1 {
				t.Fatalf("the message was submitted %d times, want once:\n%s", n, log)
			}
			if !strings.Contains(log, `"event":"permission","answer":"yes"`) {
				t.Fatalf("the dialog was not answered yes:\n%s", log)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reply within 30 s:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.getElementById("screen").textContent.includes("reply: hello from chromium")`)); err != nil {
		t.Fatalf("the reply on the page: %v", err)
	}
	// The mail pages: a request from b2 to the person is listed, opens
	// with its text, and is answered from its page (the office server's
	// mail calls).
	mailID := mailFrom(t, o, "b2", "--to", "person", "--title", "deploy?", "--request", "may I deploy?")
	// The home's events: the message's delivery to a1 is among them.
	step("the events", chromedp.Click(`#back`), chromedp.WaitVisible(`#events li[data-agent="a1"][data-type="delivery"]`))
	step("the mail list and the mail", chromedp.WaitVisible(`#maillist button[data-id="`+mailID+`"]`),
		chromedp.Click(`#maillist button[data-id="`+mailID+`"]`), chromedp.WaitVisible(`#mailview`))
	if got := text(`#mailtext`); !strings.Contains(got, "may I deploy?") {
		t.Fatalf("the mail's text on its page: %q", got)
	}
	if meta := text(`#mailmeta`); !strings.Contains(meta, "b2") || !strings.Contains(meta, "person") {
		t.Fatalf("the mail's envelope: %q", meta)
	}
	shotMail, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "web-mail.png"), shotMail, 0o600); err != nil {
		t.Fatal(err)
	}
	step("a reply from the mail's page", chromedp.SetValue(`#mailreplytext`, "yes, deploy"), chromedp.Click(`#mailreply button`))
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.getElementById("mailsteps").textContent.includes("from person")`)); err != nil {
		t.Fatalf("the reply in the mail's timeline: %v (timeline %q, error %q)", err, text(`#mailsteps`), text(`#mailviewerr`))
	}
	if r := o.cmd("", "mail", "show", mailID); r.code != 0 || !strings.Contains(r.stdout, "from person") {
		t.Fatalf("office mail show %s after the reply from the page: %d %q", mailID, r.code, r.stdout)
	}
	step("back to the pane", chromedp.Click(`#mailback`), openAgent("a1"), chromedp.WaitVisible(`#pane`))
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.getElementById("screen").textContent.includes("reply: hello from chromium")`)); err != nil {
		t.Fatalf("the pane again: %v", err)
	}
	png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "web-pane.png")
	if err := os.WriteFile(shot, png, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
	// The cursor: a1 hides its own (as Claude Code does, drawing a caret
	// of its own), so xterm.js draws none; cat (b2) shows it, at its cell.
	if n, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.querySelectorAll("#term .xterm-rows .xterm-cursor").length`)); err != nil || n != 0 {
		t.Fatalf("a cursor drawn for an agent that hides its own: %d %v", n, err)
	}
	step("b2's pane", chromedp.Click(`#back`), openAgent("b2"), chromedp.WaitVisible(`#pane`))
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`(() => { const c = document.querySelector("#term .xterm-rows .xterm-cursor");
		return !!c && c.parentElement === document.querySelector("#term .xterm-rows").firstElementChild; })()`)); err != nil {
		html, _ := chromedp.Run(tctx, chromedp.Evaluate[string](`(document.querySelector("#term .xterm-rows") || {innerHTML: "none"}).innerHTML.slice(0, 2000)`))
		t.Fatalf("no cursor at cat's cell (row 0) in xterm.js: %v\n%s", err, html)
	}
	// Paired again with --type, the same browser gets the keys box: keys
	// typed there reach cat at once (its echo and its copy of the line),
	// and the cursor follows to the row below.
	r = o.cmd("", "web", "pair", "--type")
	typeURL := regexp.MustCompile(`http://\S+#pair=\S+`).FindString(r.stdout)
	if r.code != 0 || typeURL == "" {
		t.Fatalf("office web pair --type: %d %q", r.code, r.stdout)
	}
	// Opened in the same tab, only the URL's fragment changes: the page is
	// not loaded again, it pairs on the change.
	if _, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`location.href = "`+typeURL+`", true`)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`!location.hash.includes("pair=") && !document.getElementById("keys").hasAttribute("hidden")`)); err != nil {
		t.Fatalf("paired again: %v (error %q)", err, text(`#pairerr`))
	}
	step("b2 with the keys box", openAgent("b2"), chromedp.WaitVisible(`#keys`))
	step("typing keys", chromedp.SetValue(`#keytext`, "typed from the page"), chromedp.Click(`#keys button`),
		chromedp.Click(`#keys button[data-key="\\r"]`))
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.getElementById("screen").textContent.split("typed from the page").length === 3`)); err != nil {
		t.Fatalf("the keys typed from the page, echoed and copied by cat: %v (screen %q)", err, text(`#screen`))
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](`(() => { const c = document.querySelector("#term .xterm-rows .xterm-cursor");
		return !!c && c.parentElement === document.querySelector("#term .xterm-rows").children[2]; })()`)); err != nil {
		t.Fatalf("the cursor did not follow cat's output to row 2: %v", err)
	}
}
