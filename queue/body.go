package queue

// body.go holds the rules every body office stores must meet, whoever sends
// it (office send, the composer, mail, inbox items): one size limit and
// valid UTF-8. The command line checks them at the door with a clear error;
// Enqueue (and the inbox's send) check them again as a backstop.

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxBody is the largest body, in bytes, that office accepts: a queued
// message, a mail or an inbox item (1 MiB). A larger one is refused before
// anything is stored; readers of a body from outside (stdin) read at most
// MaxBody+1 bytes.
const MaxBody = 1 << 20

var (
	// ErrTooLarge: a body is over MaxBody bytes. Nothing was written.
	ErrTooLarge = errors.New("body too large")
	// ErrInvalidUTF8: a body is not valid UTF-8. Nothing was written.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
)

// CheckBody returns nil when text is at most MaxBody bytes of valid UTF-8;
// otherwise an error wrapping ErrTooLarge (saying the size and the limit) or
// ErrInvalidUTF8 (naming the byte offset of the first invalid byte).
func CheckBody(text string) error {
	if len(text) > MaxBody {
		return fmt.Errorf("%w: %d bytes, at most %d (1 MiB)", ErrTooLarge, len(text), MaxBody)
	}
	if at := InvalidUTF8At(text); at >= 0 {
		return fmt.Errorf("%w at byte offset %d", ErrInvalidUTF8, at)
	}
	return nil
}

// InvalidUTF8At returns the byte offset of the first byte of s that is not
// part of a valid UTF-8 sequence, or -1 when s is valid UTF-8.
func InvalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
