// The othellolab web board's state and controls, loaded last: the latest GameState from the
// server, the human's actions sent to it, the side panel (scores, status, buttons, move list,
// result), the new-game and load forms, and start-up. The rules live on the server
// (othellolab.core); boards.js draws the board and thoughts.js the AI's reports.
"use strict";

let state = null;        // the latest GameState from the server
let playersInfo = null;  // /api/players for the game chosen in the form
let gamesInfo = [];      // the games the server plays (from /api/players)
let aiPending = false;   // an /ai-move request is in flight
let hintPending = false;
let analysisPending = false;
let summaryDismissed = false;
let queuePlace = null;   // while an AI move waits for a free search worker: its place (1: next)
let selected = null;     // pieces boards: {from: square} or {drop: letter} chosen by a click

function humanCanMove(s) {
  return s.to_move === "human" && !s.busy && !aiPending && !hintPending && !analysisPending;
}

// ---------------------------------------------------------------------------------------------
// Rendering: the side panel

function sideLabel(side) {
  if (state.human === "both") return "";
  return state.human === side ? "(you)" : "(" + state.opponent + ")";
}

function renderSide() {
  const s = state;
  const discs = s.view.kind === "discs";
  const [first, second] = s.sides;
  $("side-black").textContent = cap(first);
  $("side-white").textContent = cap(second);
  $("score-black").textContent = discs ? s.black_discs : "";
  $("score-white").textContent = discs ? s.white_discs : "";
  $("who-black").textContent = sideLabel(first);
  $("who-white").textContent = sideLabel(second);
  $("score-row-black").classList.toggle("to-move", !s.game_over && s.turn === first);
  $("score-row-white").classList.toggle("to-move", !s.game_over && s.turn === second);
  const where = discs ? `${s.size}×${s.size}` : s.title;
  $("opponent-label").textContent =
    s.human === "both" ? `${where}, both sides human` : `${where} against ${s.opponent}`;

  let status;
  if (s.game_over) status = "Game over: " + resultTitle(s.result);
  else if (s.to_move === "ai") status = `${cap(s.turn)} to move (AI)`;
  else if (s.must_pass) status = `${cap(s.turn)} has no legal move and must pass`;
  else status = `${cap(s.turn)} to move` + (s.human === "both" ? "" : " (you)");
  if (s.last_move === "pass" && !s.game_over) status += ` — ${s.turn === first ? second : first} passed`;
  else if (s.last_move && s.last_move.endsWith("+")) status += ` — ${s.last_move}: the chick was promoted to a hen`;
  if (selected && !s.game_over) {
    status += selected.drop ? ` — drop the ${s.view.pieces[selected.drop]} on a marked square`
      : ` — move the piece on ${selected.from} to a marked square`;
  }
  $("status").textContent = status;

  const thinking = aiPending || hintPending || analysisPending || s.busy;
  $("thinking").hidden = !thinking;
  $("thinking-text").textContent = analysisPending || s.busy === "analysis" ? "analysing the game…"
    : hintPending || s.busy === "hint" ? "computing a hint…"
    : queuePlace || s.queue ? `queued, position ${queuePlace || s.queue} (waiting for a free search worker)`
    : `${s.opponent} is thinking…`;
  const idle = !thinking;
  $("btn-pass").hidden = !(s.to_move === "human" && s.must_pass);
  $("btn-pass").disabled = !idle;
  $("btn-ai").hidden = !(s.to_move === "ai" && s.can_redo);
  $("btn-ai").disabled = !idle;
  $("btn-undo").disabled = !idle || !s.can_undo;
  $("btn-redo").disabled = !idle || !s.can_redo;
  $("btn-hint").disabled = !idle || s.game_over;
  $("btn-all-moves").disabled = !idle || s.game_over;
  $("btn-analyse").disabled = !idle || s.moves.length === 0;
  $("btn-first").disabled = !idle || s.ply === 0;
  $("btn-prev").disabled = !idle || s.ply === 0;
  $("btn-next").disabled = !idle || !s.can_redo;
  $("btn-last").disabled = !idle || !s.can_redo;

  renderEvaluation();
  renderMoves();
  renderAnalysis();
  $("transcript").value = s.transcript;
  $("position-label").hidden = s.position === null;
  $("position").value = s.position || "";
  if (location.hash !== "#g=" + s.id) history.replaceState(null, "", "#g=" + s.id);

  const over = $("game-over");
  if (s.game_over && !summaryDismissed) {
    const r = s.result;
    $("result").textContent = cap(resultTitle(r));
    let detail = discs ? `Black ${r.black} – White ${r.white}.` : r.reason || "";
    if (r.human_score !== null) {
      const unit = discs ? ` by ${Math.abs(r.human_score)}` : "";
      detail += r.human_score > 0 ? ` You win${unit}!` : r.human_score < 0 ? ` You lose${unit}.` : " A draw.";
    }
    $("result-detail").textContent = detail.trim();
    over.hidden = false;
  } else {
    over.hidden = true;
  }
}

