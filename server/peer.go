package server

// peer.go refuses a connection from another user: the clients' socket is
// 0600, and the peer's uid (SO_PEERCRED) is checked before its hello.

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerUID returns the uid of the process that connected uc (SO_PEERCRED).
func peerUID(uc *net.UnixConn) (int, error) {
	raw, err := uc.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, cerr
	}
	return int(cred.Uid), nil
}

// PeerError refuses a connection from another user.
type PeerError struct {
	UID, Want int
}

func (p *PeerError) Error() string {
	return fmt.Sprintf("connection from uid %d refused: this office belongs to uid %d", p.UID, p.Want)
}

// CheckPeer returns nil when the process at the other end of conn (a Unix
// socket) runs as uid want, and a *PeerError (or the error reading its
// credentials) otherwise.
func CheckPeer(conn net.Conn, want int) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket connection (%T)", conn)
	}
	uid, err := peerUID(uc)
	if err != nil {
		return fmt.Errorf("reading the peer's credentials: %w", err)
	}
	if uid != want {
		return &PeerError{UID: uid, Want: want}
	}
	return nil
}
