package engine

// ProbeTyped returns the message agent's pending probe file in state keeps
// (ok false: none, or no message typed into the probe yet).
func ProbeTyped(state, agent string) (id int64, ok bool) {
	e := &Engine{opts: Options{StateDir: state}}
	p, found, err := e.loadProbe(agent)
	if err != nil || !found || p.Message == nil {
		return 0, false
	}
	return p.Message.ID, true
}
