package inbox

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// maxOpenListed bounds OpenRequests' and RefusalNotices' answers.
const maxOpenListed = 200

// OpenRequest is a request mail not answered yet, with its text.
type OpenRequest struct {
	Mail
	Body string
}

// OpenRequests returns the request mail to receiver (the person, for the
// needs-you list) that is not final and has no reply from receiver yet,
// oldest first, at most 200.
func (s *Service) OpenRequests(ctx context.Context, receiver string) ([]OpenRequest, error) {
	rows, err := s.store.DB().QueryContext(ctx, `SELECT `+prefixed("m.", mailCols)+`, COALESCE(i.body, '') FROM mail m
		LEFT JOIN inbox_items i ON i.id = m.id
		WHERE m.receiver = ? AND m.type = ? AND m.state NOT IN (?, ?, ?)
		AND NOT EXISTS (SELECT 1 FROM mail r WHERE r.in_reply_to = m.id AND r.sender = m.receiver)
		ORDER BY m.created_seq LIMIT ?`, receiver, MailRequest, MailDone, MailFailed, MailCancelled, maxOpenListed)
	if err != nil {
		return nil, fmt.Errorf("inbox: open requests: %w", err)
	}
	defer rows.Close()
	var out []OpenRequest
	for rows.Next() {
		var r OpenRequest
		var body string
		m, err := scanMail(scanWith{rows, &body})
		if err != nil {
			return nil, fmt.Errorf("inbox: open requests: %w", err)
		}
		r.Mail, r.Body = m, body
		out = append(out, r)
	}
	return out, rows.Err()
}

// RefusalNotices returns the person's unread notices of items another host
// refused, by the refused item's id (their dedupe key is "refused:ID").
func (s *Service) RefusalNotices(ctx context.Context) (map[string]Item, error) {
	items, err := items(ctx, s.store.DB(), `receiver = ? AND state = ? AND dedupe LIKE 'refused:%'`, Person, StatePending)
	if err != nil {
		return nil, fmt.Errorf("inbox: refusal notices: %w", err)
	}
	out := make(map[string]Item, len(items))
	for _, it := range items[:min(len(items), maxOpenListed)] {
		out[strings.TrimPrefix(it.DedupeKey, "refused:")] = it
	}
	return out, nil
}

// scanWith scans a mail row followed by extra columns.
type scanWith struct {
	r     interface{ Scan(...any) error }
	extra *string
}

func (s scanWith) Scan(dst ...any) error { return s.r.Scan(append(dst, s.extra)...) }

// prefixed qualifies each of the comma-separated columns with p.
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// Stalls returns every remembered stall's start, by agent (the stall
// watchdog's rows: see ObserveStall).
func (s *Service) Stalls(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.store.DB().QueryContext(ctx, `SELECT agent, since FROM inbox_stalls`)
	if err != nil {
		return nil, fmt.Errorf("inbox: stalls: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var agent string
		var since int64
		if err := rows.Scan(&agent, &since); err != nil {
			return nil, fmt.Errorf("inbox: stalls: %w", err)
		}
		out[agent] = fromNanos(since)
	}
	return out, rows.Err()
}
