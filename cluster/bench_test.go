package cluster_test

import (
	"context"
	"testing"
	"time"

	"office/cluster"
)

// BenchmarkMailAcrossHosts measures mails per second from host a's outbox
// into host b's inbox (stashed on a, published, stored on b, acked), both
// stores and JetStream fsyncing every write:
//
//	go test -run '^$' -bench MailAcrossHosts -benchtime 200x ./cluster
func BenchmarkMailAcrossHosts(b *testing.B) {
	hs := floor(b, map[string][]string{"a": {"alice"}, "b": {"bob"}}, "a", "b")
	ha, hb := hs[0], hs[1]
	ha.start(b)
	hb.start(b)
	eventually(b, 30*time.Second, "the floor formed", func() (bool, error) {
		_, err := cluster.Lookup(context.Background(), ha.store, "bob")
		return err == nil && hb.node.Ready(), nil
	})
	before, _ := countMail(hb, "bob")
	b.ResetTimer()
	start := time.Now()
	ha.stash(b, cluster.KindMail, "alice", "bob", "b", b.N)
	eventually(b, 5*time.Minute, "every mail on b", func() (bool, error) {
		n, err := countMail(hb, "bob")
		return n-before == b.N, err
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "mails/s")
}
