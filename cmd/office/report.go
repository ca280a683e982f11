package main

// report.go is `office report`. (Not built yet: see the open issue.)

import (
	"context"
	"errors"
)

func runReport(ctx context.Context, e *env, g *globals, args []string) error {
	return errors.New("office report: not available yet")
}
