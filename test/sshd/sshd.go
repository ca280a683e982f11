// Package sshd runs a real sshd on loopback for a test (a throwaway host
// key and user key in a temporary directory, a free port on 127.0.0.1), so a
// test reaches the office through ssh as a person on another machine would.
package sshd

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"office/test/testports"
)

// Server is a private sshd for one test.
type Server struct {
	// Host is the ssh destination: user@127.0.0.1.
	Host string
	// Command is the ssh command line that reaches it (its port, the user
	// key, a known_hosts file with its host key, no other config).
	Command string
}

// Start starts sshd on a free loopback port for the rest of t (it is killed
// at t's cleanup), or skips t when there is none to start: no sshd installed,
// or not root (sshd needs its privilege separation directory). It accepts
// only a throwaway user key, made here with a throwaway host key.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := "/usr/sbin/sshd"
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath("sshd"); err != nil {
			t.Skip("sshd not installed (CI installs openssh-server: .ci/run)")
		}
	}
	if os.Getuid() != 0 {
		t.Skip("not root: sshd needs its privilege separation directory")
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Skipf("no privilege separation directory for sshd: %v", err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keygen := func(path string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	hostKey, userKey := filepath.Join(dir, "host_key"), filepath.Join(dir, "user_key")
	keygen(hostKey)
	keygen(userKey)
	pub, err := os.ReadFile(userKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	port := testports.Port(t) // sshd binds it itself, after this returns
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", port, hostPub)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sshd_config")
	conf := strings.Join([]string{
		"Port " + strconv.Itoa(port),
		"ListenAddress 127.0.0.1",
		"HostKey " + hostKey,
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"StrictModes no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"UsePAM no",
		"LogLevel ERROR",
	}, "\n") + "\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-D", "-e", "-f", cfg)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("sshd: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not listen on %d: %s", port, errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &Server{
		Host: u.Username + "@127.0.0.1",
		Command: fmt.Sprintf("ssh -F /dev/null -p %d -i %s -o IdentitiesOnly=yes -o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes -o BatchMode=yes -o LogLevel=ERROR",
			port, userKey, known),
	}
}
