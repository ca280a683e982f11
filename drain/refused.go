package drain

// A refused probe (docs/limits.md, "Resuming"): when a usage-limited
// account resumes, the first queued message is the probe. If the CLI
// refuses its turn without running it (the limit banner is the turn's whole
// answer, as the engine judges at the turn's end), the message was not
// taken: it goes back to the head of its queue, no attempt counted, and the
// new banner's hold backs off. The drain only remembers what it typed; the
// judgment is the engine's (engine/apierror.go, probeRefused).

import (
	"context"
	"errors"
	"fmt"

	"office/queue"
)

// Requeuer is the store's side of a refused probe (queue.Store.Requeue).
type Requeuer interface {
	Requeue(ctx context.Context, m queue.Message, why string) error
}

// ErrNotRemembered: the message is not the last one the drain recorded
// delivered to that agent (or its text is not known any more), so it
// cannot be put back; it stays delivered.
var ErrNotRemembered = errors.New("not the agent's last delivered message")

// Refused puts message id, the last one recorded delivered to agent name,
// back at the head of the agent's queue: its turn was refused without
// running. why is the event's detail. Only a plain message the drain
// itself recorded delivered is put back, and only once.
func (d *Drainer) Refused(ctx context.Context, name string, id int64, why string) error {
	rq, ok := d.cfg.Store.(Requeuer)
	if !ok {
		return errors.New("the store cannot requeue")
	}
	d.mu.Lock()
	st := d.stateLocked(name)
	m := st.delivered
	if m.ID != id || m.ID == 0 {
		if st.inFlight {
			// The turn ended before its delivery was recorded: the
			// delivery puts it back once it is (requeueRefused).
			st.refused = map[int64]string{id: why}
			d.mu.Unlock()
			return nil
		}
		d.mu.Unlock()
		return fmt.Errorf("message %d for %s: %w", id, name, ErrNotRemembered)
	}
	if m.Kind != queue.KindPlain {
		d.mu.Unlock()
		return fmt.Errorf("message %d for %s is an inbox delivery: its mail settles as a failed turn", id, name)
	}
	st.delivered = queue.Message{}
	d.mu.Unlock()
	return d.requeue(ctx, rq, name, m, why)
}

// requeueRefused puts m back if its turn was refused before its delivery
// was recorded (Refused while it was in flight); called once it is.
func (d *Drainer) requeueRefused(ctx context.Context, name string, m queue.Message) {
	d.mu.Lock()
	st := d.stateLocked(name)
	why, ok := st.refused[m.ID]
	st.refused = nil
	if ok {
		st.delivered = queue.Message{}
	}
	d.mu.Unlock()
	rq, can := d.cfg.Store.(Requeuer)
	if !ok || !can || m.Kind != queue.KindPlain {
		return
	}
	if err := d.requeue(ctx, rq, name, m, why); err != nil {
		d.log.Error("putting a refused message back", "agent", name, "msg", m.ID, "err", err)
	}
}

func (d *Drainer) requeue(ctx context.Context, rq Requeuer, name string, m queue.Message, why string) error {
	if err := rq.Requeue(ctx, m, why); err != nil {
		return err
	}
	d.log.Info("the CLI refused the turn; the message is back at the head of its queue", "agent", name, "msg", m.ID, "why", why)
	d.Wake()
	return nil
}

// LastDelivered returns the last message recorded delivered to agent name,
// as typed, while the drain still remembers it (ok false: none).
func (d *Drainer) LastDelivered(name string) (queue.Message, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := d.stateLocked(name).delivered
	return m, m.ID != 0
}
