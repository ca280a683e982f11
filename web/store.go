package web

// store.go keeps the pairings and sessions in STATE/web.json (0600, written
// whole through a temporary file and a rename, under an advisory lock on
// STATE/web.lock), so `office web pair`, `sessions` and `revoke`, separate
// processes, and the running `office web` agree. Only hashes of secrets are
// stored: a copy of the file pairs nobody and opens no session.

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Files in the state directory.
const (
	StoreFile  = "web.json"
	lockFile   = "web.lock"
	SocketFile = "web.sock"
)

// Bounds. A person pairs a few browsers; anything more is a leak or an
// attack. The live sessions and their lifetime are Store's (the office
// file's web_sessions and web_session_ttl).
const (
	// PairTTL: a pairing token not used within it is void (it is read off
	// a terminal and typed or scanned at once).
	PairTTL = 10 * time.Minute
	// MaxPending pairings waiting at once.
	MaxPending = 8
	// storeMax bounds web.json when read (web_sessions' most entries are
	// far less).
	storeMax = 1 << 20
)

// Capabilities of a session.
const (
	CapWatch  = "watch"  // roster, status, screens, queue
	CapAnswer = "answer" // approve, queue a message, pause/resume, release/remove held
	CapType   = "type"   // raw keys into a pane
)

