package engine

import (
	"context"
	"testing"

	"office/pool"
)

// The restarts' book: an exit is handled once until the terminal is
// forgotten, and each agent has one history.
func TestRestartsBook(t *testing.T) {
	t.Parallel()
	var r restarts
	term := &pool.Terminal{}
	if r.markExit(term) {
		t.Error("a first exit reads as handled already")
	}
	if !r.markExit(term) {
		t.Error("a second exit of the same terminal reads as new")
	}
	r.forgetExit(term)
	if r.markExit(term) {
		t.Error("an exit after forgetExit reads as handled already")
	}
	if a, b := r.of("a"), r.of("a"); a != b || a == r.of("b") {
		t.Error("an agent's restart history is not one per agent")
	}
}

// Without a [cluster] table the floor link is off and each of its calls
// does nothing (no node to wake, run or close).
func TestFloorOffDoesNothing(t *testing.T) {
	t.Parallel()
	var f floor
	if f.on() {
		t.Fatal("a floor with no node reads as on")
	}
	f.wake()
	f.run(context.Background()) // returns at once
	f.close()
}
