package main

// inbox.go is `office inbox`. (Not built yet: see the open issue.)

import (
	"context"
	"errors"
)

func runInbox(ctx context.Context, e *env, g *globals, args []string) error {
	return errors.New("office inbox: not available yet")
}
