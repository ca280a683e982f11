package queue

// keys.go makes sends idempotent: a caller gives a key (`office send --id
// KEY`); the first send under it records the key with the new row's id in
// the same transaction as the row, and every later send under the same key
// finds it there and gets the first id back, writing nothing. A killed
// sender can so retry without knowing whether its first try was stored.

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// keysSchema is the store's migration that adds the table of send keys.
const keysSchema = `
CREATE TABLE send_keys (
	key         TEXT PRIMARY KEY,
	fingerprint TEXT    NOT NULL,
	id          TEXT    NOT NULL,
	created     INTEGER NOT NULL
);
`

// MaxKeyLen is the longest send key, in bytes.
const MaxKeyLen = 200

var (
	// ErrKeyUsed matches every *KeyUsedError under errors.Is.
	ErrKeyUsed = errors.New("send key already used")
	// ErrKeyConflict: the key was already used by a send of something else
	// (another receiver or text). Nothing was written.
	ErrKeyConflict = errors.New("send key already used for a different send")
	// ErrBadKey: a key that is blank, too long, not valid UTF-8 or holds
	// control characters. Nothing was written.
	ErrBadKey = errors.New("invalid send key")
)

// KeyUsedError is returned, unwrapped, by a send whose key was already used
// for the same send: nothing was written, and ExistingID is the id of the
// row the first send stored (a message id in decimal, or a mail id).
// errors.Is(err, ErrKeyUsed) is true.
type KeyUsedError struct {
	Key        string
	ExistingID string
}

// Error names the key and the first send's id.
func (e *KeyUsedError) Error() string {
	return fmt.Sprintf("send key %q was already used by %s; not stored again", e.Key, e.ExistingID)
}

// Is reports whether target is ErrKeyUsed.
func (e *KeyUsedError) Is(target error) bool { return target == ErrKeyUsed }

// CheckKey returns nil when key can be a send key: not blank, at most
// MaxKeyLen bytes of valid UTF-8 with no control character. The error wraps
// ErrBadKey and says what is wrong.
func CheckKey(key string) error {
	switch {
	case strings.TrimSpace(key) == "":
		return fmt.Errorf("%w: it is blank", ErrBadKey)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrBadKey, len(key), MaxKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: invalid UTF-8 at byte offset %d", ErrBadKey, InvalidUTF8At(key))
	}
	for i, r := range key {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return fmt.Errorf("%w: control character %q at byte offset %d", ErrBadKey, r, i)
		}
	}
	return nil
}

// Fingerprint digests what a send is (its kind, receiver, text, options) so
// that a second use of a key can tell a retry of the same send from another
// send. Each part is length-prefixed, so no two lists of parts collide.
func Fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// KeyedID looks key up inside t. It returns "" when the key was never used,
// the id recorded with it when it was used by a send with the same
// fingerprint, and an error wrapping ErrKeyConflict (naming the key and the
// first id) when it was used by another send.
func (t *Tx) KeyedID(key, fingerprint string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	var id, fp string
	err := t.queryRow(`SELECT id, fingerprint FROM send_keys WHERE key = ?`, key).Scan(&id, &fp)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("look up send key %q: %w", key, err)
	case fp != fingerprint:
		return "", fmt.Errorf("%w: key %q was used by %s, which had another receiver or text", ErrKeyConflict, key, id)
	}
	return id, nil
}

// RecordKey records inside t that key (with the send's fingerprint) stored
// the row id. It commits with the row or not at all. A key already recorded
// is an error (call KeyedID first, in the same transaction).
func (t *Tx) RecordKey(key, fingerprint, id string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if _, err := t.exec(`INSERT INTO send_keys (key, fingerprint, id, created) VALUES (?, ?, ?, ?)`,
		key, fingerprint, id, toNanos(t.now)); err != nil {
		return fmt.Errorf("record send key %q: %w", key, err)
	}
	return nil
}
