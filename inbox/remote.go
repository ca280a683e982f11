package inbox

// remote.go is where a clustered office (package cluster) plugs into the
// Service: items for receivers on other hosts of the floor, the state
// changes of mail that crossed, and cancels of mail that crossed.

import (
	"fmt"

	"office/queue"
)

// Remote reaches the other hosts of a floor. Each method runs inside the
// transaction of the change that calls it; an error undoes that change.
type Remote interface {
	// MailMoved runs after every state change of an envelope here (m is
	// the envelope before the move).
	MailMoved(tx *queue.Tx, m Mail, to MailState, reason string) error
	// Send stores m (its body already cleaned) for m.To, which is no agent
	// of this host. ok is false when m.To is no agent of another host
	// either; existed is true when m.DedupeKey was used before (id is then
	// the first item's).
	Send(tx *queue.Tx, m Message) (id string, existed, ok bool, err error)
	// Cancel sends the cancel of m by `by` to the host m crossed to and
	// returns that host; "" when m did not cross from here (it is cancelled
	// here).
	Cancel(tx *queue.Tx, m Mail, by string) (host string, err error)
}

// SetRemote plugs r in (call it before the Service is used).
func (s *Service) SetRemote(r Remote) { s.remote = r }

// Cancelled is what CancelMail did.
type Cancelled struct {
	// Host is set when the mail crossed to that host: the cancel was sent
	// there and the envelope here keeps its state until that host reports
	// it cancelled (or the canceller is told it was too late).
	Host string
}

// ReasonRefused: the receiving host refused the mail (its receiver is not
// there any more, the mail breaks that host's rules); the timeline says why.
const ReasonRefused = "refused_by_host"

// NoteTx appends detail to the timeline of mail id in its current state (a
// step that does not move it, such as another host's answer).
func (s *Service) NoteTx(tx *queue.Tx, id, detail string) error {
	m, err := getMail(tx.Context(), tx.SQL(), id)
	if err != nil {
		return fmt.Errorf("inbox: note on %s: %w", id, err)
	}
	if _, err := s.timeline(tx, m.ID, m.State, detail); err != nil {
		return fmt.Errorf("inbox: note on %s: %w", id, err)
	}
	return nil
}

// GetMailTx reads envelope id inside tx (ErrNotFound when there is none).
func (s *Service) GetMailTx(tx *queue.Tx, id string) (Mail, error) {
	return getMail(tx.Context(), tx.SQL(), id)
}
