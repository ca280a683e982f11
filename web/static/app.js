// office in a browser: pairs once, then holds one WebSocket (reconnecting by
// itself) for the roster and the shown agent's screen; answers are POSTs
// the server checks against the session's capabilities.
"use strict";
const $ = (id) => document.getElementById(id);
let caps = [], shown = "", ws = null, retry = 500, ended = false, lastStatus = "";

// The page's key, kept in this origin's storage (scheme, host and port:
// a page of another port on this host reads none of it) and sent with
// every request beside the cookie, which the browser also sends to the
// host's other ports: the cookie alone opens nothing.
const keyName = "office.key";
const pageKey = () => localStorage.getItem(keyName) || "";

async function api(method, path, body) {
  const headers = { "X-Office-Key": pageKey() };
  if (body) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined, credentials: "same-origin" });
  let data = {};
  try { data = await r.json(); } catch (e) { /* empty */ }
  if (!r.ok) { const err = new Error(data.error || r.statusText); err.status = r.status; throw err; }
  return data;
}

async function start() {
  const m = location.hash.match(/pair=([A-Za-z0-9_-]+)/);
  if (m) {
    // The token never stays in the address bar or the history.
    history.replaceState(null, "", location.pathname);
    try { await pair(m[1]); } catch (e) { showPairing(e.message); return; }
  }
  try { const me = await api("GET", "/api/me"); caps = me.caps || []; }
  catch (e) { showPairing(e.status === 401 ? "" : e.message); return; }
  $("pairing").hidden = true; $("app").hidden = false; ended = false;
  for (const el of document.querySelectorAll(".answer")) el.hidden = !caps.includes("answer");
  for (const el of document.querySelectorAll(".type")) el.hidden = !caps.includes("type");
  connect();
}

// pair exchanges a pairing token for the session's cookie and the page's key.
async function pair(token) {
  const r = await api("POST", "/pair", { token });
  localStorage.setItem(keyName, r.key);
}

function showPairing(msg) {
  $("app").hidden = true; $("pairing").hidden = false; $("pairerr").textContent = msg || "";
  $("conn").textContent = "not paired"; $("conn").className = "conn";
}

$("pairform").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try { await pair($("token").value.trim()); $("token").value = ""; ended = false; start(); }
  catch (e) { $("pairerr").textContent = e.message; }
});

// A pairing URL opened in this tab again (only its fragment changed: the
// browser does not load the page again) pairs anew.
window.addEventListener("hashchange", () => { if (/pair=/.test(location.hash)) start(); });

function connect() {
  if (ws) { const old = ws; ws = null; old.onclose = null; old.close(); }
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // A browser's WebSocket sets no header of ours: the key goes as a
  // subprotocol beside "office", the one the server answers with.
  ws = new WebSocket(proto + "//" + location.host + "/ws", ["office", "office-key." + pageKey()]);
  ws.onopen = () => { retry = 500; $("conn").textContent = "live"; $("conn").className = "conn up"; if (shown) watch(shown); };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.t === "roster") drawRoster(m);
    if (m.t === "needs") drawNeeds(m);
    if (m.t === "events") drawEvents(m);
    if (m.t === "screen" && m.agent === shown) drawScreen(m);
    if (m.t === "rows" && m.agent === shown) drawRows(m);
  };
  ws.onclose = (ev) => {
    $("conn").textContent = "reconnecting…"; $("conn").className = "conn";
    if (ev.code === 1008) { ended = true; showPairing("This session was revoked or expired: pair again."); return; }
    if (!ended) setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

function watch(agent) {
  shown = agent;
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: "watch", agent }));
}

function drawRoster(m) {
  $("floor").hidden = !m.floor_paused;
  const ul = $("roster"); ul.textContent = "";
  for (const a of m.agents || []) {
    const li = document.createElement("li"), b = document.createElement("button");
    const left = document.createElement("span"), right = document.createElement("span");
    left.textContent = a.name;
    right.textContent = (a.status || "?") + (a.hold ? " · " + a.hold : "") + " · " + a.queued + " queued" + (a.paused ? " · paused" : "");
    right.className = "status-" + (a.status || "");
    b.append(left, right); b.dataset.agent = a.name;
    b.addEventListener("click", () => openPane(a.name));
    li.append(b); ul.append(li);
    if (a.name === shown) { $("panestatus").textContent = right.textContent; }
  }
}

function openPane(name) {
  $("panename").textContent = name; $("screen").textContent = ""; if (term) term.reset(); $("options").textContent = ""; $("paneerr").textContent = "";
  $("home").hidden = true; $("pane").hidden = false; lastStatus = "";
  watch(name); loadQueue();
}

