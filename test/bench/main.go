// Command bench measures office and tmux side by side on the machine it runs
// on, in one run, with the real binaries (built by test/testbin) in real PTYs:
//
//   - echo: keystroke echo latency (p50/p95/p99) of the fake agent, typed
//     straight into its PTY (the floor), through tmux attached in an outer
//     terminal and through office's UI in an outer terminal; the outer
//     terminal is a PTY this program owns, and a sample is the time from
//     writing the key to its master to reading the echo back from it;
//   - stream: the time to swallow a generated 10 MB Ink-like stream at
//     120×40, headless and with a client attached, and the CPU it cost;
//   - idle: CPU and RSS with 1, 16 and 100 idle fake agents, headless and
//     with a client attached showing (up to) 9 of them; memory per agent is
//     the RSS slope from 1 to 100;
//   - busy: CPU with 8 fake agents showing their busy spinner, headless and
//     attached.
//
// It prints one table per part with office/tmux ratios. tmux is optional:
// when it is not on PATH the tmux columns are skipped with a message.
//
//	go run ./test/bench                      # everything, a few minutes
//	go run ./test/bench -parts echo,stream   # some parts
//	go run ./test/bench -h                   # flags
//
// CPU is summed over every process of the program under test (office's
// server and client, tmux's server and client), from /proc; RSS likewise.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"office/test/testbin"
)

// flags are the command line.
type flags struct {
	parts   string
	samples int
	window  time.Duration
	agents  string
	mb      int
	reps    int
	noTmux  bool
	keep    bool
	profile string
	env     string
	many    int
	vs      string
}

func main() {
	var f flags
	flag.StringVar(&f.parts, "parts", "echo,stream,dense,idle,busy,start", "comma-separated parts to run: echo, stream, dense, idle, busy, start, many (not in the default set: -many agents, a few minutes)")
	flag.IntVar(&f.samples, "samples", 200, "keystrokes per echo measurement")
	flag.DurationVar(&f.window, "window", 5*time.Second, "CPU measurement window (idle, busy)")
	flag.StringVar(&f.agents, "agents", "1,16,100", "agent counts for the idle part (the first and last give the memory slope)")
	flag.IntVar(&f.mb, "mb", 10, "size of the generated stream in MB")
	flag.IntVar(&f.reps, "reps", 5, "stream runs per system and mode (best, median and the median of paired ratios are shown)")
	flag.BoolVar(&f.noTmux, "no-tmux", false, "measure office only")
	flag.StringVar(&f.vs, "vs", "", "another office binary whose UI the echo part times beside this build's, key for key (go build -o /tmp/office-main ./cmd/office on another checkout)")
	flag.BoolVar(&f.keep, "keep", false, "keep the temporary directory (configs, state, logs)")
	flag.StringVar(&f.profile, "pprof", "", "directory to save office's CPU and heap profiles in (OFFICE_PPROF is set for the office processes)")
	flag.StringVar(&f.env, "env", "", "comma-separated KEY=VALUE pairs added to office's environment (e.g. GOGC=50,GOMEMLIMIT=64MiB)")
	flag.IntVar(&f.many, "many", 500, "agent count for the many part")
	flag.Parse()
	if err := run(f); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// env is one run's binaries and scratch directory.
type env struct {
	dir       string
	office    string
	fake      string
	tmux      string // "" when absent or -no-tmux
	window    time.Duration
	samples   int
	profile   string
	extraEnv  []string // -env: added to office's processes
	vs        string   // -vs: another office binary, for the echo part
	tmuxCount int
}

func run(f flags) error {
	dir, err := os.MkdirTemp("", "office-bench-")
	if err != nil {
		return err
	}
	if f.keep {
		fmt.Println("# scratch directory:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bins, err := testbin.Build(dir, "office/cmd/office", "office/test/fakeagent")
	if err != nil {
		return err
	}
	if f.profile != "" {
		if f.profile, err = filepath.Abs(f.profile); err == nil {
			err = os.MkdirAll(f.profile, 0o700)
		}
		if err != nil {
			return fmt.Errorf("-pprof: %w", err)
		}
	}
	e := &env{dir: dir, office: bins["office"], fake: bins["fakeagent"], window: f.window, samples: f.samples, profile: f.profile}
	if f.env != "" {
		for _, kv := range strings.Split(f.env, ",") {
			if !strings.Contains(kv, "=") {
				return fmt.Errorf("-env: %q is not KEY=VALUE", kv)
			}
			e.extraEnv = append(e.extraEnv, strings.TrimSpace(kv))
		}
	}
	if f.vs != "" {
		if e.vs, err = filepath.Abs(f.vs); err == nil {
			_, err = os.Stat(e.vs)
		}
		if err != nil {
			return fmt.Errorf("-vs: %w", err)
		}
	}
	if !f.noTmux {
		if p, err := exec.LookPath("tmux"); err == nil {
			e.tmux, _ = filepath.EvalSymlinks(p)
		} else {
			fmt.Println("# tmux not found on PATH: the tmux columns are skipped")
		}
	}
	fmt.Printf("# office bench, %s, %s, %d CPUs, %s/%s, tmux: %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, tmuxVersion(e.tmux))
	if l, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("# load average at start: %s\n", strings.Join(strings.Fields(string(l))[:3], " "))
	}
	for _, p := range strings.Split(f.parts, ",") {
		start := time.Now()
		switch strings.TrimSpace(p) {
		case "echo":
			err = e.echo()
		case "stream":
			err = e.stream(f.mb, max(f.reps, 1))
		case "dense":
			err = e.dense(f.mb, max(f.reps, 1))
		case "idle":
			var counts []int
			for _, s := range strings.Split(f.agents, ",") {
				var n int
				if _, err := fmt.Sscan(strings.TrimSpace(s), &n); err != nil || n < 1 {
					return fmt.Errorf("-agents: %q is not a positive count", s)
				}
				counts = append(counts, n)
			}
			err = e.idle(counts)
		case "busy":
			err = e.busy()
		case "start":
			err = e.start(max(f.reps, 1))
		case "many":
			if f.many < 2 {
				return fmt.Errorf("-many: %d is not a count above 1", f.many)
			}
			err = e.many(f.many)
		case "":
			continue
		default:
			return fmt.Errorf("-parts: unknown part %q (echo, stream, dense, idle, busy, start, many)", p)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Printf("# (%s took %.1f s)\n\n", p, time.Since(start).Seconds())
	}
	return nil
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if _, v, ok := strings.Cut(l, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown CPU"
}

func tmuxVersion(bin string) string {
	if bin == "" {
		return "absent"
	}
	out, err := exec.Command(bin, "-V").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// ratio formats a/b, or "—" when either is missing.
func ratio(a, b float64) string {
	if a < 0 || b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// num formats v with the format, or "—" for a missing (negative) value.
func num(format string, v float64) string {
	if v < 0 {
		return "—"
	}
	return fmt.Sprintf(format, v)
}
