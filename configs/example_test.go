package configs_test

import (
	"errors"
	"fmt"
	"os/exec"

	"office/configs"
)

// An office with a lead on Claude Code, a Codex helper that reports to it,
// and a custom command; resolved against a PATH that has no codex.
func Example() {
	src := `
[[agent]]
name = "lead"
profile = "claude"

[[agent]]
name = "helper"
profile = "codex"
parent = "lead"
optional = true

[[agent]]
name = "tests"
command = ["make", "watch"]
`
	cfg, err := configs.Parse("office.toml", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	onPath := func(prog string) (string, error) {
		if prog == "codex" {
			return "", exec.ErrNotFound
		}
		return "/usr/bin/" + prog, nil
	}
	office, notice, err := cfg.Resolve(onPath)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(notice)
	for _, a := range office.Agents {
		argv, _ := office.Argv(a)
		fmt.Println(a.Name, a.Profile, argv)
	}
	// Output:
	// not on PATH, skipped: helper (codex)
	// lead claude [claude]
	// tests custom [make watch]
}

// Errors name the file and the line.
func ExampleParse_error() {
	src := `[[agent]]
name = "x"
profile = "foo"
`
	_, err := configs.Parse("office.toml", []byte(src))
	fmt.Println(err)
	var e *configs.Error
	if errors.As(err, &e) {
		fmt.Println(e.File, e.Line)
	}
	// Output:
	// office.toml:3: agent "x": unknown profile "foo" (known: claude, codex, custom, gemini, shell)
	// office.toml 3
}

// A [profile.NAME] table for a built-in profile changes only the keys it
// sets.
func ExampleParse_profileOverride() {
	src := `[profile.gemini]
paste_enter_delay = "1s"
`
	cfg, err := configs.Parse("office.toml", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	g := cfg.Profiles["gemini"]
	fmt.Println(g.PasteEnterDelay, g.EnterDelay, g.Compact)
	// Output:
	// 1s 150ms [/compress]
}
