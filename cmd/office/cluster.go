package main

// cluster.go lets the store-only commands reach agents of other hosts of a
// floor (the office file's [cluster] table, docs/cluster.md): a receiver
// that is no agent here but is in the floor's last-known roster gets the
// item through this host's outbox (`office status` and `office team` list
// the other hosts' agents with their host: status.go, team.go); `office
// queue` lists the items other hosts refused.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"office/cluster"
	"office/engine"
	"office/inbox"
	"office/queue"
)

// remoteOf returns the floor's member called name when this office is
// clustered and name is no agent of this host (or one this host does not
// run because another host has its name) but one of another host (by the
// last-known roster); ok is false otherwise (the caller goes on as
// on one host, which refuses an unknown name). host is this host's name.
func remoteOf(ctx context.Context, e *env, g *globals, s *queue.Store, name string) (m cluster.Member, host string, ok bool, err error) {
	if name == inbox.Person {
		return cluster.Member{}, "", false, nil
	}
	if g.config != "" {
		cfg, _, err := loadConfig(g, e)
		if err != nil || cfg.Cluster == nil {
			return cluster.Member{}, "", false, err
		}
		host = cfg.Cluster.Host
	} else {
		// An agent's shell runs commands with no office file: the store
		// knows whether a clustered office runs on it, and its host.
		self, ok, err := cluster.Self(ctx, s)
		if err != nil || !ok {
			return cluster.Member{}, "", false, err
		}
		host = self
	}
	rec, err := s.Agent(ctx, name)
	if err == nil && !rec.Removed && rec.Elsewhere == "" {
		return cluster.Member{}, "", false, nil
	}
	m, err = cluster.Lookup(ctx, s, name)
	if errors.Is(err, cluster.ErrNotOnFloor) {
		// A name not run here for another host that has it no longer:
		// the store refuses a send (queue.ElsewhereError) and new mail
		// (inbox's checkRunHere) to it, saying so; exit 2.
		return cluster.Member{}, "", false, nil
	}
	if err != nil {
		return cluster.Member{}, "", false, err
	}
	if rec.Elsewhere != "" {
		fmt.Fprintf(e.stderr, "office: this host does not run its agent %s (host %s has that name; office team rm %s removes it here): for %s on host %s\n",
			name, rec.Elsewhere, name, name, m.Host)
	}
	return m, host, true, nil
}

// stashRemote stores it in the outbox (with the idempotency key when set,
// fingerprint fp: engine.StashRemote) and tells the person it is stored,
// not delivered.
func stashRemote(ctx context.Context, e *env, dir string, s *queue.Store, it cluster.Item, key, fp string) error {
	k, err := engine.StashRemote(ctx, s, it, key, fp, nil)
	return stashed(e, dir, it, key, k, err)
}

// stashed tells the person what a stash for another host (it, with the
// idempotency key when set) did: k, or err (bad input is exit 2).
func stashed(e *env, dir string, it cluster.Item, key string, k engine.Keyed, err error) error {
	if errors.Is(err, queue.ErrKeyConflict) || errors.Is(err, queue.ErrBlank) || errors.Is(err, queue.ErrTooLarge) {
		return &inputError{fmt.Errorf("%s to %q: %w", it.Kind, it.To, err)}
	}
	if err != nil {
		return fmt.Errorf("%s to %q: %w", it.Kind, it.To, err)
	}
	if k.Prev != "" {
		fmt.Fprintf(e.stderr, "office: not sent again: %v\n", &queue.KeyUsedError{Key: key, ExistingID: k.Prev})
		fmt.Fprintln(e.stdout, k.Prev)
		return nil
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, k.ID)
	fmt.Fprintf(e.stderr, "office: %s %s for %s on host %s stored (sent when host %s takes it)\n", it.Kind, k.ID, it.To, it.ToHost, it.ToHost)
	return nil
}

// refusedShown bounds the refusals `office queue` prints (the newest).
const refusedShown = 20

// printRefused prints the items of this host that another host of the
// floor refused (cluster.Refused), the newest refusedShown, of agent when
// set; nothing for an office without a cluster or with none refused.
func printRefused(ctx context.Context, e *env, s *queue.Store, agent string) error {
	rs, err := cluster.Refused(ctx, s)
	if err != nil {
		return err
	}
	var shown []cluster.Refusal
	for _, r := range rs {
		if agent == "" || r.Sender == agent || r.Receiver == agent {
			shown = append(shown, r)
		}
	}
	if len(shown) == 0 {
		return nil
	}
	if len(shown) > refusedShown {
		shown = shown[len(shown)-refusedShown:]
	}
	fmt.Fprintln(e.stdout, "\nrefused by other hosts (ended here):")
	tw := newTable(e.stdout)
	fmt.Fprintln(tw, "ID\tKIND\tFROM\tTO\tAGE\tWHY")
	for _, r := range shown {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\trefused by host %s: %s\n", r.ID, r.Kind, cell(r.Sender, 0), cell(r.Receiver, 0)+"@"+cell(r.Host, 0),
			age(time.Since(r.At)), cell(r.Host, 0), cell(r.Reason, 80))
	}
	return tw.Flush()
}
