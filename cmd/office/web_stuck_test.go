package main

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestWebStuckAgentDoesNotStallOthers: an agent that reads nothing gets
// its input filled through /api/input (4 KiB at a time, from several
// sessions to stay within the rates); a message to another agent is still
// queued at once, and the web server answers.
func TestWebStuckAgentDoesNotStallOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("fills an agent's 1 MiB input through the web's rate limits: about 10 s")
	}
	t.Parallel()
	o := newTestOffice(t)
	body := "brief = false\n\n[[agent]]\nname = \"stuck\"\ncommand = [\"sh\", \"-c\", \"stty raw -echo; exec sleep 1000\"]\n\n[[agent]]\nname = \"b2\"\ncommand = [\"cat\"]\n"
	if err := os.WriteFile(o.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o.env["LANG"], o.env["TERM"] = "C.UTF-8", "xterm-256color"
	o.serve()
	base := runWebServer(t, o)
	var pages []*webPage
	for i := 0; i < 8; i++ {
		pages = append(pages, pairPage(t, o, base, "--type"))
	}
	post := func(p *webPage, path, body string) (int, time.Duration) {
		start := time.Now()
		resp := p.post(path, body)
		resp.Body.Close()
		return resp.StatusCode, time.Since(start)
	}
	keys, _ := json.Marshal(map[string]string{"agent": "stuck", "text": strings.Repeat("k", 4096)})
	// 1 MiB of input and the PTY's own buffer: 300 posts of 4 KiB.
	sent := 0
	for sent < 300 {
		progress := false
		for _, p := range pages {
			code, _ := post(p, "/api/input", string(keys))
			if code == http.StatusTooManyRequests {
				continue
			}
			progress = true
			sent++
		}
		if !progress {
			time.Sleep(500 * time.Millisecond) // the rate window is real time here
		}
	}
	code, took := post(pages[0], "/api/send", `{"agent":"b2","text":"still here"}`)
	if code != 200 || took > 5*time.Second {
		t.Fatalf("a message to another agent while one is stuck: %d after %s, want 200 at once", code, took)
	}
	t.Logf("a send after %d posts of keys into a stuck agent: %d in %s", sent, code, took)
}