$("back").addEventListener("click", () => { $("pane").hidden = true; $("home").hidden = false; watch(""); shown = ""; });

// age says how long ago since was, shortly ("3m").
function age(since) {
  const s = Math.max(0, (Date.now() - Date.parse(since)) / 1000);
  if (s < 60) return Math.floor(s) + "s";
  if (s < 3600) return Math.floor(s / 60) + "m";
  if (s < 86400) return Math.floor(s / 3600) + "h";
  return Math.floor(s / 86400) + "d";
}

let lastNeeds = [];
// drawNeeds draws the needs-you list (the home): agent, reason, age,
// excerpt, a dialog's options as buttons answering through approve, and a
// usage-limit item's "resume now" ending its account's hold early (as
// `office resume AGENT`).
function drawNeeds(m) {
  lastNeeds = m.needs || [];
  loadInbox(); loadMail();
  const ul = $("needs"); ul.textContent = "";
  $("needcount").textContent = String(lastNeeds.length);
  $("neednone").hidden = lastNeeds.length > 0;
  for (const n of lastNeeds) {
    const li = document.createElement("li"); li.dataset.agent = n.agent; li.dataset.reason = n.reason;
    const head = document.createElement("button"); head.type = "button"; head.className = "needhead";
    const who = document.createElement("span"); who.textContent = n.agent + (n.host ? "@" + n.host : "");
    const why = document.createElement("span"); why.className = "reason"; why.textContent = n.reason + " · ";
    const when = document.createElement("span"); when.className = "age"; when.dataset.since = n.since; when.textContent = age(n.since);
    why.append(when); head.append(who, why);
    head.addEventListener("click", () => openPane(n.agent));
    li.append(head);
    if (n.excerpt) { const ex = document.createElement("div"); ex.className = "excerpt"; ex.textContent = n.excerpt; li.append(ex); }
    if (n.options && n.options.length && caps.includes("answer")) {
      const box = document.createElement("div"); box.className = "needopts";
      for (const o of n.options) {
        if (!o.num) continue;
        const b = document.createElement("button"); b.type = "button"; b.dataset.option = o.num;
        b.textContent = o.num + ". " + o.label;
        b.addEventListener("click", async () => {
          $("neederr").textContent = "";
          try { await api("POST", "/api/approve", { agent: n.agent, option: o.num }); }
          catch (e) { $("neederr").textContent = n.agent + ": " + e.message; }
        });
        box.append(b);
      }
      li.append(box);
    }
    if (n.reason === "usage limit" && caps.includes("answer")) {
      const box = document.createElement("div"); box.className = "needopts";
      const b = document.createElement("button"); b.type = "button"; b.className = "limitrelease";
      b.textContent = "resume now";
      b.addEventListener("click", async () => {
        $("neederr").textContent = ""; $("needsaid").textContent = "";
        try {
          const r = await api("POST", "/api/limit/release", { agent: n.agent });
          const got = (r && r.released) || [];
          $("needsaid").textContent = got.length ? "usage-limit hold ended early: " + got.join(", ") + " resume"
            : "no usage-limit hold on " + n.agent + "'s account to end";
        } catch (e) { $("neederr").textContent = n.agent + ": " + e.message; }
      });
      box.append(b); li.append(box);
    }
    ul.append(li);
  }
}
// loadInbox lists the person's inbox (office inbox --person): a request
// mail gets a reply box answering it as `office mail reply` does.
async function loadInbox() {
  let list = [];
  try { list = await api("GET", "/api/inbox"); } catch (e) { $("inboxerr").textContent = e.message; return; }
  $("inboxerr").textContent = "";
  const ul = $("inbox"); ul.textContent = "";
  $("inboxcount").textContent = String(list.length);
  $("inboxnone").hidden = list.length > 0;
  for (const it of list) {
    const li = document.createElement("li"); li.dataset.id = it.id;
    const head = document.createElement("div"); head.className = "mailhead";
    head.textContent = (it.sender || "office") + " · " + (it.type || it.kind) + (it.title ? " · " + it.title : "") + " · " + age(it.created);
    const body = document.createElement("pre"); body.className = "mailbody"; body.textContent = it.body + (it.cut ? "…" : "");
    li.append(head, body);
    if (it.request && caps.includes("answer")) {
      const f = document.createElement("form"); f.className = "reply";
      const ta = document.createElement("textarea"); ta.rows = 2; ta.placeholder = "reply"; ta.setAttribute("aria-label", "reply to " + it.id);
      const b = document.createElement("button"); b.textContent = "Reply";
      f.append(ta, b);
      f.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        if (!ta.value.trim()) return;
        try { await api("POST", "/api/mail/reply", { id: it.id, text: ta.value }); ta.value = ""; loadInbox(); }
        catch (e) { $("inboxerr").textContent = e.message; }
      });
      li.append(f);
    }
    ul.append(li);
  }
}

