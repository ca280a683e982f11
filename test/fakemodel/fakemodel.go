// Package fakemodel is a loopback stand-in for the model APIs of Claude Code
// (Anthropic Messages), Codex (OpenAI Responses) and Gemini CLI (Gemini
// streamGenerateContent), so the real CLIs run offline as test fixtures
// (real-clis.md §4). It listens on 127.0.0.1 only, answers every POST of a
// route the same way with a canned streamed reply after a scripted delay, and
// logs each request with its body.
package fakemodel

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Options configure a Server.
type Options struct {
	// Delay is the time before the first token of each streamed reply (the
	// "thinking" time; the CLI shows busy meanwhile).
	Delay time.Duration
	// Tick is the time between the reply's words; zero means 20 ms.
	Tick time.Duration
	// Reply is the canned answer; "" means "OK done."
	Reply string
}

// Request is one logged request.
type Request struct {
	At     time.Time
	Method string
	Path   string // path and query
	Body   []byte
	// Dialect is "anthropic", "openai", "gemini" or "" (any other route).
	Dialect string
	// Stream is true for the streamed model calls (the main turns).
	Stream bool
}

// Server is a running fake model server.
type Server struct {
	// URL is http://127.0.0.1:PORT (no trailing slash).
	URL string

	srv *httptest.Server

	mu    sync.Mutex
	opts  Options
	reqs  []Request
	gate  chan struct{} // while non-nil, replies wait for it to close
	tools []string      // the next main replies ask to run these shell commands, in order

	refusal Refusal // the limit mode (limit.go)
	refused int
}

// New starts a server on 127.0.0.1 (never another interface). Close it.
func New(o Options) (*Server, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: %w", err)
	}
	s := &Server{opts: o}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server, cutting any stream in flight.
func (s *Server) Close() {
	s.mu.Lock()
	if s.gate != nil {
		close(s.gate)
		s.gate = nil
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// SetDelay changes the delay before the first token of later replies.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	s.opts.Delay = d
	s.mu.Unlock()
}

// SetReply changes the canned answer of later replies.
func (s *Server) SetReply(r string) {
	s.mu.Lock()
	s.opts.Reply = r
	s.mu.Unlock()
}

// Hold makes streamed replies wait (after their delay) until Release: the
// CLI stays busy for as long as a test needs.
func (s *Server) Hold() {
	s.mu.Lock()
	if s.gate == nil {
		s.gate = make(chan struct{})
	}
	s.mu.Unlock()
}

// Release lets held replies finish.
func (s *Server) Release() {
	s.mu.Lock()
	if s.gate != nil {
		close(s.gate)
		s.gate = nil
	}
	s.mu.Unlock()
}

// ToolCall makes the next streamed reply to a request that offers tools ask
// to run the shell command cmd (Claude's Bash, Codex's shell, Gemini's
// run_shell_command): the CLI shows its permission dialog. Later replies are
// text again. Called again before that reply, it queues: each streamed reply
// that offers tools asks for the next command queued (the CLI's request
// after a tool's result is one), so one turn asks for several in a row.
func (s *Server) ToolCall(cmd string) {
	s.mu.Lock()
	s.tools = append(s.tools, cmd)
	s.mu.Unlock()
}

// Requests returns a copy of the log so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Turns returns the streamed model requests (the CLI's turns and their side
// requests), in order.
func (s *Server) Turns() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Stream {
			out = append(out, r)
		}
	}
	return out
}

// Prompts returns the prompts of the CLI's turns, in order: for each
// streamed request that offers tools (a main turn; side requests such as
// Claude's title generation offer none) the last text part of its last user
// message (LastPrompt). A request whose prompt repeats the previous one (a
// second request of one turn, a retry) is counted once.
func (s *Server) Prompts() []string {
	var out []string
	last := ""
	for _, r := range s.Turns() {
		if !HasTools(r) {
			continue
		}
		p := LastPrompt(r)
		if p == "" || p == last {
			continue
		}
		out = append(out, p)
		last = p
	}
	return out
}

