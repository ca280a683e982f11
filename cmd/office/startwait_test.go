package main

import (
	"testing"

	"office/configs"
)

// Every way of starting a server waits one bound for it to answer (they
// were 60 s here and 90 s in the UI).
func TestStartWaitIsOneValue(t *testing.T) {
	t.Parallel()
	if startWait != configs.StartWait || dialWait != configs.StartWait {
		t.Fatalf("start waits %v, the UI's dial %v; want both configs.StartWait (%v)", startWait, dialWait, configs.StartWait)
	}
}
