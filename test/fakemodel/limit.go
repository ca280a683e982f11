package fakemodel

// The limit mode: every model call is refused the way each vendor refuses
// it when the account is out of quota or the service is overloaded
// (docs/limits.md), so a test can drive a real CLI into its usage-limit
// banner or its API-error text, and out again (Refuse with the zero
// Refusal).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Refusal is how the server refuses model calls. The zero value refuses
// nothing.
type Refusal struct {
	// Status is the HTTP status: 429 (rate limit / usage limit), 529
	// (Anthropic overloaded) or a 5xx; 0 refuses nothing.
	Status int
	// Reset is when the limit resets, sent in each vendor's reset header or
	// body field (zero: an hour from the refusal).
	Reset time.Time
}

// Refuse makes later model calls (every route but the count-tokens ones)
// answer r; the zero Refusal ends it.
func (s *Server) Refuse(r Refusal) {
	s.mu.Lock()
	s.refusal = r
	s.mu.Unlock()
}

// Refused returns how many calls were refused.
func (s *Server) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// refuse answers a model call of dialect with r, at now.
func refuse(w http.ResponseWriter, dialect string, r Refusal, now time.Time) {
	reset := r.Reset
	if reset.IsZero() {
		reset = now.Add(time.Hour)
	}
	secs := max(int64(reset.Sub(now).Seconds()), 0)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	var body any
	switch dialect {
	case "anthropic":
		typ, msg := "rate_limit_error", "This request would exceed your account's rate limit. Please try again later."
		switch {
		case r.Status == 529:
			typ, msg = "overloaded_error", "Overloaded"
		case r.Status >= 500:
			typ, msg = "api_error", "Internal server error"
		default:
			h.Set("retry-after", strconv.FormatInt(secs, 10))
			h.Set("anthropic-ratelimit-unified-status", "rejected")
			h.Set("anthropic-ratelimit-unified-reset", strconv.FormatInt(reset.Unix(), 10))
		}
		body = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	case "openai":
		if r.Status == http.StatusTooManyRequests {
			h.Set("x-codex-primary-used-percent", "100")
			h.Set("x-codex-primary-window-minutes", "300")
			h.Set("x-codex-primary-reset-after-seconds", strconv.FormatInt(secs, 10))
			h.Set("x-codex-primary-reset-at", strconv.FormatInt(reset.Unix(), 10))
			body = map[string]any{"error": map[string]any{"type": "usage_limit_reached", "message": "The usage limit has been reached",
				"plan_type": "plus", "resets_at": reset.Unix(), "resets_in_seconds": secs}}
		} else {
			body = map[string]any{"error": map[string]any{"type": "server_error", "message": "The server had an error processing your request."}}
		}
	case "gemini":
		status, msg := "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
		if r.Status >= 500 {
			status, msg = "UNAVAILABLE", "The model is overloaded. Please try again later."
		}
		body = map[string]any{"error": map[string]any{"code": r.Status, "message": msg, "status": status}}
	default:
		body = map[string]any{"error": map[string]any{"message": fmt.Sprintf("fakemodel: refused (%d)", r.Status)}}
	}
	b, _ := json.Marshal(body)
	w.WriteHeader(r.Status)
	w.Write(b)
}
