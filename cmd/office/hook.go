package main

// hook.go is `office hook`. (Not built yet: see the open issue.)

import (
	"context"
	"errors"
)

func runHook(ctx context.Context, e *env, g *globals, args []string) error {
	return errors.New("office hook: not available yet")
}
