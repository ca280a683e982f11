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
// fingerprint fp) and tells the person it is stored, not delivered. also,
// when set, runs in the same transaction with the item's id (mail keeps
// this host's envelope of it).
func stashRemote(ctx context.Context, e *env, dir string, s *queue.Store, it cluster.Item, key, fp string, also func(tx *queue.Tx, id string) error) error {
	var id, prev string
	err := s.Update(ctx, func(tx *queue.Tx) error {
		if key != "" {
			var err error
			if prev, err = tx.KeyedID(key, fp); err != nil || prev != "" {
				return err
			}
		}
		var err error
		if id, err = cluster.StashTx(tx, it); err != nil {
			return err
		}
		if also != nil {
			if err := also(tx, id); err != nil {
				return err
			}
		}
		if key != "" {
			return tx.RecordKey(key, fp, id)
		}
		return nil
	})
	if errors.Is(err, queue.ErrKeyConflict) || errors.Is(err, queue.ErrBlank) || errors.Is(err, queue.ErrTooLarge) {
		return &inputError{fmt.Errorf("%s to %q: %w", it.Kind, it.To, err)}
	}
	if err != nil {
		return fmt.Errorf("%s to %q: %w", it.Kind, it.To, err)
	}
	if prev != "" {
		fmt.Fprintf(e.stderr, "office: not sent again: %v\n", &queue.KeyUsedError{Key: key, ExistingID: prev})
		fmt.Fprintln(e.stdout, prev)
		return nil
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, id)
	fmt.Fprintf(e.stderr, "office: %s %s for %s on host %s stored (sent when host %s takes it)\n", it.Kind, id, it.To, it.ToHost, it.ToHost)
	return nil
}

// replyRemote answers a request that crossed to this host from another
// (cluster.ReplyTx): the reply goes back to the sender's host. ok is false
// when request id did not cross (the caller replies as on one host).
func replyRemote(ctx context.Context, e *env, svc *inbox.Service, s *queue.Store, dir, from, id, text string) (ok bool, err error) {
	origin, crossed, err := cluster.Origin(ctx, s, id)
	if err != nil || !crossed {
		return false, err
	}
	// An agent's shell runs this with no office file: the store knows the host.
	self, ok, err := cluster.Self(ctx, s)
	if err != nil || !ok {
		return false, err
	}
	orig, _, err := svc.GetMail(ctx, id)
	if err != nil {
		return true, inboxErr(fmt.Errorf("mail reply: %w", err))
	}
	var rid string
	err = s.Update(ctx, func(tx *queue.Tx) error {
		var err error
		rid, err = cluster.ReplyTx(tx, svc, self, origin, from, orig, text)
		return err
	})
	if errors.Is(err, queue.ErrBlank) || errors.Is(err, queue.ErrTooLarge) {
		return true, &inputError{fmt.Errorf("mail reply: %w", err)}
	}
	if err != nil {
		return true, inboxErr(fmt.Errorf("mail reply: %w", err))
	}
	engine.Poke(dir)
	fmt.Fprintln(e.stdout, rid)
	fmt.Fprintf(e.stderr, "office: reply %s stored (sent to %s on host %s when host %s takes it)\n", rid, orig.Sender, origin, origin)
	return true, nil
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
