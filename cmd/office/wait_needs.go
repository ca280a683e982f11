package main

// wait_needs.go is `office wait [AGENT] --until needs`: exit 0 as soon as
// something waits on the person (of AGENT, when given; at once if something
// already does), 1 after --timeout (docs/needs.md).

import (
	"context"
	"fmt"
	"time"

	"office/client"
	"office/wire"
)

func runWaitNeeds(ctx context.Context, e *env, g *globals, agents []string, timeout time.Duration, rf remoteFlags) error {
	tr, err := rf.transport(g, e)
	if err != nil {
		return err
	}
	wctx, timedOut, stop := waitContext(ctx, timeout)
	defer stop()
	check := func(conn *client.Conn) (bool, error) {
		n, ok := firstNeed(conn.State().Needs, agents)
		if ok {
			_, err := fmt.Fprintf(e.stdout, "%s %s: %s\n", n.Agent, n.Reason, n.Excerpt)
			return true, err
		}
		return false, nil
	}
	result := followEvents(wctx, e, tr, agents, 0, false, func(*client.Conn, wire.Event) (bool, error) { return false, nil }, check)
	if timedOut() {
		what := "anything"
		if len(agents) == 1 {
			what = agents[0]
		}
		return fmt.Errorf("wait: nothing of %s needed you within %v", what, timeout)
	}
	return result
}

// firstNeed is the oldest item of needs (of agents[0], when given).
func firstNeed(needs []wire.Need, agents []string) (wire.Need, bool) {
	for _, n := range needs {
		if len(agents) == 0 || n.Agent == agents[0] {
			return n, true
		}
	}
	return wire.Need{}, false
}
