// The web board's page: plain JavaScript, no build step. The game lives here (start position and
// moves, every pass explicit as "pa"); the server checks every move and runs the network
// (alphazero/web/server.py lists the API). Errors from the server are shown in #error.
"use strict";

const COLUMNS = "abcdefgh";
const RUN_REFRESH_MS = 15000;
const CURVE_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

const $ = (id) => document.getElementById(id);

const play = {
  aiFailed: false,    // the last AI move request failed (shown in the status line)
  start: null,        // board text of the start position, null for the standard start
  moves: [],          // tokens like "f5", passes as "pa"
  position: null,     // the server's description of the latest position
  view: null,         // null: the latest position; else the ply index shown
  viewPosition: null, // the description of the position shown when viewing an earlier ply
  heat: null,         // {policy: {square: prior}} of the position shown, or null
  values: [],         // the network's value for black after each ply (chart)
};

const run = { dir: "", game: null, ply: 0, timer: null, listed: "" };

// ---------------------------------------------------------------------------------------------
// Talking to the server

let busy = 0;

function setBusy(delta) {
  busy += delta;
  document.body.dataset.busy = String(busy);
}

function showError(message) {
  const box = $("error");
  if (message) {
    box.textContent = message;
    box.hidden = false;
  } else {
    box.textContent = "";
    box.hidden = true;
  }
}

async function api(path, payload) {
  setBusy(1);
  try {
    const options = payload === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
    };
    const response = await fetch(path, options);
    let data;
    try {
      data = await response.json();
    } catch (err) {
      throw new Error(`${path}: the server answered ${response.status} without JSON`);
    }
    if (!response.ok) {
      throw new Error(data.error || `${path}: HTTP ${response.status}`);
    }
    return data;
  } finally {
    setBusy(-1);
  }
}

// ---------------------------------------------------------------------------------------------
// The board

function squareName(row, col) {
  return COLUMNS[col] + String(row + 1);
}

// Draw `position` (the server's description) into `container`. options: legal (clickable squares),
// last (square of the last move), flipped (squares), heat ({square: probability}), onClick.
function renderBoard(container, position, options) {
  container.innerHTML = "";
  container.appendChild(label(""));
  for (let col = 0; col < 8; col++) container.appendChild(label(COLUMNS[col]));
  const legal = new Set(options.legal || []);
  const flipped = new Set(options.flipped || []);
  const heat = options.heat || null;
  const maxHeat = heat ? Math.max(0.0001, ...Object.values(heat)) : 1;
  for (let row = 0; row < 8; row++) {
    container.appendChild(label(String(row + 1)));
    for (let col = 0; col < 8; col++) {
      const name = squareName(row, col);
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.square = name;
      const owner = position.board[row][col];
      if (owner === "X" || owner === "O") {
        const disc = document.createElement("div");
        disc.className = "disc " + (owner === "X" ? "black" : "white");
        cell.appendChild(disc);
      }
      if (legal.has(name)) {
        cell.classList.add("legal");
        if (options.onClick) cell.addEventListener("click", () => options.onClick(name));
      }
      if (name === options.last) cell.classList.add("last");
      if (flipped.has(name)) cell.classList.add("flipped");
      if (heat && heat[name] !== undefined && heat[name] > 0) {
        const share = heat[name];
        const overlay = document.createElement("div");
        overlay.className = "heat";
        overlay.dataset.prior = share.toFixed(4);
        overlay.style.background = `rgba(220, 30, 30, ${(0.15 + 0.75 * share / maxHeat).toFixed(3)})`;
        overlay.textContent = share >= 0.005 ? Math.round(100 * share) : "·";
        cell.appendChild(overlay);
        cell.classList.add("heatmapped");
      }
      container.appendChild(cell);
    }
  }
}

function label(text) {
  const element = document.createElement("div");
  element.className = "label";
  element.textContent = text;
  return element;
}

// ---------------------------------------------------------------------------------------------
// Play and analyse

function settings() {
  return {
    checkpoint: $("checkpoint").value.trim() || null,
    simulations: $("simulations").value === "" ? null : $("simulations").value,
    seconds: $("seconds").value === "" ? null : $("seconds").value,
  };
}

function humanPlays(color) {
  const human = $("human").value;
  return human === "both" || human === color;
}

function shownPosition() {
  return play.view === null ? play.position : play.viewPosition;
}

