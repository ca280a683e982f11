package wire

import "time"

// The results of the calls a client makes most (docs/protocol.md, "Calls").

// QueuedMessage is one queued message ("queue.list").
type QueuedMessage struct {
	ID        int64     `json:"id"`
	Agent     string    `json:"agent"`
	Text      string    `json:"text"`
	Created   time.Time `json:"created"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error,omitempty"`
	Manual    bool      `json:"manual,omitempty"`
	// Held is why it is not typed now: the drain's hold reason for the
	// head, "queued" behind it, "interrupted", "paused", "next" (the head,
	// nothing holds it, not begun) or "delivering" (being typed now).
	Held string `json:"held"`
}

// EnqueueResult answers "enqueue": the message's id; Duplicate when the same
// text was already queued (it was not queued again).
type EnqueueResult struct {
	ID        int64 `json:"id"`
	Duplicate bool  `json:"duplicate,omitempty"`
}

// MessageFate answers "message": where a queue message is now.
type MessageFate struct {
	ID int64 `json:"id"`
	// State is "queued", a delivery step (DeliverySubmitted,
	// DeliveryVerified, DeliveryNotSubmitted, DeliveryDropped), "removed",
	// or "unknown" (no such message).
	State  string `json:"state"`
	Agent  string `json:"agent,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Seq is the log entry that settled it.
	Seq int64 `json:"seq,omitempty"`
}

// Delivered reports whether the fate is a delivery (submitted or verified).
func (f MessageFate) Delivered() bool {
	return f.State == DeliverySubmitted || f.State == DeliveryVerified
}

// Settled reports whether the message left the queue (for good).
func (f MessageFate) Settled() bool { return f.State != FateQueued && f.State != FateUnknown }
