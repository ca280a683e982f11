package server

// socket.go makes the clients' Unix socket (mode 0600, never TCP) and
// tells whether the file at its path is still the one listened on.

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// socketID identifies the socket file the server listens on.
type socketID struct{ dev, ino uint64 }

// statSocket returns the identity of the socket at path; ok is false when
// there is no socket there.
func statSocket(path string) (id socketID, ok bool) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return socketID{}, false
	}
	return socketID{dev: uint64(st.Dev), ino: st.Ino}, true
}

// listenAt listens on a fresh 0600 Unix socket at path (whatever was there
// is removed first) and returns the listener with the socket's identity.
func listenAt(path string) (net.Listener, socketID, error) {
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, socketID{}, fmt.Errorf("engine: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, socketID{}, fmt.Errorf("engine: chmod %s: %w", path, err)
	}
	id, ok := statSocket(path)
	if !ok {
		ln.Close()
		return nil, socketID{}, fmt.Errorf("engine: listen on %s: the socket file vanished at once", path)
	}
	return ln, id, nil
}