function renderPlay() {
  const position = shownPosition();
  if (!position) return;
  const latest = play.view === null;
  const plies = position.plies;
  const lastPly = plies.length ? plies[plies.length - 1] : null;
  const humanTurn = latest && !position.over && humanPlays(position.to_move);
  renderBoard($("board"), position, {
    legal: humanTurn && busy === 0 ? position.legal : [],
    last: lastPly && lastPly.move !== "pa" ? lastPly.move : null,
    flipped: lastPly ? lastPly.flipped : [],
    heat: play.heat,
    onClick: humanTurn ? humanMove : null,
  });
  $("score").textContent = `Black ${position.black_discs} – White ${position.white_discs}   (${position.empties} empty)`;
  let status;
  if (position.over) status = `Game over: ${position.result}.`;
  else if (!latest) status = `${capital(position.to_move)} to move.`;
  else if (humanPlays(position.to_move)) status = `${capital(position.to_move)} to move (you).`;
  else if (play.aiFailed) status = `${capital(position.to_move)} to move: the AI could not move (see the message); change the network or budget to retry.`;
  else status = `${capital(position.to_move)} to move: the AI is thinking…`;
  $("status").textContent = status;
  $("viewing").hidden = latest;
  $("viewing-ply").textContent = latest ? "" : String(play.view);
  renderMoves();
  renderValueChart();
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

function renderMoves() {
  const container = $("moves");
  container.innerHTML = "";
  const plies = play.position ? play.position.plies : [];
  const start = document.createElement("span");
  start.className = "ply" + (play.view === 0 ? " current" : "");
  start.dataset.ply = "0";
  start.textContent = "start";
  start.addEventListener("click", () => viewPly(0));
  container.appendChild(start);
  plies.forEach((ply, index) => {
    container.appendChild(document.createTextNode(" "));
    const span = document.createElement("span");
    span.className = "ply" + (play.view === index + 1 ? " current" : "");
    span.dataset.ply = String(index + 1);
    span.title = `${ply.color}, ply ${index + 1}`;
    span.textContent = `${index + 1}.${ply.color === "black" ? "●" : "○"}${ply.move}`;
    span.addEventListener("click", () => viewPly(index + 1));
    container.appendChild(span);
  });
}

async function setGame(position) {
  play.position = position;
  play.start = position.start;
  play.moves = position.moves;
  play.view = null;
  play.viewPosition = null;
  play.heat = null;
  renderPlay();
  await refreshValues();
  await maybeAiMove();
}

async function guarded(action) {
  try {
    showError(null);
    await action();
  } catch (err) {
    showError(err.message);
    renderPlay();
  }
}

async function humanMove(square) {
  await guarded(async () => {
    const position = await api("/api/move", { start: play.start, moves: play.moves, move: square });
    await setGame(position);
  });
}

async function maybeAiMove() {
  const position = play.position;
  if (!position || position.over || humanPlays(position.to_move)) return;
  play.aiFailed = false;
  $("status").textContent = `${capital(position.to_move)} to move: the AI is thinking…`;
  let answer;
  try {
    answer = await api("/api/ai_move", { start: play.start, moves: play.moves, ...settings() });
  } catch (err) {
    play.aiFailed = true;
    throw err;
  }
  await setGame(answer.position);
}

async function refreshValues() {
  if (!play.position) return;
  try {
    const data = await api("/api/values", { start: play.start, moves: play.moves, checkpoint: settings().checkpoint });
    play.values = data.black_values;
  } catch (err) {
    play.values = [];
    throw err;
  }
  renderValueChart();
}

async function viewPly(index) {
  await guarded(async () => {
    if (index >= play.moves.length) {
      play.view = null;
      play.viewPosition = null;
    } else {
      play.viewPosition = await api("/api/position", { start: play.start, moves: play.moves.slice(0, index) });
      play.view = index;
    }
    play.heat = null;
    renderPlay();
  });
}

function undo() {
  // Back to just before the last move a person made (and the AI's replies after it).
  guarded(async () => {
    const plies = play.position.plies;
    let target = -1;
    for (let index = plies.length - 1; index >= 0; index--) {
      if (plies[index].move !== "pa" && humanPlays(plies[index].color)) {
        target = index;
        break;
      }
    }
    if (target < 0) throw new Error("Nothing to undo: you have not moved in this game.");
    const position = await api("/api/position", { start: play.start, moves: play.moves.slice(0, target) });
    await setGame(position);
  });
}

async function analyse() {
  await guarded(async () => {
    const position = shownPosition();
    const moves = play.view === null ? play.moves : play.moves.slice(0, play.view);
    $("analysis").innerHTML = '<p class="hint">Analysing…</p>';
    const result = await api("/api/analyse", { start: play.start, moves, ...settings() });
    play.heat = result.network.policy;
    renderPlay();
    renderAnalysis(result, position);
  });
}

function fmt(value, digits) {
  return value === null || value === undefined ? "n/a" : Number(value).toFixed(digits);
}

function signed(value, digits) {
  if (value === null || value === undefined) return "n/a";
  return (value >= 0 ? "+" : "") + Number(value).toFixed(digits);
}

function renderAnalysis(result, position) {
  const net = result.network;
  const search = result.search;
  const who = capital(net.to_move);
  let html = `<p><span class="big" id="analysis-value">${signed(net.value, 3)}</span> network value for ${who}
    (<span id="analysis-win">${fmt(100 * net.win, 1)}</span>% win); the heat map is its policy (%).</p>`;
  if (search) {
    html += `<p>Search (${search.simulations} simulations, ${fmt(search.seconds, 2)} s): plays
      <b id="analysis-best">${search.move}</b>, value ${signed(search.value, 3)} (${fmt(search.win === null ? null : 100 * search.win, 1)}% win).</p>`;
    if (search.solver) {
      const score = search.solver.score;
      const outcome = score > 0 ? `${who} wins by ${score}` : score < 0 ? `${who} loses by ${-score}` : "a draw";
      html += `<p id="analysis-solver"><b>Exact solver</b> (${search.solver.empties} empties): ${outcome} with perfect play; best move <b>${search.solver.best}</b>.</p>`;
    }
    html += `<p>Principal variation: <span class="pv" id="analysis-pv">${search.pv.join(" ")}</span></p>`;
    html += '<table class="table" id="analysis-moves"><thead><tr><th>move</th><th>visits</th><th>share</th><th>Q</th><th>win %</th><th>prior</th></tr></thead><tbody>';
    for (const move of search.moves.slice(0, 8)) {
      const prior = move.move === "pa" ? net.pass : (net.policy[move.move] || 0);
      html += `<tr class="candidate"><td>${move.move}</td><td>${move.visits}</td><td>${fmt(100 * move.share, 1)}%</td>
        <td>${signed(move.q, 3)}</td><td>${fmt(move.win === null ? null : 100 * move.win, 1)}</td><td>${fmt(100 * prior, 1)}%</td></tr>`;
    }
    html += "</tbody></table>";
  } else {
    html += `<p>The game is over: ${position.result}.</p>`;
  }
  $("analysis").innerHTML = html;
}

function renderValueChart() {
  const values = play.values || [];
  const series = values.length ? [{ name: "value for Black", points: values.map((v, i) => [i, v]) }] : [];
  drawChart($("value-chart"), series, { yMin: -1, yMax: 1, marker: play.view === null ? values.length - 1 : play.view });
}

function download(text, name) {
  const blob = new Blob([text], { type: "text/plain" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

async function newGame() {
  await guarded(async () => {
    await setGame(await api("/api/position", { start: null, moves: [] }));
  });
}

async function loadText() {
  await guarded(async () => {
    const position = await api("/api/load", { text: $("load-text").value, game: $("load-game").value });
    await setGame(position);
  });
}

// ---------------------------------------------------------------------------------------------
// Charts: inline SVG polylines, no library

function drawChart(svg, series, options) {
  const width = 420, height = Number(svg.getAttribute("viewBox").split(" ")[3]);
  const pad = 24;
  svg.innerHTML = "";
  const all = series.flatMap((s) => s.points);
  if (!all.length) {
    svg.innerHTML = `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" font-size="12" fill="#888">no data yet</text>`;
    return;
  }
  const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
  const xMin = Math.min(...xs), xMax = Math.max(...xs, xMin + 1);
  let yMin = options.yMin !== undefined ? options.yMin : Math.min(...ys);
  let yMax = options.yMax !== undefined ? options.yMax : Math.max(...ys);
  if (yMax - yMin < 1e-9) { yMin -= 1; yMax += 1; }
  const X = (x) => pad + (width - 2 * pad) * (x - xMin) / (xMax - xMin);
  const Y = (y) => height - pad + (2 * pad - height) * (y - yMin) / (yMax - yMin);
  let html = `<line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="#bbb"/>`;
  if (yMin < 0 && yMax > 0) html += `<line x1="${pad}" y1="${Y(0)}" x2="${width - pad}" y2="${Y(0)}" stroke="#ddd" stroke-dasharray="3"/>`;
  html += `<text x="2" y="${pad - 10}" font-size="10" fill="#666">${fmtAxis(yMax)}</text>`;
  html += `<text x="2" y="${height - pad + 4}" font-size="10" fill="#666">${fmtAxis(yMin)}</text>`;
  html += `<text x="${pad}" y="${height - 6}" font-size="10" fill="#666">${fmtAxis(xMin)}</text>`;
  html += `<text x="${width - pad}" y="${height - 6}" font-size="10" fill="#666" text-anchor="end">${fmtAxis(xMax)}</text>`;
  series.forEach((s, index) => {
    const color = CURVE_COLORS[index % CURVE_COLORS.length];
    const points = s.points.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ");
    html += `<polyline class="series" data-name="${s.name}" fill="none" stroke="${color}" stroke-width="1.8" points="${points}"/>`;
    if (s.points.length < 40) {
      for (const p of s.points) html += `<circle cx="${X(p[0]).toFixed(1)}" cy="${Y(p[1]).toFixed(1)}" r="2" fill="${color}"/>`;
    }
  });
  if (options.marker !== undefined && options.marker !== null && options.marker >= 0) {
    html += `<line x1="${X(options.marker)}" y1="${pad}" x2="${X(options.marker)}" y2="${height - pad}" stroke="#e33" stroke-width="1"/>`;
  }
  svg.innerHTML = html;
}

function fmtAxis(value) {
  return Math.abs(value) >= 1000 ? value.toFixed(0) : Number(value.toPrecision(3)).toString();
}

function legend(element, series) {
  element.innerHTML = series.map((s, i) => `<span style="color:${CURVE_COLORS[i % CURVE_COLORS.length]}">■ ${s.name}</span>`).join("");
}

// ---------------------------------------------------------------------------------------------
// Run viewer

function runQuery(extra) {
  return "?run=" + encodeURIComponent(run.dir) + (extra || "");
}

async function openRun() {
  run.dir = $("run-dir").value.trim();
  await refreshRun(true);
}

async function refreshRun(reportErrors) {
  try {
    if (reportErrors) showError(null);
    const games = await api("/api/run/games" + runQuery());
    renderRunGames(games);
    const curves = await api("/api/run/curves" + runQuery());
    renderCurves(curves);
  } catch (err) {
    showError(err.message);
  }
}

function renderRunGames(data) {
  const summary = `${data.run}: ${data.shards} shard(s); showing the newest ${data.games.length} game(s).` +
    (data.problems.length ? ` Unreadable: ${data.problems.join("; ")}` : "");
  $("run-summary").textContent = summary;
  const body = $("run-games").querySelector("tbody");
  const listed = JSON.stringify(data.games.map((g) => g.id));
  if (listed === run.listed) return;  // nothing new: keep the rows (and the selection)
  run.listed = listed;
  body.innerHTML = "";
  for (const game of data.games) {
    const row = document.createElement("tr");
    row.className = "game" + (run.game && run.game.id === game.id ? " current" : "");
    row.dataset.id = game.id;
    const margin = game.black_margin;
    const result = margin > 0 ? `B+${margin}` : margin < 0 ? `W+${-margin}` : "draw";
    const network = game.meta.network !== undefined ? game.meta.network : (game.meta.network_id !== undefined ? game.meta.network_id : "");
    row.innerHTML = `<td>${game.shard.replace(/^shard-/, "").replace(/\.npz$/, "")}:${game.index}</td><td>${game.plies}</td><td>${result}</td><td>${network}</td>`;
    row.addEventListener("click", () => openRunGame(game.id));
    body.appendChild(row);
  }
}

function renderCurves(data) {
  for (const [group, svgId, legendId] of [["strength", "strength-chart", "strength-legend"], ["losses", "loss-chart", "loss-legend"]]) {
    const series = Object.entries(data[group]).map(([name, points]) => ({ name, points }));
    drawChart($(svgId), series, {});
    legend($(legendId), series);
  }
  if (data.message) $("run-summary").textContent += " " + data.message;
}

async function openRunGame(id) {
  try {
    showError(null);
    run.game = await api("/api/run/game" + runQuery("&id=" + encodeURIComponent(id)));
    run.positions = [];
    // The positions of every ply, described by the server (one request for the whole game).
    for (const row of $("run-games").querySelectorAll("tr.game")) row.classList.toggle("current", row.dataset.id === id);
    const slider = $("run-slider");
    slider.max = String(run.game.moves.length);
    await showRunPly(0);
  } catch (err) {
    showError(err.message);
  }
}

async function showRunPly(ply) {
  const game = run.game;
  if (!game) return;
  ply = Math.max(0, Math.min(game.moves.length, ply));
  run.ply = ply;
  const position = await api("/api/position", { start: game.start, moves: game.moves.slice(0, ply) });
  const lastPly = position.plies.length ? position.plies[position.plies.length - 1] : null;
  const policy = ply < game.moves.length ? game.policies[ply] : null;
  renderBoard($("run-board"), position, {
    legal: [], last: lastPly && lastPly.move !== "pa" ? lastPly.move : null,
    flipped: lastPly ? lastPly.flipped : [], heat: policy,
  });
  $("run-slider").value = String(ply);
  const margin = game.black_margin;
  $("run-info").textContent = `Game ${game.id}: ${game.moves.length} plies, ${margin > 0 ? "Black wins by " + margin : margin < 0 ? "White wins by " + -margin : "draw"}.`;
  const value = ply < game.moves.length ? game.root_values[ply] : null;
  const next = ply < game.moves.length ? game.moves[ply] : null;
  $("run-ply").innerHTML = position.over
    ? `Ply <span id="run-ply-number">${ply}</span>: the end (${position.result}).`
    : `Ply <span id="run-ply-number">${ply}</span>: ${capital(position.to_move)} to move; search value
       <span id="run-value">${signed(value, 3)}</span> for the side to move; played <b>${next}</b>. Heat map: the search's policy (%).`;
  const values = game.root_values.map((v, i) => [i, v === null ? 0 : (i % 2 === 0 ? v : -v)]);
  drawChart($("run-value-chart"), [{ name: "search value for the first player", points: values }], { yMin: -1, yMax: 1, marker: ply });
}

function scheduleRunRefresh() {
  if (run.timer) clearInterval(run.timer);
  run.timer = setInterval(() => {
    if (!$("panel-run").hidden && $("run-auto").checked && run.dir) refreshRun(false);
  }, RUN_REFRESH_MS);
}

// ---------------------------------------------------------------------------------------------
// Start

function switchTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  $("panel-play").hidden = name !== "play";
  $("panel-run").hidden = name !== "run";
  if (name === "run" && run.dir) refreshRun(true);
}

async function init() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => switchTab(tab.dataset.tab));
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("analyse").addEventListener("click", analyse);
  $("load").addEventListener("click", loadText);
  $("back-to-game").addEventListener("click", () => viewPly(play.moves.length));
  $("human").addEventListener("change", () => guarded(async () => { renderPlay(); await maybeAiMove(); }));
  for (const id of ["checkpoint", "simulations", "seconds"]) {
    // A changed network or budget retries an AI move that failed.
    $(id).addEventListener("change", () => play.aiFailed && guarded(maybeAiMove));
  }
  $("download-txt").addEventListener("click", () => play.position && download(play.position.transcript, "othello.txt"));
  $("download-ggf").addEventListener("click", () => play.position && download(play.position.ggf, "othello.ggf"));
  $("run-open").addEventListener("click", openRun);
  $("run-first").addEventListener("click", () => showRunPly(0));
  $("run-prev").addEventListener("click", () => showRunPly(run.ply - 1));
  $("run-next").addEventListener("click", () => showRunPly(run.ply + 1));
  $("run-last").addEventListener("click", () => showRunPly(run.game ? run.game.moves.length : 0));
  $("run-slider").addEventListener("input", (event) => showRunPly(Number(event.target.value)));
  try {
    const config = await api("/api/config");
    $("checkpoint").value = config.checkpoint;
    $("checkpoints").innerHTML = config.checkpoints.map((c) => `<option value="${c}"></option>`).join("");
    $("simulations").value = config.seconds ? "" : config.simulations;
    $("seconds").value = config.seconds || "";
    run.dir = config.run || "";
    $("run-dir").value = run.dir;
    scheduleRunRefresh();
  } catch (err) {
    showError(err.message);
  }
  await newGame();
}

init();
