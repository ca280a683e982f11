package main

// config.go is `office config show [--json]`: every setting of the office
// file with its value and where it came from (configs.FormatSettings does
// the work).

import (
	"context"

	"office/configs"
)

// runConfig runs `office config show [--json]`.
func runConfig(_ context.Context, e *env, g *globals, args []string) error {
	if len(args) == 0 || args[0] != "show" {
		return usagef("office config: want 'office config show [--json]'")
	}
	rest, asJSON := takeFlag(args[1:], "--json")
	if err := rejectFlags("config show", rest); err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("office config show: unexpected argument %q", rest[0])
	}
	cfg, _, err := loadConfig(g, e)
	if err != nil {
		return err
	}
	return configs.FormatSettings(e.stdout, cfg, asJSON)
}
