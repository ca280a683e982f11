package configs

// The embedded default office (default.toml): the office `office` runs when
// no --config is given.

import (
	_ "embed"
	"slices"
)

//go:embed default.toml
var defaultTOML []byte

// DefaultPath is the Path of the config Default returns.
const DefaultPath = "(embedded default)"

// Default parses the embedded default office: optional claude, codex and
// gemini agents (profiles of the same names) and a fallback shell agent.
// Resolve it against PATH before use. An error means the embedded file is
// broken, which the package's tests rule out.
func Default() (*Config, error) {
	return parse(DefaultPath, "", defaultTOML)
}

// DefaultTOML returns the text of the embedded default office, a fresh copy
// (for `office config show` and as a starting point for a user's file).
func DefaultTOML() []byte {
	return slices.Clone(defaultTOML)
}
