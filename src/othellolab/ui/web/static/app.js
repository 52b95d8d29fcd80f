// The othellolab web board: renders the server's GameState and sends the human's actions.
// The rules live on the server (othellolab.core); this page only draws what it is told.
"use strict";

const FILES = "abcdefgh";
const $ = (id) => document.getElementById(id);

let state = null;        // the latest GameState from the server
let playersInfo = null;  // /api/players
let aiPending = false;   // an /ai-move request is in flight
let hintPending = false;
let summaryDismissed = false;
let inFlight = 0;        // requests not yet answered (shown as data-pending on <body>, for tests)

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  document.body.dataset.pending = String(++inFlight);
  try {
    const response = await fetch(path, options);
    const data = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) {
      const detail = data && data.detail ? data.detail : `${response.status} ${response.statusText}`;
      throw new Error(detail);
    }
    return data;
  } finally {
    document.body.dataset.pending = String(--inFlight);
  }
}

function showMessage(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

function squareName(i, size) {
  return FILES[i % size] + (Math.floor(i / size) + 1);
}

// ---------------------------------------------------------------------------------------------
// Rendering

function buildCoords(size) {
  const files = $("files"), ranks = $("ranks");
  files.style.gridTemplateColumns = `repeat(${size}, var(--cell))`;
  files.style.paddingLeft = files.style.paddingRight = "8px";
  files.style.columnGap = "2px";
  ranks.style.gridTemplateRows = `repeat(${size}, var(--cell))`;
  ranks.style.paddingTop = "8px";
  ranks.style.rowGap = "2px";
  files.innerHTML = "";
  ranks.innerHTML = "";
  for (let c = 0; c < size; c++) {
    const s = document.createElement("span");
    s.textContent = FILES[c];
    files.appendChild(s);
  }
  for (let r = 0; r < size; r++) {
    const s = document.createElement("span");
    s.textContent = String(r + 1);
    ranks.appendChild(s);
  }
}

function heatPolicy(s) {
  if (!$("show-heat").checked) return null;
  if (s.hint && s.hint.policy) return s.hint.policy;
  const e = s.evaluation;
  if (e && e.policy && e.ply === s.ply - 1) return e.policy;
  return null;
}

function renderBoard(prev) {
  const s = state;
  const board = $("board");
  const size = s.size;
  const sameGame = prev && prev.id === s.id && prev.size === s.size;
  // Small boards get bigger squares, so that every board takes about the same room.
  const cell = { 8: "min(9.5vmin, 68px)", 6: "min(12vmin, 86px)", 4: "min(16vmin, 112px)" }[size];
  document.documentElement.style.setProperty("--cell", cell);
  if (!sameGame) buildCoords(size);
  board.style.gridTemplateColumns = `repeat(${size}, var(--cell))`;
  board.innerHTML = "";
  const humanTurn = s.to_move === "human" && !s.busy && !aiPending;
  const legal = new Set(humanTurn ? s.legal : []);
  const policy = heatPolicy(s);
  const maxP = policy ? Math.max(...policy.slice(0, size * size), 1e-9) : 0;
  const hintMove = s.hint ? s.hint.move : null;
  for (let i = 0; i < size * size; i++) {
    const name = squareName(i, size);
    const sq = document.createElement("div");
    sq.className = "sq";
    sq.dataset.square = name;
    sq.setAttribute("role", "gridcell");
    sq.setAttribute("aria-label", name);
    if (policy && policy[i] > 0) {
      const heat = document.createElement("div");
      heat.className = "heat";
      heat.style.opacity = (0.15 + 0.65 * policy[i] / maxP).toFixed(3);
      sq.appendChild(heat);
      if (policy[i] >= 0.005) {
        const label = document.createElement("span");
        label.className = "heat-label";
        label.textContent = Math.round(policy[i] * 100) + "%";
        sq.appendChild(label);
      }
    }
    const cell = s.cells[i];
    if (cell) {
      const disc = document.createElement("div");
      const color = cell === 1 ? "black" : "white";
      disc.className = "disc " + color;
      const before = sameGame ? prev.cells[i] : cell;
      if (before === 0) disc.classList.add("placed");
      else if (before !== cell) disc.classList.add("flip-to-" + color);
      sq.appendChild(disc);
    } else if (legal.has(name)) {
      sq.classList.add("legal");
      sq.addEventListener("click", () => playMove(name));
    }
    if (name === s.last_move) {
      sq.classList.add("last");
      const mark = document.createElement("div");
      mark.className = "last-mark";
      sq.appendChild(mark);
    }
    if (name === hintMove) sq.classList.add("hint");
    board.appendChild(sq);
  }
}

function colourLabel(colour) {
  if (state.human === "both") return "";
  return state.human === colour ? "(you)" : "(" + state.opponent + ")";
}

function renderSide() {
  const s = state;
  $("score-black").textContent = s.black_discs;
  $("score-white").textContent = s.white_discs;
  $("who-black").textContent = colourLabel("black");
  $("who-white").textContent = colourLabel("white");
  $("score-row-black").classList.toggle("to-move", !s.game_over && s.turn === "black");
  $("score-row-white").classList.toggle("to-move", !s.game_over && s.turn === "white");
  $("opponent-label").textContent =
    s.human === "both" ? `${s.size}×${s.size}, both sides human` : `${s.size}×${s.size} against ${s.opponent}`;

  let status;
  if (s.game_over) status = "Game over: " + s.result.text;
  else if (s.to_move === "ai") status = `${cap(s.turn)} to move (AI)`;
  else if (s.must_pass) status = `${cap(s.turn)} has no legal move and must pass`;
  else status = `${cap(s.turn)} to move` + (s.human === "both" ? "" : " (you)");
  if (s.last_move === "pass" && !s.game_over) status += ` — ${s.turn === "black" ? "white" : "black"} passed`;
  $("status").textContent = status;

  const thinking = aiPending || hintPending || s.busy;
  $("thinking").hidden = !thinking;
  $("thinking-text").textContent = hintPending || s.busy === "hint" ? "computing a hint…" : `${s.opponent} is thinking…`;
  const idle = !thinking;
  $("btn-pass").hidden = !(s.to_move === "human" && s.must_pass);
  $("btn-pass").disabled = !idle;
  $("btn-ai").hidden = !(s.to_move === "ai" && s.can_redo);
  $("btn-ai").disabled = !idle;
  $("btn-undo").disabled = !idle || !s.can_undo;
  $("btn-redo").disabled = !idle || !s.can_redo;
  $("btn-hint").disabled = !idle || s.game_over;
  $("btn-first").disabled = !idle || s.ply === 0;
  $("btn-prev").disabled = !idle || s.ply === 0;
  $("btn-next").disabled = !idle || !s.can_redo;
  $("btn-last").disabled = !idle || !s.can_redo;

  renderEvaluation();
  renderMoves();
  $("transcript").value = s.transcript;
  if (location.hash !== "#g=" + s.id) history.replaceState(null, "", "#g=" + s.id);

  const over = $("game-over");
  if (s.game_over && !summaryDismissed) {
    const r = s.result;
    $("result").textContent = cap(r.text);
    let detail = `Black ${r.black} – White ${r.white}.`;
    if (r.human_score !== null) {
      detail += r.human_score > 0 ? ` You win by ${r.human_score}!`
        : r.human_score < 0 ? ` You lose by ${-r.human_score}.` : " A draw.";
    }
    $("result-detail").textContent = detail;
    over.hidden = false;
  } else {
    over.hidden = true;
  }
}

function renderEvaluation() {
  const s = state;
  const e = s.hint || s.evaluation;
  const panel = $("eval-panel");
  if (!e || (e.value === null && !e.policy)) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const whose = s.human === "both" ? "black" : "you";
  const who = e.by === "hint" ? `Hint (${e.player}): ${e.move}` : `${e.player} played ${e.move}`;
  let text = who;
  const result = e.unit === "result";
  if (e.value !== null) {
    const digits = result ? 2 : 1;
    const v = e.value > 0 ? "+" + e.value.toFixed(digits) : e.value.toFixed(digits);
    const unit = result ? " (expected result, +1 = win)" : " discs";
    text += `; evaluation for ${whose}: ${v}${unit}${e.exact ? " (exact)" : ""}`;
    if (e.win_prob !== null) text += `, win ${(100 * e.win_prob).toFixed(0)}%`;
  }
  $("eval-text").textContent = text;
  let frac = 0.5;
  if (e.win_prob !== null) frac = e.win_prob;
  else if (e.value !== null) {
    const scale = result ? 1 : s.size * s.size;
    frac = 0.5 + Math.max(-1, Math.min(1, e.value / scale)) / 2;
  }
  // The bar shows the human's share in their own colour (black when both are human).
  const humanWhite = s.human === "white";
  $("eval-bar").style.background = humanWhite ? "#222" : "#f1f1ee";
  $("eval-fill").style.background = humanWhite ? "#f1f1ee" : "#222";
  $("eval-fill").style.width = (100 * frac).toFixed(1) + "%";
  $("eval-bar").hidden = e.value === null && e.win_prob === null;
}

function renderMoves() {
  const s = state;
  const list = $("moves");
  list.innerHTML = "";
  // Black moves first; a pass (explicit in the record) hands the turn over like any move.
  let colour = "b";
  s.moves.forEach((m, k) => {
    const li = document.createElement("li");
    li.innerHTML = `<span class="n">${k + 1}.</span><span class="dot ${colour}"></span>`;
    li.appendChild(document.createTextNode(m));
    if (k >= s.ply) li.classList.add("future");
    if (k === s.ply - 1) li.classList.add("current");
    li.title = `go to the position after move ${k + 1}`;
    li.addEventListener("click", () => act("goto", { ply: k + 1 }));
    list.appendChild(li);
    colour = colour === "b" ? "w" : "b";
  });
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function cap(t) {
  return t.charAt(0).toUpperCase() + t.slice(1);
}

function render(prev) {
  renderBoard(prev);
  renderSide();
}

function setState(next) {
  const prev = state;
  if (!prev || prev.id !== next.id) summaryDismissed = false;
  state = next;
  render(prev);
  maybeAiMove();
}

// ---------------------------------------------------------------------------------------------
// Actions

async function maybeAiMove() {
  const s = state;
  if (!s || aiPending || s.to_move !== "ai" || s.can_redo || s.busy) return;
  await aiMove();
}

async function aiMove() {
  aiPending = true;
  render(state);
  const id = state.id;
  try {
    const next = await api("POST", `/api/games/${id}/ai-move`);
    aiPending = false;
    if (state.id === id) setState(next);
  } catch (err) {
    aiPending = false;
    showMessage(err.message);
    render(state);
  }
}

async function act(action, body) {
  if (!state) return;
  showMessage("");
  try {
    setState(await api("POST", `/api/games/${state.id}/${action}`, body));
  } catch (err) {
    showMessage(err.message);
  }
}

function playMove(name) {
  return act("move", { move: name });
}

async function askHint() {
  hintPending = true;
  render(state);
  try {
    const next = await api("POST", `/api/games/${state.id}/hint`);
    hintPending = false;
    setState(next);
  } catch (err) {
    hintPending = false;
    showMessage(err.message);
    render(state);
  }
}

function opponentSpec() {
  const name = $("new-opponent").value;
  const parts = [];
  for (const input of $("opponent-options").querySelectorAll("input")) {
    const v = input.value.trim();
    if (v !== "") parts.push(`${input.dataset.option}=${v}`);
  }
  return parts.length ? `${name}:${parts.join(",")}` : name;
}

async function newGame(extra) {
  showMessage("");
  const body = {
    size: Number($("new-size").value),
    human: $("new-human").value,
    opponent: opponentSpec(),
    ...extra,
  };
  const t = $("new-time").value;
  if (t !== "") body.think_time = Number(t);
  try {
    setState(await api("POST", "/api/games", body));
  } catch (err) {
    showMessage(err.message);
  }
}

function showOptions() {
  const entry = playersInfo.players.find((p) => p.name === $("new-opponent").value);
  const box = $("opponent-options");
  box.innerHTML = "";
  if (!entry) return;
  $("opponent-help").textContent = entry.help;
  for (const [key, def] of Object.entries(entry.options)) {
    const label = document.createElement("label");
    label.textContent = key;
    const input = document.createElement("input");
    input.dataset.option = key;
    input.name = "opt-" + key;
    const suggested = key in entry.defaults ? entry.defaults[key] : null;
    input.value = suggested === null ? "" : String(suggested);
    input.placeholder = def === null ? "none" : String(def);
    if (entry.ranges && entry.ranges[key]) {
      label.title = entry.ranges[key];
      input.title = entry.ranges[key];
    }
    label.appendChild(input);
    box.appendChild(label);
  }
}

async function copyTranscript() {
  const text = state ? state.transcript : "";
  try {
    await navigator.clipboard.writeText(text);
    showMessage("");
    $("btn-copy").textContent = "Copied";
  } catch (err) {
    $("transcript").select();
    const ok = document.execCommand && document.execCommand("copy");
    $("btn-copy").textContent = ok ? "Copied" : "Select + copy";
  }
  setTimeout(() => ($("btn-copy").textContent = "Copy"), 1500);
}

async function init() {
  $("btn-pass").addEventListener("click", () => playMove("pass"));
  $("btn-ai").addEventListener("click", aiMove);
  $("btn-undo").addEventListener("click", () => act("undo"));
  $("btn-redo").addEventListener("click", () => act("redo"));
  $("btn-hint").addEventListener("click", askHint);
  $("btn-first").addEventListener("click", () => act("goto", { ply: 0 }));
  $("btn-prev").addEventListener("click", () => act("goto", { ply: state.ply - 1 }));
  $("btn-next").addEventListener("click", () => act("goto", { ply: state.ply + 1 }));
  $("btn-last").addEventListener("click", () => act("goto", { ply: state.moves.length }));
  $("btn-copy").addEventListener("click", copyTranscript);
  $("btn-again").addEventListener("click", () => newGame({}));
  $("btn-close-summary").addEventListener("click", () => {
    summaryDismissed = true;
    $("game-over").hidden = true;
  });
  $("show-heat").addEventListener("change", () => state && renderBoard(state));
  $("new-opponent").addEventListener("change", showOptions);
  $("new-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    newGame({});
  });
  $("load-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    // A loaded game is replayed with both sides human; play on from any move.
    newGame({ record: $("load-text").value, ply: 0, human: "both" });
  });
  document.addEventListener("keydown", (ev) => {
    if (!state || ev.target.closest("input, textarea, select")) return;
    if (aiPending || hintPending) return;
    if (ev.key === "ArrowLeft" && state.ply > 0) act("goto", { ply: state.ply - 1 });
    if (ev.key === "ArrowRight" && state.can_redo) act("goto", { ply: state.ply + 1 });
  });

  try {
    playersInfo = await api("GET", "/api/players");
  } catch (err) {
    showMessage("cannot reach the server: " + err.message);
    return;
  }
  const select = $("new-opponent");
  for (const p of playersInfo.players) {
    const opt = document.createElement("option");
    opt.value = p.name;
    opt.textContent = p.name;
    if (p.rating) {  // the strength ladder's rating of its default setting (docs/arena.md)
      opt.textContent += ` (Elo ${Math.round(p.rating.elo)})`;
      opt.title = `${p.rating.spec}: Elo ${Math.round(p.rating.low)} to ${Math.round(p.rating.high)}`;
    }
    select.appendChild(opt);
  }
  select.value = playersInfo.default_opponent.split(":")[0];
  showOptions();
  if (playersInfo.limits) {
    const time = $("new-time");
    time.max = String(playersInfo.limits.max_think_time);
    time.title = `seconds per AI move, at most ${playersInfo.limits.max_think_time} on this server`;
  }
  $("load-formats").textContent = "Formats: " + playersInfo.formats.join(", ") + ". The game opens at its first move; step with ‹ › or the arrow keys.";

  const m = location.hash.match(/^#g=([\w-]+)$/);
  if (m) {
    try {
      setState(await api("GET", `/api/games/${m[1]}`));
      $("new-panel").open = false;
      return;
    } catch (err) {
      // expired or unknown: start afresh
    }
  }
  await newGame({});
}

init();
