package main

// web.go is `office web`: office in a browser (package web), in the
// foreground, as a client of the state directory's server (started first
// when none runs, as `office` does); `office web pair` pairs a browser,
// `office web sessions` lists the paired ones, `office web revoke` ends them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/skip2/go-qrcode"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"office/client"
	"office/configs"
	"office/engine"
	"office/web"
)

func newWebCmd(e *env, g *globals) *cobra.Command {
	var listen, cert, key string
	var allow []string
	c := &cobra.Command{
		Use:   "web [--listen ADDR] [--tls-cert FILE --tls-key FILE] [--allow-host HOST:PORT]...",
		Short: "serve office to a browser (a phone first): watch, answer, queue; pair with 'office web pair'",
		Long: `Serve office's web page in the foreground, as a client of the state directory's
office server (started first when none runs). Nothing listens on the network
unless asked: by default the page is on the Unix socket STATE/web.sock (0600),
reached through your own tunnel: 'ssh -L 8787:STATE/web.sock HOST' makes it
http://localhost:8787. --listen 127.0.0.1:PORT or [::1]:PORT listens on
loopback TCP; any other address only with --tls-cert and --tls-key. A browser
gets in only after pairing ('office web pair'). docs/web.md says more.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runWeb(c.Context(), e, g, listen, cert, key, allow)
		},
	}
	c.Flags().StringVar(&listen, "listen", "", "listen on this TCP address (a loopback literal, or any with TLS) instead of STATE/web.sock")
	c.Flags().StringVar(&cert, "tls-cert", "", "TLS certificate file (PEM), with --tls-key")
	c.Flags().StringVar(&key, "tls-key", "", "TLS key file (PEM), with --tls-cert")
	c.Flags().StringArrayVar(&allow, "allow-host", nil, "also accept this Host header (HOST:PORT as the browser sends it); repeatable")
	c.AddCommand(newWebPairCmd(e, g), newWebSessionsCmd(e, g), newWebRevokeCmd(e, g))
	return c
}

// webClient is what the web server asks of the office server: only the
// screens a page shows (it subscribes to them), and the event stream (to
// its Watch function: the pages get the newest events).
var webClient = client.Options{Client: "office web", Screens: true, Subscribe: true, Events: true, EventsByWatch: true}

func runWeb(ctx context.Context, e *env, g *globals, listen, cert, key string, allow []string) error {
	dir, err := stateDir(g, e)
	if err != nil {
		return err
	}
	l, err := web.Listen(dir, listen, cert, key, allow)
	if errors.Is(err, web.ErrBadListen) {
		return &inputError{err}
	}
	if err != nil {
		return err
	}
	defer l.Close()
	// The office file the server runs (or is about to) bounds the web
	// server too: its web_* settings.
	cfg, _, err := loadConfig(g, e)
	if err != nil {
		return err
	}
	lim := web.LimitsOf(cfg.Settings)
	if !engine.Running(dir) {
		if err := startServer(ctx, e, g, e.stderr); err != nil && !engine.Running(dir) {
			return err
		}
	}
	sess, err := openLocalAs(ctx, client.Local(dir), dir, webClient)
	if err != nil {
		return err
	}
	defer sess.Close()
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if l.Loud != "" {
		fmt.Fprintln(e.stderr, l.Loud)
	}
	fmt.Fprintf(e.stdout, "office web: listening on %s\n", l.Where)
	if l.URL == "" {
		fmt.Fprintf(e.stdout, "reach it through your tunnel: ssh -L 8787:%s HOST, then http://localhost:8787/\n", l.Addr())
	}
	fmt.Fprintln(e.stdout, "pair a browser with: office web pair")
	if err := serveWeb(ctx, dir, l, sess, log, lim); err != nil {
		return err
	}
	select {
	case <-sess.Done():
		if err := sess.Err(); err != nil {
			var bye *client.ByeError
			if errors.As(err, &bye) && bye.Failure == "" {
				fmt.Fprintln(e.stdout, "office web: the office stopped")
				return nil
			}
			return fmt.Errorf("office web: %w", err)
		}
	default:
	}
	return nil
}

// serveWeb serves the web page on l with sess as its backend, within lim,
// until ctx ends or the office stops; web.json says where it listens
// meanwhile.
func serveWeb(ctx context.Context, dir string, l *web.Listening, sess *client.Session, log *slog.Logger, lim web.Limits) error {
	// The person's keys go over a connection of their own: an agent that
	// stops reading holds that one, never sends, answers and screens.
	keys, err := openLocalAs(ctx, client.Local(dir), dir, web.KeysClient(lim))
	if err != nil {
		return err
	}
	defer keys.Close()
	store := &web.Store{Dir: dir}
	if err := store.SetListen(l.URL); err != nil {
		return err
	}
	defer store.SetListen("")
	srv := web.New(web.Config{Store: store, Backend: web.WithKeys(web.SessionBackend(sess), keys), Hosts: l.Hosts,
		LoopbackAnyPort: l.LoopbackAnyPort, Secure: l.Secure, Mail: web.SessionMail(sess), Log: log, Limits: lim})
	defer srv.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-sess.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := web.Serve(ctx, l, srv.Handler(), lim); err != nil {
		return fmt.Errorf("office web: %w", err)
	}
	return nil
}

// webRunner is the engine's WebRunner for the office file's [web] table:
// the web server as `office web` runs it, in the server's process, a client
// of the server's own socket, logging to the server's log.
// (e and g are serve.go's to hand in; the web server needs neither.)
func webRunner(_ *env, _ *globals, dir string, log *slog.Logger) engine.WebRunner {
	return func(ctx context.Context, w configs.Web, s configs.Settings) error {
		l, err := web.Listen(dir, w.Listen, w.TLSCert, w.TLSKey, w.AllowHost)
		if err != nil {
			return err
		}
		defer l.Close()
		if l.Loud != "" {
			log.Warn(l.Loud)
		}
		sess, err := openLocalAs(ctx, client.Local(dir), dir, webClient)
		if err != nil {
			return err
		}
		defer sess.Close()
		log.Info("web: listening ([web] in the office file); pair a browser with: office web pair", "where", l.Where)
		return serveWeb(ctx, dir, l, sess, log, web.LimitsOf(s))
	}
}

func newWebPairCmd(e *env, g *globals) *cobra.Command {
	var watchOnly, typ bool
	var label string
	c := &cobra.Command{
		Use:   "pair [--watch-only] [--type] [--label TEXT]",
		Short: "print a one-time token (and the URL) that pairs one browser",
		Long: fmt.Sprintf(`Print a one-time pairing token and the page's URL with it. The token travels in
the URL's fragment (after #), which the browser never sends to a server; the
page exchanges it once, in a POST, for a session cookie. It is void after %v
or once used. A session may watch and answer (approve, queue a message,
pause and resume, release or remove held messages); --watch-only only
watches; --type also lets it type raw keys into a pane.`, web.PairTTL),
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if watchOnly && typ {
				return usagef("office web pair: --watch-only and --type do not go together")
			}
			dir, err := stateDir(g, e)
			if err != nil {
				return err
			}
			caps := []string{web.CapWatch, web.CapAnswer}
			if watchOnly {
				caps = caps[:1]
			}
			if typ {
				caps = append(caps, web.CapType)
			}
			if len(label) > 100 {
				return usagef("office web pair: --label is at most 100 bytes")
			}
			st := &web.Store{Dir: dir}
			tok, err := st.Pair(caps, label)
			if err != nil {
				return err
			}
			base := st.Listen()
			if base == "" {
				base = "http://localhost:8787/"
				fmt.Fprintf(e.stdout, "through your tunnel (ssh -L 8787:%s/%s HOST), open:\n", dir, web.SocketFile)
			} else {
				fmt.Fprintln(e.stdout, "open:")
			}
			url := base + "#pair=" + tok
			fmt.Fprintf(e.stdout, "  %s\n", url)
			if isTerminal(e.stdout) {
				// A phone's camera opens it; only on a terminal (a QR
				// code in a pipe or a log is noise).
				if block, err := qrBlock(url); err == nil {
					fmt.Fprint(e.stdout, block)
				}
			}
			fmt.Fprintf(e.stdout, "or paste the token into the page: %s\n", tok)
			fmt.Fprintf(e.stdout, "(one browser, once, within %v; it may: %s)\n", web.PairTTL, strings.Join(caps, ", "))
			return nil
		},
	}
	c.Flags().BoolVar(&watchOnly, "watch-only", false, "the session only watches: no answers")
	c.Flags().BoolVar(&typ, "type", false, "the session may also type raw keys into a pane")
	c.Flags().StringVar(&label, "label", "", "a name for the session in 'office web sessions'")
	return c
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// qrBlock is url as a QR code drawn with half blocks (two modules a
// character cell), dark on a light quiet zone, for a phone's camera.
func qrBlock(url string) (string, error) {
	q, err := qrcode.New(url, qrcode.Medium)
	if err != nil {
		return "", err
	}
	return q.ToSmallString(false), nil
}

func newWebSessionsCmd(e *env, g *globals) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "sessions [--json]",
		Short: "list the paired browsers' sessions",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			dir, err := stateDir(g, e)
			if err != nil {
				return err
			}
			ss, err := (&web.Store{Dir: dir}).Sessions()
			if err != nil {
				return err
			}
			if asJSON {
				type row struct {
					ID      string    `json:"id"`
					Caps    []string  `json:"caps"`
					Created time.Time `json:"created"`
					Expires time.Time `json:"expires"`
					Label   string    `json:"label,omitempty"`
				}
				out := []row{}
				for _, s := range ss {
					out = append(out, row{s.ID, s.Caps, s.Created, s.Expires, s.Label})
				}
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			if len(ss) == 0 {
				fmt.Fprintln(e.stdout, "no paired sessions (office web pair makes one)")
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tMAY\tPAIRED\tEXPIRES\tLABEL")
			for _, s := range ss {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, strings.Join(s.Caps, ","), s.Created.Local().Format(time.DateTime),
					s.Expires.Local().Format(time.DateTime), cell(s.Label, 40))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func newWebRevokeCmd(e *env, g *globals) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "revoke ID | --all",
		Short: "end a paired browser's session (--all: every session and waiting pairing)",
		Args:  argsBetween(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if all == (len(args) == 1) {
				return usagef("office web revoke: give ID or --all (one of them)")
			}
			dir, err := stateDir(g, e)
			if err != nil {
				return err
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			n, err := (&web.Store{Dir: dir}).Revoke(id, all)
			if err != nil {
				if !all {
					return &inputError{err}
				}
				return err
			}
			fmt.Fprintf(e.stdout, "revoked %d session(s)\n", n)
			return nil
		},
	}
	c.Flags().BoolVar(&all, "all", false, "revoke every session and waiting pairing")
	return c
}
