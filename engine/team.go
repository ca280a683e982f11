package engine

// team.go adds and removes agents while the office runs (`office team add`,
// `office team rm`). (Filled in with the team commands.)

// registerTeamOps adds the team's socket calls.
func (e *Engine) registerTeamOps() {}
