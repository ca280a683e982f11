package ui

import (
	"testing"

	"office/configs"
)

// Starting the server again from the UI waits the bound `office start` waits.
func TestServerStartTimeoutIsTheStartWait(t *testing.T) {
	t.Parallel()
	if serverStartTimeout != configs.StartWait {
		t.Fatalf("the UI waits %v to start a server, office start %v: one value", serverStartTimeout, configs.StartWait)
	}
}
