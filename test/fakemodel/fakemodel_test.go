package fakemodel

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestServerListensOnLoopbackOnly(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q is not loopback", s.URL)
	}
}

func TestEachDialectStreamsTheReplyAndLogsThePrompt(t *testing.T) {
	s, err := New(Options{Delay: 50 * time.Millisecond, Tick: time.Millisecond, Reply: "hello there"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := `"tools":[{"name":"Bash","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}]`
	a := post(t, s.URL+"/v1/messages", `{"stream":true,`+tools+`,"messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"first"}]}]}`)
	for _, want := range []string{"event: message_start", `"text":"hello "`, `"text":"there"`, "event: message_stop"} {
		if !strings.Contains(a, want) {
			t.Errorf("anthropic stream lacks %q:\n%s", want, a)
		}
	}
	o := post(t, s.URL+"/v1/responses", `{"stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"second"}]}]}`)
	if !strings.Contains(o, "event: response.completed") || !strings.Contains(o, `"delta":"hello "`) {
		t.Errorf("openai stream:\n%s", o)
	}
	g := post(t, s.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}],"contents":[{"role":"user","parts":[{"text":"third"}]}]}`)
	if !strings.Contains(g, `"finishReason":"STOP"`) {
		t.Errorf("gemini stream:\n%s", g)
	}
	// A side request without tools (Claude's title) is not a prompt.
	post(t, s.URL+"/v1/messages", `{"stream":true,"messages":[{"role":"user","content":"title please"}]}`)
	if got := s.Prompts(); strings.Join(got, "|") != "first|second|third" {
		t.Fatalf("Prompts() = %q", got)
	}
	if n := len(s.Requests()); n != 4 {
		t.Fatalf("%d requests logged, want 4", n)
	}
}

func TestToolCallAsksOnceThenTextAgain(t *testing.T) {
	s, err := New(Options{Tick: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ToolCall("touch x")
	body := `{"stream":true,"tools":[{"type":"function","name":"exec_command","parameters":{"properties":{"cmd":{"type":"string"}}}}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`
	first := post(t, s.URL+"/v1/responses", body)
	if !strings.Contains(first, `"type":"function_call"`) || !strings.Contains(first, `touch x`) || !strings.Contains(first, "require_escalated") {
		t.Fatalf("first reply is not an escalated exec_command call:\n%s", first)
	}
	second := post(t, s.URL+"/v1/responses", body)
	if strings.Contains(second, "function_call") {
		t.Fatalf("second reply is a tool call again:\n%s", second)
	}
}

func TestToolCallsQueueInOrder(t *testing.T) {
	s, err := New(Options{Tick: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.ToolCall("touch one")
	s.ToolCall("touch two")
	body := `{"stream":true,"tools":[{"type":"function","name":"exec_command","parameters":{"properties":{"cmd":{"type":"string"}}}}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`
	for _, want := range []string{"touch one", "touch two"} {
		if got := post(t, s.URL+"/v1/responses", body); !strings.Contains(got, want) {
			t.Fatalf("reply does not ask for %q:\n%s", want, got)
		}
	}
	if got := post(t, s.URL+"/v1/responses", body); strings.Contains(got, "function_call") {
		t.Fatalf("the reply after the queue is a tool call again:\n%s", got)
	}
}

func TestHoldKeepsTheStreamOpenUntilRelease(t *testing.T) {
	s, err := New(Options{Tick: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Hold()
	done := make(chan string, 1)
	go func() {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true,"messages":[]}`))
		if err != nil {
			done <- err.Error()
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var b strings.Builder
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		done <- b.String()
	}()
	select {
	case out := <-done:
		t.Fatalf("stream ended while held:\n%s", out)
	case <-time.After(700 * time.Millisecond):
	}
	s.Release()
	select {
	case out := <-done:
		if !strings.Contains(out, "message_stop") {
			t.Fatalf("stream after release:\n%s", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stream did not end after Release")
	}
}
