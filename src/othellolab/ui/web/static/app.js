// The othellolab web board: renders the server's GameState and sends the human's actions.
// The rules live on the server (othellolab.core); this page only draws what it is told. The
// server's `view.kind` picks the drawing: "discs" (Othello-like boards), "pieces" (shogi-like
// boards with hands), or "text"; moves are named by the server, with where each acts.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

let state = null;        // the latest GameState from the server
let playersInfo = null;  // /api/players for the game chosen in the form
let gamesInfo = [];      // the games the server plays (from /api/players)
let aiPending = false;   // an /ai-move request is in flight
let hintPending = false;
let analysisPending = false;
let summaryDismissed = false;
let selected = null;     // pieces boards: {from: square} or {drop: letter} chosen by a click
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

function cap(t) {
  return t ? t.charAt(0).toUpperCase() + t.slice(1) : "";
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---------------------------------------------------------------------------------------------
// Rendering: the board

function flipped(s) {
  // The human's pieces sit at the bottom: turn a pieces board round for the second side.
  return s.view.kind === "pieces" && s.human === s.sides[1];
}

function buildCoords(s) {
  const v = s.view, files = $("files"), ranks = $("ranks");
  const cols = [...Array(v.cols).keys()], rows = [...Array(v.rows).keys()];
  if (flipped(s)) { cols.reverse(); rows.reverse(); }
  files.style.gridTemplateColumns = `repeat(${v.cols}, var(--cell))`;
  files.style.paddingLeft = files.style.paddingRight = "8px";
  files.style.columnGap = "2px";
  ranks.style.gridTemplateRows = `repeat(${v.rows}, var(--cell))`;
  ranks.style.paddingTop = "8px";
  ranks.style.rowGap = "2px";
  files.innerHTML = "";
  ranks.innerHTML = "";
  for (const c of cols) files.appendChild(el("span", "", (v.squares[c] || "").replace(/[0-9]+$/, "")));
  for (const r of rows) ranks.appendChild(el("span", "", (v.squares[r * v.cols] || "").replace(/^[a-z]+/, "")));
  // Hands sit above and below a pieces board: the rank labels start below the top one.
  ranks.style.marginTop = v.kind === "pieces" ? `calc(${$("hand-top").offsetHeight}px + 0.4em)` : "0";
}

// The latest report worth drawing on the board: a hint for this position, or the AI's
// report on the position before its last move.
function heatReport(s) {
  if (!$("show-heat").checked) return null;
  if (s.hint) return s.hint;
  const e = s.evaluation;
  if (e && e.ply === s.ply - 1) return e;
  return null;
}

// Policy share by square: summed over the moves that reach it (a drop and a move may share one).
function heatBySquare(s) {
  const e = heatReport(s);
  const heat = new Map();
  if (!e) return heat;
  if (e.moves) {
    for (const m of e.moves) {
      if (m.to && m.prior) heat.set(m.to, (heat.get(m.to) || 0) + m.prior);
    }
  } else if (e.policy && s.view.kind === "discs") {
    s.view.squares.forEach((name, i) => { if (e.policy[i] > 0) heat.set(name, e.policy[i]); });
  }
  return heat;
}

function addHeat(sq, p, maxP) {
  const heat = el("div", "heat");
  heat.style.opacity = (0.15 + 0.65 * p / maxP).toFixed(3);
  sq.appendChild(heat);
  if (p >= 0.005) sq.appendChild(el("span", "heat-label", Math.round(p * 100) + "%"));
}

function humanCanMove(s) {
  return s.to_move === "human" && !s.busy && !aiPending && !hintPending && !analysisPending;
}

function renderBoard(prev) {
  const s = state;
  const v = s.view;
  const sameGame = prev && prev.id === s.id && prev.game === s.game;
  // Small boards get bigger squares, so that every board takes about the same room.
  const most = Math.max(v.rows, v.cols);
  const cell = most >= 8 ? "min(9.5vmin, 68px)" : most >= 6 ? "min(12vmin, 86px)"
    : v.kind === "pieces" ? "min(14vmin, 96px)" : "min(16vmin, 112px)";
  document.documentElement.style.setProperty("--cell", cell);
  const board = $("board");
  board.className = "kind-" + v.kind;
  board.style.gridTemplateColumns = `repeat(${v.cols}, var(--cell))`;
  board.innerHTML = "";
  $("hand-top").hidden = $("hand-bottom").hidden = v.kind !== "pieces";
  if (v.kind === "discs") renderDiscs(s, sameGame ? prev : null);
  else if (v.kind === "pieces") renderPieces(s);
  else renderText(s);
  buildCoords(s);
}

function renderDiscs(s, prev) {
  const v = s.view, board = $("board");
  const legal = new Set(humanCanMove(s) ? s.legal : []);
  const heat = heatBySquare(s);
  const maxP = Math.max(...heat.values(), 1e-9);
  const hintMove = s.hint ? s.hint.move : null;
  v.squares.forEach((name, i) => {
    const sq = el("div", "sq");
    sq.dataset.square = name;
    sq.setAttribute("role", "gridcell");
    sq.setAttribute("aria-label", name);
    if (heat.has(name)) addHeat(sq, heat.get(name), maxP);
    const cell = v.cells[i];
    if (cell) {
      const color = cell === 1 ? "black" : "white";
      const disc = el("div", "disc " + color);
      const before = prev ? prev.view.cells[i] : cell;
      if (before === 0) disc.classList.add("placed");
      else if (before !== cell) disc.classList.add("flip-to-" + color);
      sq.appendChild(disc);
    } else if (legal.has(name)) {
      sq.classList.add("legal");
      sq.addEventListener("click", () => playMove(name));
    }
    if (name === s.last_move) {
      sq.classList.add("last");
      sq.appendChild(el("div", "last-mark"));
    }
    if (name === hintMove) sq.classList.add("hint");
    board.appendChild(sq);
  });
}

function renderText(s) {
  // A game without a drawing of its own: its text, and a button per legal move.
  const board = $("board");
  board.style.gridTemplateColumns = "auto";
  const box = el("div", "text-board");
  box.appendChild(el("pre", "", s.view.text));
  const moves = el("div", "text-moves");
  for (const m of humanCanMove(s) ? s.legal : []) {
    const b = el("button", "move-button", m);
    b.type = "button";
    b.dataset.move = m;
    b.addEventListener("click", () => playMove(m));
    moves.appendChild(b);
  }
  box.appendChild(moves);
  board.appendChild(box);
}

// Where each piece steps, from its owner's side (dx right, dy down): the dots on the tile.
const STEPS = {
  L: [[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [0, 1], [1, 1]],
  G: [[0, -1], [-1, 0], [1, 0], [0, 1]],
  E: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  C: [[0, -1]],
  H: [[-1, -1], [0, -1], [1, -1], [-1, 0], [1, 0], [0, 1]],
};
const PIECE_COLOURS = { L: "#f6b26b", G: "#c9a6e0", E: "#9fc5e8", C: "#d9ead3", H: "#f4a6c8" };

function pieceSvg(letter, name, upsideDown) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", "piece");
  svg.dataset.piece = letter;
  const g = document.createElementNS(SVG, "g");
  if (upsideDown) g.setAttribute("transform", "rotate(180 50 50)");
  const tile = document.createElementNS(SVG, "rect");
  for (const [k, val] of Object.entries({ x: 7, y: 7, width: 86, height: 86, rx: 12 })) tile.setAttribute(k, val);
  tile.setAttribute("fill", PIECE_COLOURS[letter] || "#eee");
  tile.setAttribute("stroke", letter === "H" ? "#b03070" : "#5b4630");
  tile.setAttribute("stroke-width", letter === "H" ? 5 : 3);
  g.appendChild(tile);
  for (const [dx, dy] of STEPS[letter] || []) {
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", 50 + dx * 33);
    dot.setAttribute("cy", 50 + dy * 33);
    dot.setAttribute("r", 5.5);
    dot.setAttribute("fill", "#b22222");
    g.appendChild(dot);
  }
  const big = document.createElementNS(SVG, "text");
  big.setAttribute("x", 50);
  big.setAttribute("y", 56);
  big.setAttribute("class", "piece-letter");
  big.textContent = letter;
  g.appendChild(big);
  const small = document.createElementNS(SVG, "text");
  small.setAttribute("x", 50);
  small.setAttribute("y", 76);
  small.setAttribute("class", "piece-name");
  small.textContent = name;
  g.appendChild(small);
  const title = document.createElementNS(SVG, "title");
  title.textContent = name;
  svg.appendChild(title);
  svg.appendChild(g);
  return svg;
}

function renderPieces(s) {
  const v = s.view, board = $("board");
  const flip = flipped(s);
  const canMove = humanCanMove(s);
  const moves = canMove ? s.legal_moves : [];
  if (selected && !moves.some((m) => (selected.drop ? m.drop === selected.drop : m.from === selected.from))) {
    selected = null;
  }
  const targets = new Set(selected
    ? moves.filter((m) => (selected.drop ? m.drop === selected.drop : m.from === selected.from)).map((m) => m.to)
    : []);
  const sources = new Set(moves.filter((m) => m.from).map((m) => m.from));
  const heat = heatBySquare(s);
  const maxP = Math.max(...heat.values(), 1e-9);
  const hint = s.hint ? s.legal_moves.find((m) => m.name === s.hint.move) : null;
  const last = s.last_parts;
  const order = [...v.squares.keys()];
  if (flip) order.reverse();
  for (const i of order) {
    const name = v.squares[i];
    const sq = el("div", "sq shogi");
    sq.dataset.square = name;
    sq.setAttribute("role", "gridcell");
    sq.setAttribute("aria-label", name);
    if (heat.has(name)) addHeat(sq, heat.get(name), maxP);
    const cell = v.cells[i];
    if (cell) {
      const svg = pieceSvg(cell.letter, cell.name, (cell.side === 1) !== flip);
      svg.classList.add(cell.side === 0 ? "side-first" : "side-second");
      sq.appendChild(svg);
    }
    if (sources.has(name)) sq.classList.add("movable");
    if (selected && selected.from === name) sq.classList.add("selected");
    if (targets.has(name)) sq.classList.add("target");
    if (last && (name === last.to || name === last.from)) sq.classList.add(name === last.to ? "last" : "last-from");
    if (hint && (name === hint.to || name === hint.from)) sq.classList.add("hint");
    sq.addEventListener("click", () => onSquareClick(name));
    board.appendChild(sq);
  }
  const top = flip ? 0 : 1;
  renderHand($("hand-top"), s, top, moves);
  renderHand($("hand-bottom"), s, 1 - top, moves);
}

function renderHand(box, s, side, moves) {
  box.innerHTML = "";
  box.dataset.side = s.sides[side];
  box.appendChild(el("span", "hand-label", `${cap(s.sides[side])}'s hand`));
  const hand = s.view.hands[side];
  let any = false;
  for (const [letter, count] of Object.entries(hand)) {
    if (!count) continue;
    any = true;
    const drops = moves.some((m) => m.drop === letter);
    const piece = el("button", "hand-piece");
    piece.type = "button";
    piece.dataset.piece = letter;
    piece.dataset.side = s.sides[side];
    piece.title = `${s.view.pieces[letter]} in ${s.sides[side]}'s hand` + (drops ? ": click, then an empty square, to drop it" : "");
    piece.appendChild(pieceSvg(letter, s.view.pieces[letter], box.id === "hand-top"));
    if (count > 1) piece.appendChild(el("span", "hand-count", "×" + count));
    piece.disabled = !drops;
    if (selected && selected.drop === letter && drops) piece.classList.add("selected");
    piece.addEventListener("click", () => onHandClick(letter));
    box.appendChild(piece);
  }
  if (!any) box.appendChild(el("span", "muted small", "empty"));
}

function onSquareClick(name) {
  const s = state;
  if (!s || !humanCanMove(s)) return;
  const moves = s.legal_moves;
  if (selected) {
    const m = moves.find((x) => x.to === name && (selected.drop ? x.drop === selected.drop : x.from === selected.from));
    if (m) {
      selected = null;
      playMove(m.name);
      return;
    }
  }
  selected = moves.some((m) => m.from === name) && !(selected && selected.from === name) ? { from: name } : null;
  render(s);
}

function onHandClick(letter) {
  const s = state;
  if (!s || !humanCanMove(s) || !s.legal_moves.some((m) => m.drop === letter)) return;
  selected = selected && selected.drop === letter ? null : { drop: letter };
  render(s);
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
    : hintPending || s.busy === "hint" ? "computing a hint…" : `${s.opponent} is thinking…`;
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

function formatValue(e, value) {
  if (value === null || value === undefined) return "";
  const digits = e.unit === "result" ? 2 : 1;
  return value > 0 ? "+" + value.toFixed(digits) : value.toFixed(digits);
}

function renderEvaluation() {
  const s = state;
  const e = s.hint || s.evaluation;
  const panel = $("eval-panel");
  if (!e) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const whose = s.human === "both" ? s.sides[0] : "you";
  let text = e.by === "hint" ? `Hint (${e.player}): ${e.move}` : `${e.player} played ${e.move}`;
  const result = e.unit === "result";
  if (e.value !== null) {
    const unit = result ? " (expected result, +1 = win)" : s.view.kind === "discs" ? " discs" : "";
    text += `; evaluation for ${whose}: ${formatValue(e, e.value)}${unit}${e.exact ? " (exact)" : ""}`;
    if (e.win_prob !== null) text += `, win ${(100 * e.win_prob).toFixed(0)}%`;
  }
  $("eval-text").textContent = text;
  let frac = 0.5;
  if (e.win_prob !== null) frac = e.win_prob;
  else if (e.value !== null) {
    const scale = result ? 1 : s.score_scale;
    frac = 0.5 + Math.max(-1, Math.min(1, e.value / scale)) / 2;
  }
  // The bar shows the human's share in their own colour (the first side's when both are human).
  const humanSecond = s.human === s.sides[1];
  $("eval-bar").style.background = humanSecond ? "#222" : "#f1f1ee";
  $("eval-fill").style.background = humanSecond ? "#f1f1ee" : "#222";
  $("eval-fill").style.width = (100 * frac).toFixed(1) + "%";
  $("eval-bar").hidden = e.value === null && e.win_prob === null;

  const search = [];
  if (e.depth !== null) search.push(`depth ${e.depth}`);
  if (e.simulations !== null) search.push(`${e.simulations} simulations`);
  if (e.nodes !== null) search.push(`${e.nodes.toLocaleString()} nodes`);
  if (e.seconds !== null) search.push(`${e.seconds} s`);
  $("eval-search").textContent = search.join(", ");
  $("eval-pv").textContent = e.pv ? "Principal variation: " + e.pv.join(" ") : "";

  const table = $("eval-moves");
  const body = table.querySelector("tbody");
  body.innerHTML = "";
  const rows = (e.moves || []).slice(0, 10);
  table.hidden = rows.length === 0;
  for (const m of rows) {
    const tr = el("tr");
    tr.dataset.move = m.move;
    tr.appendChild(el("td", "", m.move));
    tr.appendChild(el("td", "", m.prior === null ? "" : (100 * m.prior).toFixed(1) + "%"));
    tr.appendChild(el("td", "", m.visits === null ? "" : String(m.visits)));
    tr.appendChild(el("td", "", m.q === null ? "" : formatValue({ unit: "result" }, m.q)));
    tr.appendChild(el("td", "", m.score === null ? "" : formatValue(e, m.score) + (m.exact ? "!" : "")));
    body.appendChild(tr);
  }
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

function renderAnalysis() {
  const a = state.analysis;
  $("analysis-result").hidden = !a;
  if (!a) return;
  const svg = $("analysis-plot");
  svg.innerHTML = "";
  const W = 300, H = 120, n = Math.max(1, a.values.length - 1);
  const x = (i) => 6 + (i / n) * (W - 12);
  const y = (v) => H / 2 - v * (H / 2 - 8);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  add("rect", { x: 0, y: 0, width: W, height: H / 2, fill: "#3a3a3a" });
  add("rect", { x: 0, y: H / 2, width: W, height: H / 2, fill: "#f1f1ee" });
  add("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, stroke: "#999", "stroke-dasharray": "3 3" });
  let path = "";
  a.values.forEach((v, i) => {
    if (v === null) return;
    path += `${path && a.values[i - 1] !== null ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)} `;
  });
  add("path", { d: path, fill: "none", stroke: "#e8590c", "stroke-width": 2.5, class: "analysis-line" });
  const colours = { inaccuracy: "#fab005", mistake: "#f76707", blunder: "#c92a2a" };
  const marked = a.moves.filter((m) => m.verdict && m.verdict !== "good");
  for (const m of marked) {
    const v = a.values[m.ply + 1];
    if (v === null) continue;
    const dot = add("circle", { cx: x(m.ply + 1), cy: y(v), r: 4, fill: colours[m.verdict], class: "mistake-mark" });
    const t = document.createElementNS(SVG, "title");
    t.textContent = `${m.ply + 1}. ${m.move}: ${m.verdict}, best ${m.best}`;
    dot.appendChild(t);
  }
  add("text", { x: 4, y: 12, class: "plot-label", fill: "#eee" }, `${cap(state.sides[0])} ahead`);
  add("text", { x: 4, y: H - 4, class: "plot-label", fill: "#333" }, `${cap(state.sides[1])} ahead`);
  const count = (side, verdict) => marked.filter((m) => m.side === side && m.verdict === verdict).length;
  const parts = state.sides.map((side) =>
    `${cap(side)}: ${count(side, "blunder")} blunders, ${count(side, "mistake")} mistakes, ${count(side, "inaccuracy")} inaccuracies`);
  $("analysis-summary").textContent = `${a.player}, ${a.time_per_move} s a move, ${a.seconds} s in all` +
    (a.complete ? "" : " (cut short by the server's time cap)") + ". " + parts.join("; ") + ".";
  const list = $("analysis-mistakes");
  list.innerHTML = "";
  for (const m of marked.filter((m) => m.verdict !== "inaccuracy")) {
    const li = el("li", m.verdict, `${m.ply + 1}. ${m.side} ${m.move}: ${m.verdict} (best ${m.best}, lost ${m.loss.toFixed(2)})`);
    li.addEventListener("click", () => act("goto", { ply: m.ply }));
    list.appendChild(li);
  }
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

async function askHint(allMoves) {
  hintPending = true;
  render(state);
  try {
    const next = await api("POST", `/api/games/${state.id}/hint`, allMoves ? { all_moves: true } : undefined);
    hintPending = false;
    setState(next);
  } catch (err) {
    hintPending = false;
    showMessage(err.message);
    render(state);
  }
}

async function analyse() {
  analysisPending = true;
  render(state);
  try {
    const next = await api("POST", `/api/games/${state.id}/analyse`, { time_per_move: Number($("analysis-time").value) });
    analysisPending = false;
    setState(next);
  } catch (err) {
    analysisPending = false;
    showMessage(err.message);
    render(state);
  }
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
