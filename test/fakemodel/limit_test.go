package fakemodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func postResp(t *testing.T, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: body %q is not JSON: %v", url, b, err)
	}
	return resp, m
}

// The limit mode answers each vendor's refusal: Anthropic 429
// rate_limit_error with its reset headers, OpenAI 429 usage_limit_reached
// with resets_at, Gemini 429 RESOURCE_EXHAUSTED; 529 is Anthropic's
// overloaded_error; count-tokens calls still answer; the zero Refusal ends it.
func TestRefuse(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Tick: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reset := time.Now().Add(90 * time.Minute).Truncate(time.Second)
	s.Refuse(Refusal{Status: 429, Reset: reset})

	resp, m := postResp(t, s.URL+"/v1/messages", `{"stream":true,"messages":[]}`)
	e, _ := m["error"].(map[string]any)
	if resp.StatusCode != 429 || m["type"] != "error" || e["type"] != "rate_limit_error" ||
		resp.Header.Get("anthropic-ratelimit-unified-reset") != itoa(reset.Unix()) || resp.Header.Get("retry-after") == "" {
		t.Errorf("anthropic: %d %v %v", resp.StatusCode, m, resp.Header)
	}
	resp, m = postResp(t, s.URL+"/v1/responses", `{"stream":true}`)
	e, _ = m["error"].(map[string]any)
	if resp.StatusCode != 429 || e["type"] != "usage_limit_reached" || int64(e["resets_at"].(float64)) != reset.Unix() ||
		resp.Header.Get("x-codex-primary-reset-at") != itoa(reset.Unix()) {
		t.Errorf("openai: %d %v %v", resp.StatusCode, m, resp.Header)
	}
	resp, m = postResp(t, s.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", `{}`)
	e, _ = m["error"].(map[string]any)
	if resp.StatusCode != 429 || e["status"] != "RESOURCE_EXHAUSTED" || e["code"] != float64(429) {
		t.Errorf("gemini: %d %v", resp.StatusCode, m)
	}
	if resp, m := postResp(t, s.URL+"/v1/messages/count_tokens", `{}`); resp.StatusCode != 200 || m["input_tokens"] == nil {
		t.Errorf("count_tokens refused: %d %v", resp.StatusCode, m)
	}
	if n := s.Refused(); n != 3 {
		t.Errorf("Refused() = %d, want 3", n)
	}
	s.Refuse(Refusal{Status: 529})
	if resp, m := postResp(t, s.URL+"/v1/messages", `{"stream":false,"messages":[]}`); resp.StatusCode != 529 || m["error"].(map[string]any)["type"] != "overloaded_error" {
		t.Errorf("529: %d %v", resp.StatusCode, m)
	}
	s.Refuse(Refusal{})
	if a := post(t, s.URL+"/v1/messages", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`); !strings.Contains(a, "message_stop") {
		t.Errorf("after the refusal ended:\n%s", a)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
