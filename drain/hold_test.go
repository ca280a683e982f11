package drain_test

import (
	"testing"

	"office/automation"
	"office/drain"
)

// The block holds are the automation block words: one vocabulary.
func TestBlockHoldIsTheBlocksWord(t *testing.T) {
	for _, b := range []automation.Block{automation.BlockNone, automation.BlockExited, automation.BlockPicker, automation.BlockDraft, automation.BlockSettling} {
		if got := drain.BlockHold(b); string(got) != b.String() {
			t.Errorf("BlockHold(%d) = %q, want %q", b, got, b.String())
		}
	}
	if drain.BlockHold(automation.BlockExited) != drain.HoldExited || drain.BlockHold(automation.BlockNone) != drain.HoldNone {
		t.Error("the exited block is not the exited hold, or no block is a hold")
	}
}
