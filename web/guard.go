package web

// guard.go is the rebinding and cross-site proof in front of every route:
// the Host must be one the server accepts (a DNS-rebinding page reaches the
// server under its own name: 421), and a request that changes something or
// upgrades to a WebSocket must carry the Origin of that Host (a page of
// another site cannot: 403). Each distinct refusal is logged once a window.

import (
	"net"
	"net/http"
	"strings"
)

// hostAllowed reports whether host (a Host header) is accepted.
func (s *Server) hostAllowed(host string) bool {
	for _, h := range s.cfg.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	if s.cfg.LoopbackAnyPort {
		name, port, err := net.SplitHostPort(host)
		if err != nil {
			name, port = host, ""
		}
		_ = port
		switch strings.ToLower(name) {
		case "localhost", "127.0.0.1", "::1":
			return true
		}
	}
	return false
}

// originAllowed reports whether r's Origin is its own (accepted) Host.
func (s *Server) originAllowed(r *http.Request) bool {
	scheme := "http://"
	if s.cfg.Secure {
		scheme = "https://"
	}
	return strings.EqualFold(r.Header.Get("Origin"), scheme+r.Host)
}

func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.refuse("Host "+quoteBounded(r.Host), r)
			http.Error(w, "misdirected request: this office's web server does not answer to that host name", http.StatusMisdirectedRequest)
			return
		}
		changes := r.Method != http.MethodGet && r.Method != http.MethodHead
		upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
		if (changes || upgrade) && !s.originAllowed(r) {
			s.refuse("Origin "+quoteBounded(r.Header.Get("Origin"))+" for Host "+quoteBounded(r.Host), r)
			http.Error(w, "forbidden: this request must come from the office's own page", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		// Scripts only from the page itself; xterm.js adds <style> elements
		// of its own, hence inline styles.
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
		next.ServeHTTP(w, r)
	})
}

// refuse logs a refusal the first time it is seen in a callWindow (at
// most maxLogged distinct ones a window).
func (s *Server) refuse(what string, r *http.Request) {
	s.mu.Lock()
	s.logWindow(s.cfg.Now())
	first := !s.logged[what] && len(s.logged) < maxLogged
	if first {
		s.logged[what] = true
	}
	s.mu.Unlock()
	if first {
		s.log.Warn("web: refused a request (logged once a window)", "why", what, "method", r.Method, "path", quoteBounded(r.URL.Path))
	}
}

// quoteBounded quotes at most 100 bytes of a value from outside.
func quoteBounded(v string) string {
	if len(v) > 100 {
		v = v[:100] + "..."
	}
	return `"` + strings.ToValidUTF8(strings.ReplaceAll(v, `"`, `\"`), "?") + `"`
}