function resultTitle(r) {
  // Othello's text says who won ("black wins 40-24"); other games' text says how it ended.
  if (state.view.kind === "discs") return r.text;
  return (r.winner ? `${r.winner} wins` : "a draw") + ` (${r.text})`;
}

function renderMoves() {
  const s = state;
  const list = $("moves");
  list.innerHTML = "";
  const verdicts = new Map();
  if (s.analysis) for (const m of s.analysis.moves) if (m.verdict && m.verdict !== "good") verdicts.set(m.ply, m);
  // The first side moves first; a pass (explicit in the record) hands the turn over like any move.
  let colour = "b";
  s.moves.forEach((m, k) => {
    const li = el("li");
    li.innerHTML = `<span class="n">${k + 1}.</span><span class="dot ${colour}"></span>`;
    li.appendChild(document.createTextNode(m));
    if (k >= s.ply) li.classList.add("future");
    if (k === s.ply - 1) li.classList.add("current");
    li.title = `go to the position after move ${k + 1}`;
    const mark = verdicts.get(k);
    if (mark) {
      li.classList.add(mark.verdict);
      li.title += ` (${mark.verdict}; best ${mark.best})`;
    }
    li.addEventListener("click", () => act("goto", { ply: k + 1 }));
    list.appendChild(li);
    colour = colour === "b" ? "w" : "b";
  });
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function render(prev) {
  renderBoard(prev);
  renderSide();
}

function setState(next) {
  const prev = state;
  if (!prev || prev.id !== next.id) {
    summaryDismissed = false;
    selected = null;
  }
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
  // While the server queues the search, its place shows ("queued, position N").
  const poll = setInterval(async () => {
    try {
      const response = await fetch(`/api/games/${id}`);
      if (!response.ok || !aiPending || state.id !== id) return;
      const place = (await response.json()).queue || null;
      if (place !== queuePlace) { queuePlace = place; renderSide(); }
    } catch (err) { /* the answer to the move will say what went wrong */ }
  }, 500);
  try {
    const next = await api("POST", `/api/games/${id}/ai-move`);
    aiPending = false;
    if (state.id === id) setState(next);
  } catch (err) {
    aiPending = false;
    showMessage(err.message);  // a busy server's 503 says when to try again
    render(state);
  } finally {
    clearInterval(poll);
    queuePlace = null;
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

// A slow request (a hint, an analysis): its flag is up while it runs, its answer becomes the
// state, and a refusal is shown.
async function pendingRequest(setPending, path, body) {
  setPending(true);
  render(state);
  try {
    const next = await api("POST", path, body);
    setPending(false);
    setState(next);
  } catch (err) {
    setPending(false);
    showMessage(err.message);
    render(state);
  }
}

function askHint(allMoves) {
  return pendingRequest((on) => { hintPending = on; }, `/api/games/${state.id}/hint`,
    allMoves ? { all_moves: true } : undefined);
}

function analyse() {
  return pendingRequest((on) => { analysisPending = on; }, `/api/games/${state.id}/analyse`,
    { time_per_move: Number($("analysis-time").value) });
}

// ---------------------------------------------------------------------------------------------
// The new-game form

function chosenGame() {
  return gamesInfo.find((g) => g.name === $("new-game").value) || gamesInfo[0];
}

function chosenVariant() {
  // The chosen game at the chosen size (its key and default opponent).
  const g = chosenGame();
  if (!g) return null;
  const size = Number($("new-size").value);
  return g.variants.find((v) => v.size === size) || g.variants[0];
}

function fillSides(g) {
  const select = $("new-human");
  const before = select.value;
  select.innerHTML = "";
  const add = (value, text) => {
    const opt = el("option", "", text);
    opt.value = value;
    select.appendChild(opt);
  };
  add(g.sides[0], `${g.sides[0]} (first)`);
  add(g.sides[1], g.sides[1]);
  add("random", "random side");
  add("both", "both sides");
  if ([...select.options].some((o) => o.value === before)) select.value = before;
}

function splitSpec(spec) {
  const [name, rest] = spec.split(/:(.*)/s);
  const options = {};
  for (const part of (rest || "").split(",")) {
    const [k, v] = part.split("=");
    if (k && v !== undefined) options[k.trim()] = v.trim();
  }
  return { name, options };
}

function chooseOpponent(spec) {
  const { name, options } = splitSpec(spec);
  const select = $("new-opponent");
  if ([...select.options].some((o) => o.value === name)) select.value = name;
  showOptions(select.value === name ? options : {});
}

function onSizeChange() {
  const variant = chosenVariant();
  if (variant) chooseOpponent(variant.default_opponent);
}

async function loadPlayers() {
  const g = chosenGame();
  const query = g ? `?game=${encodeURIComponent(g.name)}` : "";
  playersInfo = await api("GET", "/api/players" + query);
  gamesInfo = playersInfo.games;
  const select = $("new-opponent");
  select.innerHTML = "";
  for (const p of playersInfo.players) {
    const opt = el("option", "", p.name);
    opt.value = p.name;
    opt.title = p.help;
    if (p.rating) {  // the strength ladder's rating of its default setting (docs/arena.md)
      opt.textContent += ` (Elo ${Math.round(p.rating.elo)})`;
      opt.title = `${p.rating.spec}: Elo ${Math.round(p.rating.low)} to ${Math.round(p.rating.high)}`;
    }
    select.appendChild(opt);
  }
  const game = chosenGame();
  $("new-size-label").hidden = !game || game.sizes.length < 2;
  if (game) fillSides(game);
  const variant = chosenVariant();
  chooseOpponent(variant ? variant.default_opponent : playersInfo.default_opponent);
  $("load-position-label").hidden = !game || !game.position_format;
  $("load-position-format").textContent = game && game.position_format ? game.position_format.toUpperCase() : "";
  $("position-format").textContent = game && game.position_format ? game.position_format.toUpperCase() : "Position";
  $("load-formats").textContent = "Formats: " + playersInfo.formats.join(", ") +
    (game && game.position_format ? `; a start position in ${game.position_format.toUpperCase()}` : "") +
    ". The game opens at its first move; step with ‹ › or the arrow keys.";
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
  const g = chosenGame();
  const body = {
    game: g ? g.name : "othello",
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

function showOptions(given) {
  const entry = playersInfo.players.find((p) => p.name === $("new-opponent").value);
  const box = $("opponent-options");
  box.innerHTML = "";
  if (!entry) return;
  $("opponent-help").textContent = entry.help;
  for (const [key, def] of Object.entries(entry.options)) {
    const label = el("label", "", key);
    const input = el("input");
    input.dataset.option = key;
    input.name = "opt-" + key;
    const suggested = given && key in given ? given[key] : key in entry.defaults ? entry.defaults[key] : null;
    input.value = suggested === null ? "" : String(suggested);
    input.placeholder = def === null ? "none" : String(def);
    if (entry.ranges && entry.ranges[key]) {
      label.title = entry.ranges[key];
      input.title = entry.ranges[key];
    }
    if (key === "model" && entry.models) {  // the server's models of this game, as choices
      const list = el("datalist");
      list.id = "models-" + entry.name;
      for (const name of entry.models) {
        const opt = el("option");
        opt.value = name;
        list.appendChild(opt);
      }
      input.setAttribute("list", list.id);
      label.appendChild(list);
    }
    label.appendChild(input);
    box.appendChild(label);
  }
}

async function copyField(field, button) {
  const text = $(field).value;
  try {
    await navigator.clipboard.writeText(text);
    showMessage("");
    $(button).textContent = "Copied";
  } catch (err) {
    $(field).select();
    const ok = document.execCommand && document.execCommand("copy");
    $(button).textContent = ok ? "Copied" : "Select + copy";
  }
  setTimeout(() => ($(button).textContent = "Copy"), 1500);
}

async function init() {
  $("btn-pass").addEventListener("click", () => playMove("pass"));
  $("btn-ai").addEventListener("click", aiMove);
  $("btn-undo").addEventListener("click", () => act("undo"));
  $("btn-redo").addEventListener("click", () => act("redo"));
  $("btn-hint").addEventListener("click", () => askHint(false));
  $("btn-all-moves").addEventListener("click", () => askHint(true));
  $("btn-first").addEventListener("click", () => act("goto", { ply: 0 }));
  $("btn-prev").addEventListener("click", () => act("goto", { ply: state.ply - 1 }));
  $("btn-next").addEventListener("click", () => act("goto", { ply: state.ply + 1 }));
  $("btn-last").addEventListener("click", () => act("goto", { ply: state.moves.length }));
  $("btn-copy").addEventListener("click", () => copyField("transcript", "btn-copy"));
  $("btn-copy-position").addEventListener("click", () => copyField("position", "btn-copy-position"));
  $("btn-again").addEventListener("click", () => newGame({}));
  $("btn-close-summary").addEventListener("click", () => {
    summaryDismissed = true;
    $("game-over").hidden = true;
  });
  $("show-heat").addEventListener("change", () => state && renderBoard(state));
  $("new-opponent").addEventListener("change", () => showOptions({}));
  $("new-size").addEventListener("change", onSizeChange);
  $("new-game").addEventListener("change", () => loadPlayers().catch((err) => showMessage(err.message)));
  $("new-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    newGame({});
  });
  $("analysis-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    analyse();
  });
  $("load-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    // A loaded game is replayed with both sides human; play on from any move.
    const extra = { human: "both" };
    const record = $("load-text").value.trim();
    const position = $("load-position").value.trim();
    if (record) Object.assign(extra, { record, ply: 0 });
    if (position && !$("load-position-label").hidden) extra.position = position;
    newGame(extra);
  });
  document.addEventListener("keydown", (ev) => {
    if (!state || ev.target.closest("input, textarea, select")) return;
    if (aiPending || hintPending || analysisPending) return;
    if (ev.key === "ArrowLeft" && state.ply > 0) act("goto", { ply: state.ply - 1 });
    if (ev.key === "ArrowRight" && state.can_redo) act("goto", { ply: state.ply + 1 });
    if (ev.key === "Escape" && selected) {
      selected = null;
      render(state);
    }
  });

  try {
    await loadPlayers();
  } catch (err) {
    showMessage("cannot reach the server: " + err.message);
    return;
  }
  const gameSelect = $("new-game");
  for (const g of gamesInfo) {
    const opt = el("option", "", g.title);
    opt.value = g.name;
    gameSelect.appendChild(opt);
  }
  if (playersInfo.limits) {
    const time = $("new-time");
    time.max = String(playersInfo.limits.max_think_time);
    time.title = `seconds per AI move, at most ${playersInfo.limits.max_think_time} on this server`;
    $("analysis-time").max = String(playersInfo.limits.max_think_time);
  }

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
