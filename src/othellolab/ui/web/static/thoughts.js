// What the AI thinks: the policy heat map on the board's squares, the evaluation panel (the
// value bar, the search figures and the per-move table) and the whole game's analysis plot.
"use strict";

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
// The server lists every legal move with its share whenever the player gave a policy.
function heatBySquare(s) {
  const e = heatReport(s);
  const heat = new Map();
  if (!e || !e.moves) return heat;
  for (const m of e.moves) {
    if (m.to && m.prior) heat.set(m.to, (heat.get(m.to) || 0) + m.prior);
  }
  return heat;
}

function addHeat(sq, p, maxP) {
  const heat = el("div", "heat");
  heat.style.opacity = (0.15 + 0.65 * p / maxP).toFixed(3);
  sq.appendChild(heat);
  if (p >= 0.005) sq.appendChild(el("span", "heat-label", Math.round(p * 100) + "%"));
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

function renderAnalysis() {
  const a = state.analysis;
  $("analysis-result").hidden = !a;
  if (!a) return;
  const svg = $("analysis-plot");
  svg.innerHTML = "";
  const W = 300, H = 120, n = Math.max(1, a.values.length - 1);
  const x = (i) => 6 + (i / n) * (W - 12);
  const y = (v) => H / 2 - v * (H / 2 - 8);
  const add = (tag, attrs, text) => svg.appendChild(svgEl(tag, attrs, text || undefined));
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
    dot.appendChild(svgEl("title", {}, `${m.ply + 1}. ${m.move}: ${m.verdict}, best ${m.best}`));
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
