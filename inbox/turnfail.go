package inbox

// A turn that ended on an API error (docs/limits.md): the CLI said the
// model refused the call (429 rate limited, 529 overloaded, a 5xx, a usage
// limit). The parent's notice says the turn failed, with the CLI's text,
// and a request the turn was to answer, with no reply, fails with that
// text rather than no_reply_found.

import (
	"strings"

	"office/queue"
)

// ReasonTurnFailed starts the reason of a request whose receiver's turn
// ended on an API error; the CLI's error text follows it.
const ReasonTurnFailed = "turn_failed"

// maxFailedText bounds the runes of the CLI's error text quoted.
const maxFailedText = 300

// failedTurnError is the notice's Error for a turn that failed with text.
func failedTurnError(text string) string {
	return "the turn ended on an API error: " + boundedLine(text)
}

// boundedLine is text on one line, at most maxFailedText runes.
func boundedLine(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if r := []rune(t); len(r) > maxFailedText {
		t = string(r[:maxFailedText]) + "…"
	}
	return t
}

// settleEnded settles working mail m at a turn end: as settle does, except
// that a request with no reply, of a turn that failed (failed != ""),
// fails with the CLI's text.
func (s *Service) settleEnded(tx *queue.Tx, m Mail, failed string) (*Outcome, error) {
	if failed == "" || m.Type != MailRequest {
		return s.settle(tx, m, false)
	}
	ok, err := replyExists(tx, m)
	if err != nil || ok {
		if err != nil {
			return nil, err
		}
		return s.settle(tx, m, false)
	}
	reason := ReasonTurnFailed + ": " + boundedLine(failed)
	changed, err := s.fail(tx, m, reason)
	if err != nil || !changed {
		return nil, err
	}
	m.State = MailFailed
	return &Outcome{Mail: m, State: MailFailed, Reason: reason}, nil
}
