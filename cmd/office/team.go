package main

// team.go is `office team`. (Not built yet: see the open issue.)

import (
	"context"
	"errors"
)

func runTeam(ctx context.Context, e *env, g *globals, args []string) error {
	return errors.New("office team: not available yet")
}
