package engine

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// A lock released by Close can be taken again at once, even while the same
// process is starting children: a child between fork and exec holds a copy of
// every descriptor (close-on-exec ones too, until the exec), and with it the
// lock's open file description. The engine must not then report "another
// office is running" for a directory no engine holds.
func TestLockRetakenWhileChildrenStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				// A working directory lengthens the child's time between
				// fork and exec a little, as an agent's start does.
				cmd := exec.Command("true")
				cmd.Dir = dir
				_ = cmd.Run()
			}
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	deadline := time.Now().Add(500 * time.Millisecond)
	n := 0
	for time.Now().Before(deadline) {
		f, err := lockState(dir)
		if err != nil {
			t.Fatalf("lock taken %d times, then: %v", n, err)
		}
		unlockState(f)
		n++
	}
	t.Logf("lock taken and released %d times", n)
}
