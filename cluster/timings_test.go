package cluster_test

import (
	"testing"

	"office/cluster"
)

// TestLivenessTimings holds the relations the liveness timings' reasons
// rely on (cluster/node.go, cluster/server.go): a change of one that breaks
// another's reason fails here.
func TestLivenessTimings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		what string
		ok   bool
	}{
		{"Unreachable tolerates two missed heartbeats (>= 3 RosterEvery)", cluster.Unreachable >= 3*cluster.RosterEvery},
		{"a route is retried within Unreachable", cluster.RouteRetry < cluster.Unreachable},
		{"the inbound fetch waits no longer than the outbox retry", cluster.FetchWait <= cluster.OutboxEvery},
		{"a NATS call outlasts a heartbeat period", cluster.OpTimeout > cluster.RosterEvery},
		{"the ack wait is far past one NATS call", cluster.AckWait >= 4*cluster.OpTimeout},
		{"a reconnect attempt is sooner than a heartbeat", cluster.ReconnectWait < cluster.RosterEvery},
	} {
		if !c.ok {
			t.Errorf("%s: RosterEvery %v Unreachable %v OutboxEvery %v FetchWait %v OpTimeout %v AckWait %v ReconnectWait %v RouteRetry %v",
				c.what, cluster.RosterEvery, cluster.Unreachable, cluster.OutboxEvery, cluster.FetchWait, cluster.OpTimeout,
				cluster.AckWait, cluster.ReconnectWait, cluster.RouteRetry)
		}
	}
}
