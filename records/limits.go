package records

// Usage limits in the CLIs' own records (docs/limits.md): the strongest
// evidence of a limit and of its reset, before the screen's banner.

import (
	"bytes"
	"encoding/json"
	"time"
)

// Limit is a usage limit a CLI recorded.
type Limit struct {
	// At is when the record was written.
	At time.Time
	// Reset is when the exhausted window resets.
	Reset time.Time
	// Window is the exhausted window's length (Codex's window_minutes).
	Window time.Duration
}

// CodexLimit returns the usage limit the newest rollout of loc.Dir records
// last: its last token_count event's rate_limits, when a window (primary
// or secondary) is at 100% used with a resets_at; of two such windows, the
// one that resets later. ok is false when the last event with rate limits
// shows none exhausted, or there is none.
func CodexLimit(loc Locator) (Limit, bool, error) {
	return lastLimit(codexRollout(loc), loc.Tail, `"rate_limits"`, codexLimitLine)
}

// lastLimit reads the file at path (its last tail bytes) and returns what
// the last line that read says of a usage limit: read reports seen for a
// line that says anything (a limit, ok, or none), and only lines holding
// mark are read. An empty path is no record.
func lastLimit(path string, tailBytes int64, mark string, read func([]byte) (Limit, bool, bool)) (Limit, bool, error) {
	if path == "" {
		return Limit{}, false, nil
	}
	b, err := tail(path, tailBytes)
	if err != nil {
		return Limit{}, false, err
	}
	var last Limit
	found := false
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if !bytes.Contains(line, []byte(mark)) {
			continue
		}
		if l, ok, seen := read(line); seen {
			last, found = l, ok
		}
	}
	return last, found, nil
}

// codexWindow is one rate-limit window of a rollout's token_count event.
type codexWindow struct {
	UsedPercent   float64 `json:"used_percent"`
	WindowMinutes int64   `json:"window_minutes"`
	ResetsAt      int64   `json:"resets_at"`
}

// codexLimitLine reads one rollout line: seen when it is a token_count
// event with rate limits, ok when a window of them is exhausted.
func codexLimitLine(line []byte) (l Limit, ok, seen bool) {
	var ev struct {
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Payload   struct {
			Type       string `json:"type"`
			RateLimits *struct {
				Primary   *codexWindow `json:"primary"`
				Secondary *codexWindow `json:"secondary"`
			} `json:"rate_limits"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type != "event_msg" || ev.Payload.Type != "token_count" || ev.Payload.RateLimits == nil {
		return Limit{}, false, false
	}
	l.At = parseTime(ev.Timestamp)
	for _, w := range []*codexWindow{ev.Payload.RateLimits.Primary, ev.Payload.RateLimits.Secondary} {
		if w == nil || w.UsedPercent < 100 || w.ResetsAt <= 0 {
			continue
		}
		if r := time.Unix(w.ResetsAt, 0); r.After(l.Reset) {
			l.Reset, l.Window, ok = r, time.Duration(w.WindowMinutes)*time.Minute, true
		}
	}
	return l, ok, true
}

// ClaudeLimit returns the usage limit Claude Code's transcript of
// loc.SessionID records last: an assistant row flagged as an API error
// (isApiErrorMessage) whose apiError is usage_limit_reached, with the
// reset of its apiErrorParams.rate_limit_info.resetsAt (epoch seconds, or
// milliseconds) when it has one. ok is false when the last assistant row
// is not such a row, or there is none. The row's shape is read from the
// pinned Claude Code (2.1.332); Claude writes it only for a subscription
// login, which no offline test reaches (docs/limits.md).
func ClaudeLimit(loc Locator) (Limit, bool, error) {
	return lastLimit(claudeTranscript(loc), loc.Tail, `"assistant"`, claudeLimitLine)
}

// claudeLimitLine reads one transcript line: seen when it is an assistant
// row, ok when it is a usage limit's API error.
func claudeLimitLine(line []byte) (l Limit, ok, seen bool) {
	var r struct {
		Type           string `json:"type"`
		Timestamp      string `json:"timestamp"`
		IsAPIError     bool   `json:"isApiErrorMessage"`
		APIError       string `json:"apiError"`
		APIErrorParams struct {
			Info struct {
				ResetsAt float64 `json:"resetsAt"`
			} `json:"rate_limit_info"`
		} `json:"apiErrorParams"`
	}
	if json.Unmarshal(line, &r) != nil || r.Type != "assistant" {
		return Limit{}, false, false
	}
	if !r.IsAPIError || r.APIError != "usage_limit_reached" {
		return Limit{}, false, true
	}
	l.At = parseTime(r.Timestamp)
	switch at := int64(r.APIErrorParams.Info.ResetsAt); {
	case at > 1e12:
		l.Reset = time.UnixMilli(at)
	case at > 0:
		l.Reset = time.Unix(at, 0)
	}
	return l, true, true
}