// loadMail lists the office's mail (office mail ls [STATE]), newest last;
// tapping one opens it (office mail show).
async function loadMail() {
  let r;
  try { r = await api("GET", "/api/mail?state=" + encodeURIComponent($("mailstate").value)); }
  catch (e) { $("mailerr").textContent = e.message; return; }
  $("mailerr").textContent = "";
  const ul = $("maillist"); ul.textContent = "";
  const list = r.mail || [];
  $("mailcount").textContent = r.total > list.length ? list.length + " of " + r.total : String(list.length);
  $("mailnone").hidden = list.length > 0;
  for (const m of list.slice().reverse()) {
    const li = document.createElement("li"), b = document.createElement("button");
    b.type = "button"; b.dataset.id = m.id;
    const head = document.createElement("div"); head.className = "mailhead";
    head.textContent = m.sender + " → " + m.receiver + " · " + m.type + " · " + m.state + (m.reason ? " (" + m.reason + ")" : "") + " · " + age(m.created);
    const title = document.createElement("div"); title.textContent = m.title || "(no title)";
    b.append(head, title);
    b.addEventListener("click", () => openMail(m.id));
    li.append(b); ul.append(li);
  }
}
$("mailstate").addEventListener("change", loadMail);

let mailShown = "";
// openMail shows one mail: its envelope, text and timeline, and a reply
// box when it is a request to the person still open.
async function openMail(id) {
  let m;
  try { m = await api("GET", "/api/mail/show?id=" + encodeURIComponent(id)); }
  catch (e) { $("mailerr").textContent = e.message; return; }
  mailShown = id;
  $("home").hidden = true; $("pane").hidden = true; $("mailview").hidden = false;
  $("mailtitle").textContent = m.title || "(no title)";
  $("mailstatus").textContent = m.state + (m.reason ? " (" + m.reason + ")" : "");
  const dl = $("mailmeta"); dl.textContent = "";
  for (const [k, v] of [["id", m.id], ["from", m.sender], ["to", m.receiver], ["type", m.type], ["in reply to", m.in_reply_to], ["sent", new Date(m.created).toLocaleString()]]) {
    if (!v) continue;
    const dt = document.createElement("dt"), dd = document.createElement("dd"); dt.textContent = k; dd.textContent = v; dl.append(dt, dd);
  }
  $("mailtext").textContent = m.purged ? "(text purged)" : m.text + (m.cut ? "\n… (cut: office mail show " + m.id + " has the rest)" : "");
  const open = m.type === "request" && m.receiver === "person" && !["done", "failed", "cancelled"].includes(m.state);
  $("mailreply").hidden = !(open && caps.includes("answer"));
  $("mailviewerr").textContent = "";
  const ul = $("mailsteps"); ul.textContent = "";
  for (const st of m.timeline || []) {
    const li = document.createElement("li");
    li.textContent = new Date(st.at).toLocaleString() + " · " + st.state + (st.detail ? " · " + st.detail : "");
    ul.append(li);
  }
}
$("mailback").addEventListener("click", () => { $("mailview").hidden = true; $("home").hidden = false; mailShown = ""; loadMail(); });
$("mailreply").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = $("mailreplytext").value;
  if (!text.trim()) return;
  try { await api("POST", "/api/mail/reply", { id: mailShown, text }); $("mailreplytext").value = ""; openMail(mailShown); }
  catch (e) { $("mailviewerr").textContent = e.message; }
});

// drawEvents lists the office's newest events (office events), newest
// first.
function drawEvents(m) {
  const ul = $("events"); ul.textContent = "";
  const list = m.events || [];
  $("eventnone").hidden = list.length > 0;
  for (const ev of list.slice().reverse()) {
    const li = document.createElement("li"); li.dataset.type = ev.type; if (ev.agent) li.dataset.agent = ev.agent;
    const when = document.createElement("span"); when.className = "when"; when.textContent = new Date(ev.at).toLocaleTimeString();
    const what = [ev.agent, ev.type, ev.msg_id ? "#" + ev.msg_id : "", ev.state, ev.status, ev.hold, ev.kind, ev.detail, ev.text,
      ev.lost ? ev.lost + " lost" : ""].filter(Boolean).join(" · ");
    li.append(when, document.createTextNode(what));
    ul.append(li);
  }
}

