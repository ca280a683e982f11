package engine

// launch.go adapts an agent's command line and environment to its CLI just
// before it starts: resume ids, per-agent hook settings, worktrees. (Filled
// in with the real-CLI profiles.)

// launch returns the argv, extra environment (KEY=VALUE, appended last) and
// working directory to start a with.
func (e *Engine) launch(a *Agent, argv []string, dir string) ([]string, []string, string, error) {
	return argv, nil, dir, nil
}

// registerHookOps adds the CLI hooks' socket calls (`office hook EVENT`).
func (e *Engine) registerHookOps() {}
