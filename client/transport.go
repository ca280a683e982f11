package client

// transport.go opens the byte stream a connection runs on: the local socket,
// or ssh running `office attach --stdio` on another host.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"office/wire"
)

// ErrNoServer says no office server answers on a state directory.
var ErrNoServer = errors.New("no office is running on this state directory")

// Transport opens connections to one office server.
type Transport interface {
	// Dial opens a new byte stream to the server.
	Dial(ctx context.Context) (io.ReadWriteCloser, error)
	// String names the server for messages ("state dir X", "host H").
	String() string
}

// Local reaches the server of a state directory on this machine.
func Local(stateDir string) Transport { return local{stateDir} }

type local struct{ dir string }

func (l local) Dial(ctx context.Context) (io.ReadWriteCloser, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", filepath.Join(l.dir, wire.SocketFile))
	if err != nil {
		return nil, fmt.Errorf("%w (%s): %v", ErrNoServer, l.dir, err)
	}
	return c, nil
}

func (l local) String() string { return "state directory " + l.dir }

// SSH reaches the server on host by running the user's own ssh: argv is the
// ssh command (nil: "ssh"; OFFICE_SSH_COMMAND or --ssh-command replace it),
// then host, then `office attach --stdio` and, if stateDir is set, `--state
// stateDir`. remoteOffice is the office command on the far side ("" means
// "office"). Nothing listens on TCP: the stream is ssh's stdin and stdout.
func SSH(argv []string, host, remoteOffice, stateDir string) Transport {
	if len(argv) == 0 {
		argv = []string{"ssh"}
	}
	if remoteOffice == "" {
		remoteOffice = "office"
	}
	return sshTransport{argv: argv, host: host, office: remoteOffice, state: stateDir}
}

// SSHCommand splits an ssh command line such as "ssh -p 2222 -i key" (from
// OFFICE_SSH_COMMAND or --ssh-command) into its words; quotes are not
// interpreted.
func SSHCommand(s string) []string { return strings.Fields(s) }

// SSHStarting is SSH whose far side starts the office's server there
// (`office attach --stdio --start`, in the background, as `office start`)
// when none runs, as a local `office` does.
func SSHStarting(argv []string, host, remoteOffice, stateDir string) Transport {
	t := SSH(argv, host, remoteOffice, stateDir).(sshTransport)
	t.start = true
	return t
}

type sshTransport struct {
	argv                []string
	host, office, state string
	start               bool
}

func (t sshTransport) String() string { return "host " + t.host }

func (t sshTransport) Dial(ctx context.Context) (io.ReadWriteCloser, error) {
	remote := []string{t.office, "attach", "--stdio"}
	if t.start {
		remote = append(remote, "--start")
	}
	if t.state != "" {
		remote = append(remote, "--state", shellQuote(t.state))
	}
	args := append(append(append([]string(nil), t.argv[1:]...), t.host), strings.Join(remote, " "))
	cmd := exec.Command(t.argv[0], args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr tail
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", t.argv[0], err)
	}
	p := &sshPipe{cmd: cmd, in: stdin, out: stdout, stderr: &stderr, waited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.waited) }()
	return p, nil
}

// sshExitWait bounds how long a read that found ssh's output closed waits
// for ssh to exit and say why.
const sshExitWait = 2 * time.Second

// shellQuote quotes s for the remote shell ssh hands the command to.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sshPipe is a running ssh as a byte stream.
type sshPipe struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.ReadCloser
	stderr *tail
	waited chan struct{}
	err    error
	once   sync.Once
}

func (p *sshPipe) Read(b []byte) (int, error) {
	n, err := p.out.Read(b)
	if err != nil && n == 0 {
		return 0, p.failure(err)
	}
	return n, err
}

func (p *sshPipe) Write(b []byte) (int, error) {
	n, err := p.in.Write(b)
	if err != nil {
		return n, p.failure(err)
	}
	return n, nil
}

// failure is the error of a read or write that found ssh's pipes closed: ssh
// is exiting, and what it said on stderr (host unreachable, no office there)
// is the real error.
func (p *sshPipe) failure(err error) error {
	select {
	case <-p.waited:
	case <-time.After(sshExitWait):
	}
	if msg := p.stderr.String(); msg != "" {
		return fmt.Errorf("%s: %s", p.cmd.Path, msg)
	}
	return err
}

// Close ends ssh (it takes the remote `attach --stdio` with it).
func (p *sshPipe) Close() error {
	p.once.Do(func() {
		p.in.Close()
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		<-p.waited
	})
	return nil
}

// tail keeps the last bytes of ssh's stderr for error messages.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
