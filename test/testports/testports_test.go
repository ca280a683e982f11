package testports

import (
	"fmt"
	"net"
	"testing"
)

// Ports handed out to one test are distinct, below the ephemeral range,
// and free to bind.
func TestPortsAreDistinctAndFree(t *testing.T) {
	low, err := ephemeralLow()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for range 5 {
		p := Port(t)
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if p >= low || p < low-span {
			t.Errorf("port %d is outside [%d, %d)", p, low-span, low)
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatalf("port %d: %v", p, err)
		}
		ln.Close()
	}
}

// A port another test holds is not handed out until that test ends; then
// it may be again.
func TestAPortIsHeldUntilItsTestEnds(t *testing.T) {
	var held int
	t.Run("holder", func(t *testing.T) {
		held = Port(t)
		for range 3 {
			if p := Port(t); p == held {
				t.Fatalf("port %d handed out while held", p)
			}
		}
	})
	// The subtest has ended: its ports are free to be handed out again
	// (the lowest-numbered free one first is not promised; that one of
	// the next few is held's is, unless another process takes it).
	for range 4 {
		if Port(t) == held {
			return
		}
	}
	t.Skipf("port %d not handed out again: another test process may hold it now", held)
}
