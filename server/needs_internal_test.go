package server

import (
	"testing"
	"time"

	"office/wire"
)

func TestNeedsEventsSayAddedAndClearedOnce(t *testing.T) {
	t.Parallel()
	var st loopState
	now := time.Now()
	a := wire.Need{Agent: "a", Reason: wire.NeedDialog, Since: now}
	b := wire.Need{Agent: "b", Reason: wire.NeedHeld, Ref: "4", Since: now}
	if evs := needsEvents(&st, []wire.Need{a}, true, now); len(evs) != 0 {
		t.Fatalf("first pass: %+v, want none (the state carries the list)", evs)
	}
	evs := needsEvents(&st, []wire.Need{a, b}, false, now)
	if len(evs) != 1 || evs[0].Kind != wire.NeedAdded || evs[0].Agent != "b" || evs[0].MsgID != 4 || evs[0].Type != wire.EventNeeds {
		t.Fatalf("b added: %+v", evs)
	}
	if evs := needsEvents(&st, []wire.Need{a, b}, false, now); len(evs) != 0 {
		t.Fatalf("nothing changed: %+v", evs)
	}
	evs = needsEvents(&st, []wire.Need{b}, false, now)
	if len(evs) != 1 || evs[0].Kind != wire.NeedCleared || evs[0].Agent != "a" || evs[0].Detail != wire.NeedDialog {
		t.Fatalf("a cleared: %+v", evs)
	}
}
