package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"office/configs"
	"office/engine"
	"office/history"
	"office/pool"
)

// An agent's history is capped at its history setting in memory and on disk,
// answered on the socket (rows for another process), and reloaded with its
// numbering when the engine starts again.
func TestHistoryCappedPersistedAndReloaded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	script := `for i in $(seq 1 300); do echo "n $i"; done; exec sleep 1000`
	c, err := configs.Parse(filepath.Join(dir, "office.toml"),
		[]byte(fmt.Sprintf("brief = false\n\n[[agent]]\nname = \"h\"\ncommand = [\"bash\", \"-c\", %q]\n", script)))
	if err != nil {
		t.Fatal(err)
	}
	c.Agents[0].History = 50
	e, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv(), Cols: 40, Rows: 10})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := e.Agent("h")
	h := a.Term.History()
	waitCond(t, 20*time.Second, "291 lines scrolled off", func() bool { _, total := h.Bounds(); return total == 291 })
	if first, _ := h.Bounds(); first != 241 {
		t.Fatalf("memory holds lines from %d, want the last 50 (241..290)", first)
	}
	var rep engine.HistoryReply
	req := engine.Request{Op: "history", Agent: "h", Args: []byte(`{"from": 0, "to": 245}`)}
	if err := engine.Call(context.Background(), state, req, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total != 291 || !rep.Persisted || !rep.Live || rep.First != 241 || len(rep.Rows) != 4 || len(rep.Screen) != 10 {
		t.Fatalf("reply total %d persisted %v live %v first %d rows %d screen %d", rep.Total, rep.Persisted, rep.Live, rep.First, len(rep.Rows), len(rep.Screen))
	}
	if got := text(t, rep.Rows[0]); got != "n 242" {
		t.Fatalf("row 241 = %q", got)
	}
	if got := text(t, rep.Screen[0]); got != "n 292" {
		t.Fatalf("screen row 0 = %q", got)
	}
	recs, err := history.Read(engine.AgentDir(state, "h"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 50 || len(recs) > 100 || recs[len(recs)-1].Seq != 290 {
		t.Fatalf("disk holds %d records up to %d, want 50 to 100 ending at 290", len(recs), recs[len(recs)-1].Seq)
	}
	e.Close() // the last screen (n 292 .. n 300) goes into the history

	recs, _ = history.Read(engine.AgentDir(state, "h"), 0)
	if last := recs[len(recs)-1]; last.Seq != 299 || text(t, last.Line) != "n 300" {
		t.Fatalf("after the stop the file ends with line %d %q", last.Seq, text(t, last.Line))
	}
	c.Agents[0].Command = []string{"sleep", "1000"} // prints nothing this time
	e2, err := engine.Open(engine.Options{Config: c, StateDir: state, HostEnv: hostEnv(), Cols: 40, Rows: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	a2, _ := e2.Agent("h")
	if first, total := a2.Term.History().Bounds(); first != 250 || total != 300 {
		t.Fatalf("reloaded %d..%d, want 250..299", first, total)
	}
	if rows := a2.Term.History().Rows(250, 251, nil); len(rows) != 1 || string(pool.AppendText(nil, rows[0].Cells)) != "n 251" {
		t.Fatalf("reloaded line 250: %v", rows)
	}
}

func text(t *testing.T, line []byte) string {
	t.Helper()
	cells, err := pool.DecodeLine(line, nil)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(pool.AppendText(nil, cells)))
}
