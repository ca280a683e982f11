package engine

import (
	"testing"

	"office/server"
)

// TestCallTimings holds the relations RemoteApproveWait's reason relies on:
// a cross-host approval answers "stored" within the op's bound, and the op's
// bound ends before the command's call gives up.
func TestCallTimings(t *testing.T) {
	t.Parallel()
	if RemoteApproveWait > server.OpTimeout || server.OpTimeout >= callTimeout {
		t.Errorf("RemoteApproveWait %v, server.OpTimeout %v, callTimeout %v: want RemoteApproveWait <= server.OpTimeout < callTimeout",
			RemoteApproveWait, server.OpTimeout, callTimeout)
	}
}