// The keys box (a session paired with --type): keys go to the pane at once,
// as typed in office's own window; the drain's queue is the composer.
async function typeKeys(text) {
  $("paneerr").textContent = "";
  try { await api("POST", "/api/input", { agent: shown, text }); }
  catch (e) { $("paneerr").textContent = e.message; }
}
$("keys").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = $("keytext").value;
  if (!text) return;
  await typeKeys(text); $("keytext").value = "";
});
for (const b of document.querySelectorAll("#keys button[data-key]")) b.addEventListener("click", () => typeKeys(JSON.parse('"' + b.dataset.key + '"')));

setInterval(() => { for (const el of document.querySelectorAll("#needs .age")) el.textContent = age(el.dataset.since); }, 5000);

let term = null;
// drawTerm draws the screen with xterm.js (vendored, web/static/vendor)
// when it loaded; the <pre> keeps the text either way.
function drawTerm(m) {
  if (!window.Terminal || !m.cols) return;
  if (!term) {
    document.body.classList.add("xterm");
    term = new window.Terminal({ cols: m.cols, rows: m.rows, fontSize: 12, disableStdin: true, cursorBlink: false, scrollback: 0 });
    term.open($("term"));
    // xterm.js draws no cursor until the terminal was focused or typed in
    // (this one never is: it only shows); a switch to the alternate
    // screen and back, on the empty terminal, counts as that.
    term.write("\x1b[?1047h\x1b[?1047l");
  } else if (term.cols !== m.cols || term.rows !== m.rows) {
    term.resize(m.cols, m.rows);
  }
  term.write("\x1b[?25l\x1b[H\x1b[2J" + (m.ansi || "") + cursorSeq(m.cursor));
}

// cursorSeq puts xterm.js's cursor where the agent's is, shown or hidden
// as the agent has it.
function cursorSeq(c) {
  if (!c) return "";
  return "\x1b[" + (c.y + 1) + ";" + (c.x + 1) + "H" + (c.visible ? "\x1b[?25h" : "\x1b[?25l");
}

// rows is the shown screen's text rows: the whole screen comes once (a
// "screen" message), then only the changed rows ("rows").
let rows = [];
function drawScreen(m) {
  rows = m.text ? m.text.replace(/\n$/, "").split("\n") : [];
  $("screen").textContent = m.text.replace(/\n+$/, "\n");
  drawTerm(m);
  drawOptions(m);
}

function drawRows(m) {
  let out = "";
  for (const r of m.changed || []) {
    rows[r.y] = r.text;
    out += "\x1b[" + (r.y + 1) + ";1H\x1b[0m\x1b[2K" + r.ansi;
  }
  $("screen").textContent = (rows.join("\n") + "\n").replace(/\n+$/, "\n");
  if (term && (out || m.cursor)) term.write(out + cursorSeq(m.cursor));
  drawOptions(m);
}

function drawOptions(m) {
  const box = $("options"); box.textContent = "";
  for (const o of m.options || []) {
    const b = document.createElement("button");
    b.textContent = o.num + ". " + o.label;
    b.addEventListener("click", () => act("/api/approve", { agent: shown, option: o.num }));
    box.append(b);
  }
  if (m.status !== lastStatus) { lastStatus = m.status; loadQueue(); }
}

async function act(path, body) {
  $("paneerr").textContent = "";
  try { const r = await api("POST", path, body); loadQueue(); return r; }
  catch (e) { $("paneerr").textContent = e.message; }
}

$("composer").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const text = $("text").value;
  if (!text.trim()) return;
  if (await act("/api/send", { agent: shown, text })) $("text").value = "";
});
$("pause").addEventListener("click", () => act("/api/pause", { agent: shown, paused: true }));
$("resume").addEventListener("click", () => act("/api/pause", { agent: shown, paused: false }));

async function loadQueue() {
  if (!shown) return;
  let list = [];
  try { list = await api("GET", "/api/queue?agent=" + encodeURIComponent(shown)); } catch (e) { return; }
  const ul = $("queue"); ul.textContent = "";
  for (const q of list || []) {
    const li = document.createElement("li");
    li.textContent = "#" + q.id + " " + q.text.slice(0, 120) + (q.held ? " — " + q.held : "");
    if (caps.includes("answer")) {
      for (const [label, path] of [["send now", "/api/queue/release"], ["remove", "/api/queue/rm"]]) {
        const b = document.createElement("button"); b.textContent = label;
        b.addEventListener("click", () => act(path, { id: q.id }));
        li.append(b);
      }
    }
    ul.append(li);
  }
}

start();