// HasTools reports whether a model request offers tools.
func HasTools(r Request) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Body, &m) != nil {
		return false
	}
	t := strings.TrimSpace(string(m["tools"]))
	return t != "" && t != "null" && t != "[]"
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		if zr, err := gzip.NewReader(bytes.NewReader(body)); err == nil {
			if b, err := io.ReadAll(zr); err == nil {
				body = b
			}
		}
	}
	req := Request{At: time.Now(), Method: r.Method, Path: r.URL.RequestURI(), Body: body}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		req.Dialect = "anthropic"
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		req.Dialect = "anthropic"
		req.Stream = jsonBool(body, "stream")
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		req.Dialect = "openai"
		req.Stream = true
	case r.Method == http.MethodPost && strings.Contains(p, ":streamGenerateContent"):
		req.Dialect = "gemini"
		req.Stream = true
	case strings.Contains(p, ":generateContent"), strings.Contains(p, ":countTokens"):
		req.Dialect = "gemini"
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if rf := s.refusal; rf.Status != 0 && req.Dialect != "" && !strings.HasSuffix(p, "/count_tokens") && !strings.Contains(p, ":countTokens") {
		s.refused++
		s.mu.Unlock()
		refuse(w, req.Dialect, rf, time.Now())
		return
	}
	o := s.opts
	tool := ""
	if req.Stream && len(s.tools) > 0 && HasTools(req) {
		tool, s.tools = s.tools[0], s.tools[1:]
	}
	s.mu.Unlock()
	if o.Reply == "" {
		o.Reply = "OK done."
	}
	if o.Tick <= 0 {
		o.Tick = 20 * time.Millisecond
	}
	switch {
	case req.Dialect == "anthropic" && strings.HasSuffix(p, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 10})
	case req.Dialect == "anthropic" && !req.Stream:
		writeJSON(w, anthropicMessage(o.Reply))
	case req.Dialect == "anthropic" && tool != "":
		s.stream(w, r, o, anthropicTool(req, tool), true)
	case req.Dialect == "anthropic":
		s.stream(w, r, o, anthropicEvents(o.Reply), true)
	case req.Dialect == "openai" && tool != "":
		s.stream(w, r, o, openaiTool(req, tool), false)
	case req.Dialect == "openai":
		s.stream(w, r, o, openaiEvents(o.Reply), false)
	case req.Dialect == "gemini" && req.Stream && tool != "":
		s.stream(w, r, o, geminiTool(req, tool), false)
	case req.Dialect == "gemini" && req.Stream:
		s.stream(w, r, o, geminiEvents(o.Reply), false)
	case req.Dialect == "gemini" && strings.Contains(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 10})
	case req.Dialect == "gemini":
		// Non-streamed calls want JSON text (the Auto-mode router, the
		// next-speaker check): one object that satisfies both.
		writeJSON(w, geminiChunk(`{"reasoning":"fake","model_choice":"flash","next_speaker":"user"}`, true))
	case r.Method == http.MethodHead || r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"type":"not_found_error","message":"fakemodel: no such route"}}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"fakemodel: no such route"}}`)
	}
}

// sseEvent is one server-sent event; Name "" writes only data.
type sseEvent struct {
	Name string
	Data any
	// Word marks a text delta: events after the first word are paced by Tick.
	Word bool
}

// stream writes events as SSE: the head at once, the first word after
// o.Delay (Anthropic pings meanwhile), then a word every o.Tick.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, o Options, events []sseEvent, ping bool) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	write := func(e sseEvent) {
		b, _ := json.Marshal(e.Data)
		if e.Name != "" {
			fmt.Fprintf(w, "event: %s\n", e.Name)
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	waited := false
	for _, e := range events {
		if e.Word {
			if !waited {
				waited = true
				if !s.wait(r, o.Delay, ping, write) {
					return
				}
			} else if !sleepCtx(r, o.Tick) {
				return
			}
		}
		write(e)
	}
}

// wait sleeps d (sending Anthropic pings every 500 ms when ping), then
// waits for a Hold to be released. false: the client went away.
func (s *Server) wait(r *http.Request, d time.Duration, ping bool, write func(sseEvent)) bool {
	end := time.Now().Add(d)
	for {
		s.mu.Lock()
		gate := s.gate
		s.mu.Unlock()
		left := time.Until(end)
		if left <= 0 && gate == nil {
			return true
		}
		step := 500 * time.Millisecond
		if left > 0 && left < step {
			step = left
		}
		if left <= 0 {
			select {
			case <-gate:
				continue
			case <-r.Context().Done():
				return false
			case <-time.After(step):
			}
		} else if !sleepCtx(r, step) {
			return false
		}
		if ping {
			write(sseEvent{Name: "ping", Data: map[string]string{"type": "ping"}})
		}
	}
}

func sleepCtx(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func words(reply string) []string {
	f := strings.SplitAfter(reply, " ")
	if len(f) == 0 {
		return []string{reply}
	}
	return f
}

func anthropicMessage(reply string) map[string]any {
	return map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
		"content":     []any{map[string]any{"type": "text", "text": reply}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5},
	}
}

func anthropicEvents(reply string) []sseEvent {
	ev := []sseEvent{
		{Name: "message_start", Data: map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_fake", "type": "message", "role": "assistant", "model": "claude-fake",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}}},
		{Name: "content_block_start", Data: map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}}},
	}
	for _, wd := range words(reply) {
		ev = append(ev, sseEvent{Name: "content_block_delta", Word: true, Data: map[string]any{
			"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": wd}}})
	}
	return append(ev,
		sseEvent{Name: "content_block_stop", Data: map[string]any{"type": "content_block_stop", "index": 0}},
		sseEvent{Name: "message_delta", Data: map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": 5}}},
		sseEvent{Name: "message_stop", Data: map[string]any{"type": "message_stop"}},
	)
}

func openaiEvents(reply string) []sseEvent {
	resp := func(status string, output []any) map[string]any {
		m := map[string]any{"id": "resp_fake", "object": "response", "status": status, "model": "gpt-fake", "output": output}
		if status == "completed" {
			m["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
		}
		return m
	}
	item := func(status, text string) map[string]any {
		content := []any{}
		if status == "completed" {
			content = []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}
		}
		return map[string]any{"type": "message", "id": "msg_fake", "role": "assistant", "status": status, "content": content}
	}
	ev := []sseEvent{
		{Name: "response.created", Data: map[string]any{"type": "response.created", "response": resp("in_progress", []any{})}},
		{Name: "response.output_item.added", Data: map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item("in_progress", "")}},
		{Name: "response.content_part.added", Data: map[string]any{"type": "response.content_part.added", "item_id": "msg_fake",
			"output_index": 0, "content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}}},
	}
	for _, wd := range words(reply) {
		ev = append(ev, sseEvent{Name: "response.output_text.delta", Word: true, Data: map[string]any{
			"type": "response.output_text.delta", "item_id": "msg_fake", "output_index": 0, "content_index": 0, "delta": wd}})
	}
	done := item("completed", reply)
	return append(ev,
		sseEvent{Name: "response.output_text.done", Data: map[string]any{"type": "response.output_text.done", "item_id": "msg_fake",
			"output_index": 0, "content_index": 0, "text": reply}},
		sseEvent{Name: "response.output_item.done", Data: map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done}},
		sseEvent{Name: "response.completed", Data: map[string]any{"type": "response.completed", "response": resp("completed", []any{done})}},
	)
}

func geminiChunk(text string, last bool) map[string]any {
	c := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "index": 0}
	if last {
		c["finishReason"] = "STOP"
	}
	m := map[string]any{"candidates": []any{c}, "modelVersion": "gemini-2.5-flash"}
	if last {
		m["usageMetadata"] = map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	}
	return m
}

func geminiEvents(reply string) []sseEvent {
	ws := words(reply)
	var ev []sseEvent
	for i, wd := range ws {
		ev = append(ev, sseEvent{Word: true, Data: geminiChunk(wd, i == len(ws)-1)})
	}
	return ev
}

func jsonBool(body []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	return string(m[key]) == "true"
}

// LastUserText returns the text of the last user message of a model request
// (all its text parts joined by newlines), whatever the dialect; "" when none.
func LastUserText(r Request) string {
	return strings.Join(userParts(r), "\n")
}

// LastPrompt returns the last text part of the last user message: the
// person's or office's prompt, without the context parts a CLI puts before
// it (Claude's <system-reminder>, Codex's environment context).
func LastPrompt(r Request) string {
	p := userParts(r)
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

// userParts returns the text parts of the last user message that has any.
func userParts(r Request) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Parts   []struct {
			Text string `json:"text"`
		} `json:"parts"`
	}
	switch r.Dialect {
	case "anthropic":
		json.Unmarshal(m["messages"], &msgs)
	case "openai":
		json.Unmarshal(m["input"], &msgs)
	case "gemini":
		json.Unmarshal(m["contents"], &msgs)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		mg := msgs[i]
		if mg.Role != "user" {
			continue
		}
		var texts []string
		for _, p := range mg.Parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		var s string
		if json.Unmarshal(mg.Content, &s) == nil && s != "" {
			texts = append(texts, s)
		}
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(mg.Content, &parts) == nil {
			for _, p := range parts {
				if p.Text != "" {
					texts = append(texts, p.Text)
				}
			}
		}
		if len(texts) > 0 {
			return texts
		}
	}
	return nil
}

// toolSpec is one tool a request offers: its name and whether its "command"
// parameter is an array (argv) or a string.
type toolSpec struct {
	Name      string
	ArrayArgs bool
}

// shellTool picks the request's shell tool from the names the three CLIs use.
func shellTool(r Request) toolSpec {
	var m struct {
		Tools []struct {
			Name        string          `json:"name"`
			Type        string          `json:"type"`
			Parameters  json.RawMessage `json:"parameters"`
			InputSchema json.RawMessage `json:"input_schema"`
			Function    *struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
			FunctionDeclarations []struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(r.Body, &m)
	found := map[string]json.RawMessage{}
	for _, t := range m.Tools {
		if t.Name != "" {
			found[t.Name] = append(t.Parameters, t.InputSchema...)
		}
		if t.Function != nil {
			found[t.Function.Name] = t.Function.Parameters
		}
		for _, f := range t.FunctionDeclarations {
			found[f.Name] = f.Parameters
		}
	}
	for _, name := range []string{"Bash", "shell", "shell_command", "exec_command", "local_shell", "run_shell_command"} {
		if params, ok := found[name]; ok {
			var schema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			}
			json.Unmarshal(params, &schema)
			return toolSpec{Name: name, ArrayArgs: schema.Properties["command"].Type == "array"}
		}
	}
	return toolSpec{Name: "Bash"}
}

func toolArgs(t toolSpec, cmd string) map[string]any {
	if t.ArrayArgs {
		return map[string]any{"command": []string{"bash", "-lc", cmd}}
	}
	if t.Name == "exec_command" {
		// Codex: asking for an unsandboxed run makes it ask the person.
		return map[string]any{"cmd": cmd, "sandbox_permissions": "require_escalated", "justification": "Run " + cmd + "?"}
	}
	return map[string]any{"command": cmd, "description": "Run " + cmd}
}

func anthropicTool(r Request, cmd string) []sseEvent {
	t := shellTool(r)
	args, _ := json.Marshal(toolArgs(t, cmd))
	return []sseEvent{
		{Name: "message_start", Data: map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_tool", "type": "message", "role": "assistant", "model": "claude-fake",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}}},
		{Name: "content_block_start", Data: map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": "toolu_fake1", "name": t.Name, "input": map[string]any{}}}},
		{Name: "content_block_delta", Word: true, Data: map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}}},
		{Name: "content_block_stop", Data: map[string]any{"type": "content_block_stop", "index": 0}},
		{Name: "message_delta", Data: map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}}},
		{Name: "message_stop", Data: map[string]any{"type": "message_stop"}},
	}
}

func openaiTool(r Request, cmd string) []sseEvent {
	t := shellTool(r)
	args, _ := json.Marshal(toolArgs(t, cmd))
	item := func(status string) map[string]any {
		a := ""
		if status == "completed" {
			a = string(args)
		}
		return map[string]any{"type": "function_call", "id": "fc_fake1", "call_id": "call_fake1", "name": t.Name, "arguments": a, "status": status}
	}
	done := item("completed")
	resp := func(status string, output []any) map[string]any {
		m := map[string]any{"id": "resp_tool", "object": "response", "status": status, "model": "gpt-fake", "output": output}
		if status == "completed" {
			m["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
		}
		return m
	}
	return []sseEvent{
		{Name: "response.created", Data: map[string]any{"type": "response.created", "response": resp("in_progress", []any{})}},
		{Name: "response.output_item.added", Data: map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item("in_progress")}},
		{Name: "response.function_call_arguments.delta", Word: true, Data: map[string]any{"type": "response.function_call_arguments.delta",
			"item_id": "fc_fake1", "output_index": 0, "delta": string(args)}},
		{Name: "response.function_call_arguments.done", Data: map[string]any{"type": "response.function_call_arguments.done",
			"item_id": "fc_fake1", "output_index": 0, "arguments": string(args)}},
		{Name: "response.output_item.done", Data: map[string]any{"type": "response.output_item.done", "output_index": 0, "item": done}},
		{Name: "response.completed", Data: map[string]any{"type": "response.completed", "response": resp("completed", []any{done})}},
	}
}

func geminiTool(r Request, cmd string) []sseEvent {
	t := shellTool(r)
	if t.Name == "Bash" {
		t.Name = "run_shell_command"
	}
	c := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{
		"functionCall": map[string]any{"name": t.Name, "args": map[string]any{"command": cmd, "description": "Run " + cmd}}}}},
		"index": 0, "finishReason": "STOP"}
	return []sseEvent{{Word: true, Data: map[string]any{"candidates": []any{c}, "modelVersion": "gemini-2.5-flash",
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}}}
}
