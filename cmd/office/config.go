package main

// config.go is `office config show [--json]`: every setting of the office
// file with its value and where it came from (configs.FormatSettings does
// the work).

import (
	"github.com/spf13/cobra"

	"office/configs"
)

// newConfigCmd is `office config`, grouping `show`.
func newConfigCmd(e *env, g *globals) *cobra.Command {
	c := groupCmd(&cobra.Command{
		Use:   "config",
		Short: "the office file's settings (run 'office config show')",
	})
	var asJSON bool
	show := &cobra.Command{
		Use:   "show",
		Short: "every setting with its value, its source (default, FILE:LINE or a built-in profile) and the rule it comes from",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			cfg, _, err := loadConfig(g, e)
			if err != nil {
				return err
			}
			return configs.FormatSettings(e.stdout, cfg, asJSON)
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.AddCommand(show)
	return c
}
