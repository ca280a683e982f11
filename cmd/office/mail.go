package main

// mail.go is `office mail`. (Not built yet: see the open issue.)

import (
	"context"
	"errors"
)

func runMail(ctx context.Context, e *env, g *globals, args []string) error {
	return errors.New("office mail: not available yet")
}
