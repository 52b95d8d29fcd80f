// The board itself, drawn from the server's `view`: its kind picks the drawing: "discs"
// (Othello-like boards), "pieces" (shogi-like boards with hands, played by select-then-move
// and drops) or "text" (a game without a drawing of its own: its text and a button per move).
// The rules live on the server; a board only draws what it is told and reports clicks.
"use strict";

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

// A square of the grid: named for clicks and screen readers, tinted by the policy's heat.
function squareEl(className, name, heat, maxP) {
  const sq = el("div", className);
  sq.dataset.square = name;
  sq.setAttribute("role", "gridcell");
  sq.setAttribute("aria-label", name);
  if (heat.has(name)) addHeat(sq, heat.get(name), maxP);
  return sq;
}

function renderDiscs(s, prev) {
  const v = s.view, board = $("board");
  const legal = new Set(humanCanMove(s) ? s.legal : []);
  const heat = heatBySquare(s);
  const maxP = Math.max(...heat.values(), 1e-9);
  const hintMove = s.hint ? s.hint.move : null;
  v.squares.forEach((name, i) => {
    const sq = squareEl("sq", name, heat, maxP);
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
    const b = el("button", "", m);
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
  const svg = svgEl("svg", { viewBox: "0 0 100 100", class: "piece" });
  svg.dataset.piece = letter;
  const g = svgEl("g", upsideDown ? { transform: "rotate(180 50 50)" } : {});
  g.appendChild(svgEl("rect", {
    x: 7, y: 7, width: 86, height: 86, rx: 12,
    fill: PIECE_COLOURS[letter] || "#eee",
    stroke: letter === "H" ? "#b03070" : "#5b4630",
    "stroke-width": letter === "H" ? 5 : 3,
  }));
  for (const [dx, dy] of STEPS[letter] || []) {
    g.appendChild(svgEl("circle", { cx: 50 + dx * 33, cy: 50 + dy * 33, r: 5.5, fill: "#b22222" }));
  }
  g.appendChild(svgEl("text", { x: 50, y: 56, class: "piece-letter" }, letter));
  g.appendChild(svgEl("text", { x: 50, y: 76, class: "piece-name" }, name));
  svg.appendChild(svgEl("title", {}, name));
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
    const sq = squareEl("sq shogi", name, heat, maxP);
    const cell = v.cells[i];
    if (cell) {
      sq.appendChild(pieceSvg(cell.letter, cell.name, (cell.side === 1) !== flip));
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
