package main

// approve.go is `office approve`. (Not built yet: see the open issue.)

import (
	"context"
	"errors"
)

func runApprove(ctx context.Context, e *env, g *globals, args []string) error {
	return errors.New("office approve: not available yet")
}
