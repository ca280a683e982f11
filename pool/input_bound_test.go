package pool_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"office/pool"
)

// The person's keys for an agent that does not read its PTY are bounded:
// the sender waits once MaxQueuedInput bytes are queued (the client
// grew the server by 3.6 GB in 20 s); a paste past the bound is refused at
// once, none of it typed; another agent's keys go through meanwhile.
func TestPersonsInputIsBounded(t *testing.T) {
	t.Parallel()
	// The child puts its terminal in raw mode and never reads.
	hung, err := pool.Start(pool.Options{Name: "hung", Env: testEnv(),
		Argv: []string{"sh", "-c", "stty raw -echo; echo ready; exec sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	waitFor(t, 5*time.Second, "raw mode", func() bool { return strings.Contains(hung.Text(), "ready") })
	other, err := pool.Start(pool.Options{Name: "cat", Env: testEnv(), Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	// Too large for the bound: refused whole, even with the queue empty.
	err = hung.InputContext(context.Background(), make([]byte, pool.MaxQueuedInput+1))
	var big *pool.InputTooLargeError
	if !errors.As(err, &big) || big.Len != pool.MaxQueuedInput+1 {
		t.Fatalf("a paste of MaxQueuedInput+1 bytes: %v, want an *InputTooLargeError", err)
	}

	// 1,000-byte frames, as the client sent, until the sender is
	// held: the wait ends only with ctx (the deadline ends the test, it
	// measures nothing). Far more than the bound is offered.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	chunk := bytes.Repeat([]byte("x"), 1000)
	accepted := 0
	for accepted < 4*pool.MaxQueuedInput {
		if err = hung.InputContext(ctx, chunk); err != nil {
			break
		}
		accepted += len(chunk)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("after %d bytes: %v, want the sender held until its deadline", accepted, err)
	}
	// What was taken is the bound plus what the PTY itself buffers.
	if accepted < pool.MaxQueuedInput || accepted > pool.MaxQueuedInput+256<<10 {
		t.Fatalf("took %d bytes before holding the sender, want about MaxQueuedInput (%d)", accepted, pool.MaxQueuedInput)
	}

	// Another agent's keys are not held.
	if err := other.InputContext(context.Background(), []byte("still typed\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the other agent's echo", func() bool { return strings.Contains(other.Text(), "still typed") })

	// The held agent's exit frees a waiting sender with ErrExited.
	res := make(chan error, 1)
	go func() { res <- hung.InputContext(context.Background(), chunk) }()
	hung.Close()
	if err := <-res; !errors.Is(err, pool.ErrClosed) && !errors.Is(err, pool.ErrExited) {
		t.Fatalf("a sender waiting when the terminal closed: %v", err)
	}
}