// Session is one paired browser as stored.
type Session struct {
	ID   string `json:"id"`
	Hash string `json:"hash"` // hex sha256 of the cookie's secret
	// KeyHash is the hex sha256 of the page's key: the secret the page
	// keeps in its origin's storage and sends with every request (a
	// cookie alone, which a browser also sends to other ports of the
	// host, opens nothing).
	KeyHash string    `json:"key_hash"`
	Caps    []string  `json:"caps"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	Label   string    `json:"label,omitempty"`
}

// Can reports whether the session has capability c.
func (s Session) Can(c string) bool {
	for _, x := range s.Caps {
		if x == c {
			return true
		}
	}
	return false
}

// pending is a pairing token waiting for its browser.
type pending struct {
	Hash    string    `json:"hash"`
	Caps    []string  `json:"caps"`
	Expires time.Time `json:"expires"`
	Label   string    `json:"label,omitempty"`
}

type storeData struct {
	Pending  []pending `json:"pending,omitempty"`
	Sessions []Session `json:"sessions,omitempty"`
	// Listen is where the running `office web` listens ("" none), for
	// `office web pair` to print the URL.
	Listen string `json:"listen,omitempty"`
}

// Store is the web.json of one state directory.
type Store struct {
	Dir string
	Now func() time.Time
	// MaxSessions live at once: redeeming a pairing past them is refused
	// (revoke some). SessionTTL: a session expires this long after it was
	// made; pair again. Zero: the web_sessions and web_session_ttl
	// defaults (a Server sets its Limits' into a Store that sets neither).
	MaxSessions int
	SessionTTL  time.Duration
}

// ErrBadToken: the pairing token is unknown, used or expired.
var ErrBadToken = errors.New("pairing token unknown, used or expired")

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// limits are the store's session bounds, zero fields at their defaults.
func (s *Store) limits() Limits {
	return Limits{Sessions: s.MaxSessions, SessionTTL: s.SessionTTL}.orDefaults()
}

func hashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// update runs fn on the store's contents under the lock and writes the
// result back when fn returns nil. Expired entries are dropped first.
func (s *Store) update(fn func(d *storeData) error) error {
	lk, err := os.OpenFile(filepath.Join(s.Dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	defer lk.Close()
	if err := unix.Flock(int(lk.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("web: lock %s: %w", lk.Name(), err)
	}
	d, err := s.read()
	if err != nil {
		return err
	}
	s.prune(&d)
	if err := fn(&d); err != nil {
		return err
	}
	return s.write(d)
}

// load reads the store (no lock: the file is replaced whole by a rename).
func (s *Store) load() (storeData, error) {
	d, err := s.read()
	if err == nil {
		s.prune(&d)
	}
	return d, err
}

func (s *Store) read() (storeData, error) {
	var d storeData
	path := filepath.Join(s.Dir, StoreFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("web: %w", err)
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, storeMax+1))
	if err != nil {
		return d, fmt.Errorf("web: read %s: %w", path, err)
	}
	n := len(buf)
	if n > storeMax {
		return d, fmt.Errorf("web: %s is larger than %d bytes", path, storeMax)
	}
	if n == 0 {
		return d, nil
	}
	if err := json.Unmarshal(buf[:n], &d); err != nil {
		return d, fmt.Errorf("web: %s: %w", path, err)
	}
	return d, nil
}

func (s *Store) write(d storeData) error {
	raw, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(s.Dir, StoreFile)
	tmp, err := os.CreateTemp(s.Dir, StoreFile+".*")
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("web: %w", err)
	}
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("web: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("web: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("web: %w", err)
	}
	return nil
}

// prune drops expired pairings and sessions.
func (s *Store) prune(d *storeData) {
	now := s.now()
	p := d.Pending[:0]
	for _, x := range d.Pending {
		if now.Before(x.Expires) {
			p = append(p, x)
		}
	}
	d.Pending = p
	ss := d.Sessions[:0]
	for _, x := range d.Sessions {
		if now.Before(x.Expires) {
			ss = append(ss, x)
		}
	}
	d.Sessions = ss
}

// Pair makes a one-time pairing token for a session with caps (CapWatch is
// always among them).
func (s *Store) Pair(caps []string, label string) (string, error) {
	tok, err := randomString(24)
	if err != nil {
		return "", err
	}
	if !contains(caps, CapWatch) {
		caps = append([]string{CapWatch}, caps...)
	}
	err = s.update(func(d *storeData) error {
		if len(d.Pending) >= MaxPending {
			return fmt.Errorf("web: %d pairings are already waiting (at most %d, each void after %v)", len(d.Pending), MaxPending, PairTTL)
		}
		d.Pending = append(d.Pending, pending{Hash: hashSecret(tok), Caps: caps, Expires: s.now().Add(PairTTL), Label: label})
		return nil
	})
	return tok, err
}

// Redeem exchanges a pairing token, once, for a new session; it returns the
// session, the cookie value that proves it ("ID.SECRET") and the page's
// key, which must come with the cookie (Check).
func (s *Store) Redeem(token string) (Session, string, string, error) {
	var out Session
	var cookie, key string
	err := s.update(func(d *storeData) error {
		h := hashSecret(token)
		i := -1
		for j, p := range d.Pending {
			if subtle.ConstantTimeCompare([]byte(p.Hash), []byte(h)) == 1 {
				i = j
			}
		}
		if i < 0 {
			return ErrBadToken
		}
		p := d.Pending[i]
		d.Pending = append(d.Pending[:i], d.Pending[i+1:]...)
		if max := s.limits().Sessions; len(d.Sessions) >= max {
			return fmt.Errorf("web: %d sessions are live (at most %d, web_sessions): revoke some with `office web revoke`", len(d.Sessions), max)
		}
		id, err := randomString(6)
		if err != nil {
			return err
		}
		secret, err := randomString(32)
		if err != nil {
			return err
		}
		pageKey, err := randomString(32)
		if err != nil {
			return err
		}
		now := s.now()
		out = Session{ID: id, Hash: hashSecret(secret), KeyHash: hashSecret(pageKey), Caps: p.Caps, Created: now,
			Expires: now.Add(s.limits().SessionTTL), Label: p.Label}
		d.Sessions = append(d.Sessions, out)
		cookie, key = id+"."+secret, pageKey
		return nil
	})
	if err != nil {
		// A refused redemption consumed nothing unless the token matched:
		// update wrote nothing then.
		return Session{}, "", "", err
	}
	return out, cookie, key, nil
}

// Check returns the live session a cookie value and the page's key prove
// together (either alone proves nothing).
func (s *Store) Check(cookie, key string) (Session, bool) {
	id, secret, ok := strings.Cut(cookie, ".")
	if !ok || id == "" || secret == "" || key == "" {
		return Session{}, false
	}
	d, err := s.load()
	if err != nil {
		return Session{}, false
	}
	h, kh := hashSecret(secret), hashSecret(key)
	for _, x := range d.Sessions {
		if x.ID == id && subtle.ConstantTimeCompare([]byte(x.Hash), []byte(h))&
			subtle.ConstantTimeCompare([]byte(x.KeyHash), []byte(kh)) == 1 {
			return x, true
		}
	}
	return Session{}, false
}

// Sessions lists the live sessions, oldest first.
func (s *Store) Sessions() ([]Session, error) {
	d, err := s.load()
	if err != nil {
		return nil, err
	}
	out := append([]Session{}, d.Sessions...)
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// Revoke ends session id ("" with all: every session and pairing) and
// returns how many it ended. An unknown id is an error.
func (s *Store) Revoke(id string, all bool) (int, error) {
	n := 0
	err := s.update(func(d *storeData) error {
		if all {
			n = len(d.Sessions)
			d.Sessions, d.Pending = nil, nil
			return nil
		}
		for i, x := range d.Sessions {
			if x.ID == id {
				d.Sessions = append(d.Sessions[:i], d.Sessions[i+1:]...)
				n = 1
				return nil
			}
		}
		return fmt.Errorf("web: no session %q (office web sessions lists them)", id)
	})
	return n, err
}

// SetListen records where the running server listens ("" none).
func (s *Store) SetListen(addr string) error {
	return s.update(func(d *storeData) error { d.Listen = addr; return nil })
}

// Listen returns where the running server said it listens.
func (s *Store) Listen() string {
	d, _ := s.load()
	return d.Listen
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
