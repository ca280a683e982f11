// Package configs is office's configuration: the embedded default office, the
// built-in agent profiles, and the TOML loader that turns an office file into
// a validated Config.
//
// An office file lists agents ([[agent]] tables) and may add or adjust
// profiles ([profile.NAME] tables). A profile is data, not code: how to start
// one agent CLI (program, arguments, environment) and what its screen looks
// like when it is ready, busy, idle or waiting for a human, where its input
// row is, and how it takes Enter. When a CLI changes its UI, a config change
// follows it; no release is needed. The built-in profiles (claude, codex,
// gemini, shell, custom) live in profiles.toml, and the facts they encode are
// cited there (measured on Claude Code 2.1.197, Codex 0.171.0
// and Gemini CLI 0.61.0).
//
// Everything here is a pure function of its inputs (the file's bytes, and
// for Resolve a PATH lookup passed in by the caller). The package keeps no
// mutable state; values it returns are fresh copies the caller may change.
//
// Errors about a file name the file and, where it can be found, the line:
//
//	office.toml:12: agent "x": unknown profile "foo" (known: claude, codex, custom, gemini, shell)
//
// settings.go is the one table of office's tunables (timings, sizes, counts):
// each row's office-file key, default, valid range and the rule it comes
// from. It is their source: Config.Settings is filled from it, the engine
// seeds drain, pool, inbox and its own timers from Config.Settings, packages
// take a zero field's default from Defaults(), and `office config show`
// prints it (FormatSettings).
package configs
