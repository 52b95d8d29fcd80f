// The games the server keeps (GET /api/games): each listed with its opponent,
// moves and result, to resume, review from the start, export (GGF, transcript) or delete.
// Loaded before app.js (which starts the page): it only wires the panel's buttons, and calls
// app.js's functions when they are pressed.
"use strict";

function savedLine(g) {
  const li = el("li", "saved-game");
  const when = new Date(g.updated * 1000).toLocaleString();
  const what = `${g.title}, you ${g.human} vs ${g.opponent}: ${g.moves} moves, `
    + (g.result || "in progress") + ` (${when})`;
  li.append(el("span", "", what), el("br"));
  const button = (label, title, onClick) => {
    const b = el("button", "secondary", label);
    b.type = "button";
    b.title = title;
    b.addEventListener("click", onClick);
    li.append(b, " ");
  };
  button("Resume", "Open the game where it stands", () => openSaved(g.id, null));
  button("Review", "Open the game at its first move", () => openSaved(g.id, 0));
  for (const [format, label] of [["ggf", "GGF"], ["transcript", "Transcript"]]) {
    if (format === "ggf" && !g.game.startsWith("othello")) continue;
    const a = el("a", "", label);
    a.href = `/api/games/${g.id}/export?format=${format}`;
    a.download = `${g.id}.${format === "ggf" ? "ggf" : "txt"}`;
    li.append(a, " ");
  }
  button("Delete", "Forget this game", async () => {
    try {
      await api("DELETE", `/api/games/${g.id}`);
      await refreshSaved();
    } catch (err) {
      showMessage(err.message);
    }
  });
  return li;
}

async function refreshSaved() {
  const list = $("saved-list");
  try {
    const data = await api("GET", "/api/games?limit=50");
    list.replaceChildren(...data.games.map(savedLine));
    if (!data.games.length) list.append(el("li", "muted", "no games yet"));
    else if (data.total > data.games.length) list.append(el("li", "muted", `… ${data.total - data.games.length} older games`));
  } catch (err) {
    showMessage(err.message);
  }
}

async function openSaved(id, ply) {
  showMessage("");
  try {
    let next = await api("GET", `/api/games/${id}`);
    if (ply !== null && next.moves.length) next = await api("POST", `/api/games/${id}/goto`, { ply });
    setState(next);
  } catch (err) {
    showMessage(err.message);
  }
}

$("saved-panel").addEventListener("toggle", () => { if ($("saved-panel").open) refreshSaved(); });
$("btn-saved-refresh").addEventListener("click", refreshSaved);
