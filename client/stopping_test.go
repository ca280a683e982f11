package client_test

import (
	"errors"
	"fmt"
	"testing"

	"office/client"
	"office/wire"
)

// TestStoppingIsTheOfficesGoodbye: a stop whose reply lost the
// race with the goodbye of the stop it began (or whose connection was
// refused as the office stops) waits for the office to be gone; any other
// goodbye or refusal is an error.
func TestStoppingIsTheOfficesGoodbye(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("engine: stop: %w", &client.ByeError{Reason: wire.ReasonStopping}), true},
		{fmt.Errorf("engine: stop: %w", &wire.Refused{Reason: wire.ReasonStopping}), true},
		{fmt.Errorf("engine: stop: %w", &client.ByeError{Reason: "the store was lost"}), false},
		{fmt.Errorf("engine: stop: %w", &wire.Refused{Reason: wire.VersionMismatch(2, 3)}), false},
		{errors.New(wire.ReasonStopping), false}, // words alone are no goodbye
	} {
		if got := client.Stopping(tc.err); got != tc.want {
			t.Errorf("client.Stopping(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
