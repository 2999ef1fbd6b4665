// The web board's page: plain JavaScript, no build step. The game lives here (start position and
// moves, every pass explicit as "pa"); the server checks every move and runs the network
// (alphazero/web/server.py lists the API). Errors from the server are shown in #error.
//
// Everything the server sends (file names, run metadata, TensorBoard tags, messages) is put into
// the page as text: nodes are built with createElement and textContent, never by parsing markup
// (tests/web/test_web_static.py holds this file to that).
"use strict";

const COLUMNS = "abcdefgh";
const RUN_REFRESH_MS = 15000;
const CURVE_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
const SVG = "http://www.w3.org/2000/svg";
const TOKEN = document.querySelector('meta[name="board-token"]').content;

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
  aiSearch: null,     // AbortController of the AI move being searched, or null
  analysis: null,     // AbortController of the analysis being searched, or null
};

const run = { dir: "", game: null, ply: 0, timer: null, listed: "" };

// ---------------------------------------------------------------------------------------------
// Building the page's nodes: text only

// An element with `props` (className, id, title, dataset, ...) and `children` (nodes, or strings
// put in as text nodes).
function el(tag, props, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "dataset") Object.assign(element.dataset, value);
    else element[key] = value;
  }
  element.append(...children.map((child) => (typeof child === "string" ? document.createTextNode(child) : child)));
  return element;
}

// An SVG element with `attributes`, and `text` as its text when given.
function svgEl(tag, attributes, text) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

// ---------------------------------------------------------------------------------------------
// Talking to the server

let busy = 0;

function setBusy(delta) {
  busy += delta;
  document.body.dataset.busy = String(busy);
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function isAbort(err) {
  return err && err.name === "AbortError";
}

// `payload` given: a POST of it as JSON. `signal`: an AbortSignal that gives up on the request
// (the server then stops the search it was running).
async function api(path, payload, signal) {
  setBusy(1);
  try {
    const headers = { "X-Board-Token": TOKEN };
    const options = { headers, signal };
    if (payload !== undefined) {
      options.method = "POST";
      headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(payload);
    }
    const response = await fetch(path, options);
    let data;
    try {
      data = await response.json();
    } catch (err) {
      if (isAbort(err)) throw err;
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
// last (square of the last move), flipped (squares), heat ({square: probability}), onClick,
// marks ({className: square}: the review's move played and move preferred).
function renderBoard(container, position, options) {
  container.replaceChildren(label(""));
  for (let col = 0; col < 8; col++) container.appendChild(label(COLUMNS[col]));
  const legal = new Set(options.legal || []);
  const flipped = new Set(options.flipped || []);
  const heat = options.heat || null;
  const maxHeat = heat ? Math.max(0.0001, ...Object.values(heat)) : 1;
  for (let row = 0; row < 8; row++) {
    container.appendChild(label(String(row + 1)));
    for (let col = 0; col < 8; col++) {
      const name = squareName(row, col);
      const cell = el("div", { className: "cell", dataset: { square: name } });
      const owner = position.board[row][col];
      if (owner === "X" || owner === "O") cell.appendChild(el("div", { className: "disc " + (owner === "X" ? "black" : "white") }));
      if (legal.has(name)) {
        cell.classList.add("legal");
        if (options.onClick) cell.addEventListener("click", () => options.onClick(name));
      }
      if (name === options.last) cell.classList.add("last");
      for (const [className, square] of Object.entries(options.marks || {})) if (square === name) cell.classList.add(className);
      if (flipped.has(name)) cell.classList.add("flipped");
      if (heat && heat[name] !== undefined && heat[name] > 0) {
        cell.appendChild(heatOverlay(heat[name], maxHeat));
        cell.classList.add("heatmapped");
      }
      container.appendChild(cell);
    }
  }
}

function heatOverlay(share, maxHeat) {
  const overlay = el("div", { className: "heat", dataset: { prior: share.toFixed(4) } },
    share >= 0.005 ? String(Math.round(100 * share)) : "·");
  overlay.style.background = `rgba(220, 30, 30, ${(0.15 + 0.75 * share / maxHeat).toFixed(3)})`;
  return overlay;
}

function label(text) {
  return el("div", { className: "label" }, text);
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
  $("status").textContent = statusText(position, latest);
  $("viewing").hidden = latest;
  $("viewing-ply").textContent = latest ? "" : String(play.view);
  renderMoves();
  renderValueChart();
}

function statusText(position, latest) {
  const side = capital(position.to_move);
  if (position.over) return `Game over: ${position.result}.`;
  if (!latest) return `${side} to move.`;
  if (humanPlays(position.to_move)) return `${side} to move (you).`;
  if (play.aiFailed) return `${side} to move: the AI could not move (see the message); change the network or budget to retry.`;
  return `${side} to move: the AI is thinking…`;
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

function renderMoves() {
  const plies = play.position ? play.position.plies : [];
  const items = [plyLink(0, "start", null)];
  plies.forEach((ply, index) => {
    items.push(" ", plyLink(index + 1, `${index + 1}.${ply.color === "black" ? "●" : "○"}${ply.move}`, `${ply.color}, ply ${index + 1}`));
  });
  $("moves").replaceChildren(...items);
}

function plyLink(index, text, title) {
  const span = el("span", { className: "ply" + (play.view === index ? " current" : ""), dataset: { ply: String(index) } }, text);
  if (title) span.title = title;
  span.addEventListener("click", () => viewPly(index));
  return span;
}

// The game changed (a move, undo, a new or loaded game): an AI move still searched for the old
// one is given up (the server stops its search), and so is the analysis.
function gameChanged() {
  if (play.aiSearch) play.aiSearch.abort();
  play.aiSearch = null;
  clearAnalysis();
}

async function setGame(position) {
  gameChanged();
  play.position = position;
  play.start = position.start;
  play.moves = position.moves;
  play.view = null;
  play.viewPosition = null;
  renderPlay();
  await refreshValues();
  await maybeAiMove();
}

// Run `action`, showing what it throws in #error; a request given up on (AbortError) is not an error.
async function guarded(action) {
  try {
    showError(null);
    await action();
  } catch (err) {
    if (isAbort(err)) return;
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
  play.aiSearch = new AbortController();
  try {
    answer = await api("/api/ai_move", { start: play.start, moves: play.moves, ...settings() }, play.aiSearch.signal);
  } catch (err) {
    if (!isAbort(err)) play.aiFailed = true;
    throw err;
  }
  await setGame(answer.position);
}

async function refreshValues() {
  if (!play.position) return;
  const position = play.position;
  let values = [];
  try {
    values = (await api("/api/values", { start: play.start, moves: play.moves, checkpoint: settings().checkpoint })).black_values;
  } finally {
    if (position === play.position) {  // not a reply about a game replaced meanwhile
      play.values = values;
      renderValueChart();
    }
  }
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
    clearAnalysis();
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

// The position shown changed: its analysis, done or under way, is taken off the page (and given
// up: the server stops the search), and so is the heat map.
function clearAnalysis() {
  if (play.analysis) play.analysis.abort();
  play.analysis = null;
  play.heat = null;
  $("analysis").replaceChildren(el("p", { className: "hint" }, "Press ", el("em", {}, "Analyse position"),
    ": the network's policy appears on the board as a heat map."));
}

async function analyse() {
  await guarded(async () => {
    const position = shownPosition();
    const moves = play.view === null ? play.moves : play.moves.slice(0, play.view);
    clearAnalysis();  // a second press restarts the analysis
    const analysis = play.analysis = new AbortController();
    $("analysis").replaceChildren(el("p", { className: "hint", id: "analysis-running" }, "Analysing…"));
    const result = await api("/api/analyse", { start: play.start, moves, ...settings() }, analysis.signal);
    if (analysis !== play.analysis) return;  // the position changed while the answer was on its way
    play.analysis = null;
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

function percent(fraction, digits) {
  return fmt(fraction === null || fraction === undefined ? null : 100 * fraction, digits);
}

// An analysis's result drawn into the element `prefix` ("analysis" on the play tab,
// "review-analysis" on the review tab), its parts' ids starting with `prefix`.
function renderAnalysis(result, position, prefix = "analysis") {
  const net = result.network;
  const search = result.search;
  const who = capital(net.to_move);
  const parts = [el("p", {},
    el("span", { className: "big", id: `${prefix}-value` }, signed(net.value, 3)),
    ` network value for ${who} (`, el("span", { id: `${prefix}-win` }, fmt(100 * net.win, 1)),
    "% win); the heat map is its policy (%).")];
  if (search) {
    parts.push(searchParagraph(search, prefix));
    if (search.solver) parts.push(solverParagraph(search.solver, who, prefix));
    parts.push(el("p", {}, "Principal variation: ", el("span", { className: "pv", id: `${prefix}-pv` }, search.pv.join(" "))));
    parts.push(candidatesTable(search.moves.slice(0, 8), net, prefix));
  } else {
    parts.push(el("p", {}, `The game is over: ${position.result}.`));
  }
  $(prefix).replaceChildren(...parts);
}

// "Search (200 simulations (+514 reused), 0.42 s)": the candidates' visits are this search's
// simulations plus the visits of the tree kept from the last search of this game.
function visitsText(search) {
  const reused = search.reused ? ` (+${search.reused} reused)` : "";
  return `${search.simulations} simulations${reused}`;
}

function searchParagraph(search, prefix) {
  const stopped = search.stopped ? `; ${search.stopped}` : "";
  return el("p", { id: `${prefix}-search` },
    "Search (", el("span", { id: `${prefix}-visits` }, visitsText(search)), `, ${fmt(search.seconds, 2)} s${stopped}): plays `,
    el("b", { id: `${prefix}-best` }, search.move),
    `, value ${signed(search.value, 3)} (${percent(search.win, 1)}% win).`);
}

function solverParagraph(solver, who, prefix) {
  const score = solver.score;
  const outcome = score > 0 ? `${who} wins by ${score}` : score < 0 ? `${who} loses by ${-score}` : "a draw";
  return el("p", { id: `${prefix}-solver` }, el("b", {}, "Exact solver"),
    ` (${solver.empties} empties): ${outcome} with perfect play; best move `, el("b", {}, solver.best), ".");
}

function candidatesTable(moves, net, prefix) {
  const head = el("thead", {}, el("tr", {}, ...["move", "visits", "share", "Q", "win %", "prior"].map((h) => el("th", {}, h))));
  const rows = moves.map((move) => {
    const prior = move.move === "pa" ? net.pass : (net.policy[move.move] || 0);
    const cells = [move.move, String(move.visits), `${percent(move.share, 1)}%`, signed(move.q, 3), percent(move.win, 1), `${percent(prior, 1)}%`];
    return el("tr", { className: "candidate" }, ...cells.map((text) => el("td", {}, text)));
  });
  return el("table", { className: "table", id: `${prefix}-moves` }, head, el("tbody", {}, ...rows));
}

function renderValueChart() {
  const values = play.values || [];
  const series = values.length ? [{ name: "value for Black", points: values.map((v, i) => [i, v]) }] : [];
  drawChart($("value-chart"), series, { yMin: -1, yMax: 1, marker: play.view === null ? values.length - 1 : play.view });
}

function download(text, name) {
  const blob = new Blob([text], { type: "text/plain" });
  const link = el("a", { href: URL.createObjectURL(blob), download: name });
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

const CHART_WIDTH = 420, CHART_PAD = 24;

// `series`: [{name, points: [[x, y], ...]}]; options: yMin, yMax, xMin, xMax (else the data's), marker (an x),
// marks ([{x, y, mark, ply, title}]: the review's mistakes, drawn over the series).
function drawChart(svg, series, options) {
  const height = Number(svg.getAttribute("viewBox").split(" ")[3]);
  const all = series.flatMap((s) => s.points);
  if (!all.length) {
    svg.replaceChildren(svgEl("text", { x: CHART_WIDTH / 2, y: height / 2, "text-anchor": "middle", "font-size": 12, fill: "#888" }, "no data yet"));
    return;
  }
  const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
  const xMin = options.xMin !== undefined ? options.xMin : Math.min(...xs);
  const xMax = options.xMax !== undefined ? Math.max(options.xMax, xMin + 1) : Math.max(...xs, xMin + 1);
  let yMin = options.yMin !== undefined ? options.yMin : Math.min(...ys);
  let yMax = options.yMax !== undefined ? options.yMax : Math.max(...ys);
  if (yMax - yMin < 1e-9) { yMin -= 1; yMax += 1; }
  const X = (x) => CHART_PAD + (CHART_WIDTH - 2 * CHART_PAD) * (x - xMin) / (xMax - xMin);
  const Y = (y) => height - CHART_PAD + (2 * CHART_PAD - height) * (y - yMin) / (yMax - yMin);
  const nodes = chartAxes(height, xMin, xMax, yMin, yMax, Y);
  series.forEach((s, index) => nodes.push(...seriesNodes(s, CURVE_COLORS[index % CURVE_COLORS.length], X, Y)));
  if (options.marker !== undefined && options.marker !== null && options.marker >= 0) {
    nodes.push(svgEl("line", { x1: X(options.marker), y1: CHART_PAD, x2: X(options.marker), y2: height - CHART_PAD, stroke: "#e33", "stroke-width": 1 }));
  }
  for (const mark of options.marks || []) nodes.push(markNode(mark, X, Y));
  svg.replaceChildren(...nodes);
  svg.dataset.xmin = String(xMin);
  svg.dataset.xmax = String(xMax);
}

// A mistake on the review's chart: a circle (?) or a larger square (??) at the ply, its
// description as the SVG <title> (text).
function markNode(mark, X, Y) {
  const x = X(mark.x), y = Y(mark.y), blunder = mark.mark === "??";
  const size = blunder ? 5 : 4;
  const shape = blunder
    ? svgEl("rect", { x: (x - size).toFixed(1), y: (y - size).toFixed(1), width: 2 * size, height: 2 * size, fill: "#d62728" })
    : svgEl("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: size, fill: "#ff7f0e" });
  const node = svgEl("g", { class: "mistake" });
  node.dataset.ply = String(mark.ply);
  node.dataset.mark = mark.mark;
  node.dataset.x = x.toFixed(1);
  node.append(shape, svgEl("title", {}, mark.title));
  return node;
}

function chartAxes(height, xMin, xMax, yMin, yMax, Y) {
  const label = (x, y, text, anchor) => svgEl("text", { x, y, "font-size": 10, fill: "#666", "text-anchor": anchor || "start" }, fmtAxis(text));
  const nodes = [svgEl("line", { x1: CHART_PAD, y1: height - CHART_PAD, x2: CHART_WIDTH - CHART_PAD, y2: height - CHART_PAD, stroke: "#bbb" })];
  if (yMin < 0 && yMax > 0) nodes.push(svgEl("line", { x1: CHART_PAD, y1: Y(0), x2: CHART_WIDTH - CHART_PAD, y2: Y(0), stroke: "#ddd", "stroke-dasharray": 3 }));
  nodes.push(label(2, CHART_PAD - 10, yMax), label(2, height - CHART_PAD + 4, yMin));
  nodes.push(label(CHART_PAD, height - 6, xMin), label(CHART_WIDTH - CHART_PAD, height - 6, xMax, "end"));
  return nodes;
}

function seriesNodes(s, color, X, Y) {
  const points = s.points.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ");
  const line = svgEl("polyline", { class: "series", fill: "none", stroke: color, "stroke-width": 1.8, points });
  line.dataset.name = s.name;
  const nodes = [line];
  if (s.points.length < 40) {
    for (const p of s.points) nodes.push(svgEl("circle", { cx: X(p[0]).toFixed(1), cy: Y(p[1]).toFixed(1), r: 2, fill: color }));
  }
  return nodes;
}

function fmtAxis(value) {
  return Math.abs(value) >= 1000 ? value.toFixed(0) : Number(value.toPrecision(3)).toString();
}

function legend(element, series) {
  element.replaceChildren(...series.map((s, i) => {
    const entry = el("span", {}, `■ ${s.name}`);
    entry.style.color = CURVE_COLORS[i % CURVE_COLORS.length];
    return entry;
  }));
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

// `clearErrors`: a fresh look (the tab opened, Open pressed), which clears the message shown.
async function refreshRun(clearErrors) {
  try {
    if (clearErrors) showError(null);
    renderRunGames(await api("/api/run/games" + runQuery()));
    renderCurves(await api("/api/run/curves" + runQuery()));
  } catch (err) {
    showError(err.message);
  }
}

function renderRunGames(data) {
  const summary = `${data.run}: ${data.shards} shard(s); showing the newest ${data.games.length} game(s).` +
    (data.problems.length ? ` Unreadable: ${data.problems.join("; ")}` : "");
  $("run-summary").textContent = summary;
  const listed = JSON.stringify(data.games.map((g) => g.id));
  if (listed === run.listed) return;  // nothing new: keep the rows (and the selection)
  run.listed = listed;
  $("run-games").querySelector("tbody").replaceChildren(...data.games.map(runGameRow));
}

function runGameRow(game) {
  const margin = game.black_margin;
  const result = margin > 0 ? `B+${margin}` : margin < 0 ? `W+${-margin}` : "draw";
  const meta = game.meta;
  const network = meta.network !== undefined ? meta.network : (meta.network_id !== undefined ? meta.network_id : "");
  const name = `${game.shard.replace(/^shard-/, "").replace(/\.npz$/, "")}:${game.index}`;
  const row = el("tr", { className: "game" + (run.game && run.game.id === game.id ? " current" : ""), dataset: { id: game.id } },
    ...[name, String(game.plies), result, String(network)].map((text) => el("td", {}, text)));
  row.addEventListener("click", () => openRunGame(game.id));
  return row;
}

// Elo and scores (0 to 1) on charts of their own: on one axis the scores were a flat line.
const CURVE_CHARTS = [
  ["elo", "elo-chart", "elo-legend", {}],
  ["scores", "score-chart", "score-legend", { yMin: 0, yMax: 1 }],
  ["losses", "loss-chart", "loss-legend", {}],
];

function renderCurves(data) {
  for (const [group, svgId, legendId, options] of CURVE_CHARTS) {
    const series = Object.entries(data[group] || {}).map(([name, points]) => ({ name, points }));
    drawChart($(svgId), series, options);
    legend($(legendId), series);
  }
  if (data.message) $("run-summary").textContent += " " + data.message;
}

async function openRunGame(id) {
  try {
    showError(null);
    run.game = await api("/api/run/game" + runQuery("&id=" + encodeURIComponent(id)));
    for (const row of $("run-games").querySelectorAll("tr.game")) row.classList.toggle("current", row.dataset.id === id);
    $("run-slider").max = String(run.game.moves.length);
    $("run-review").disabled = false;
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
  $("run-ply").replaceChildren(...runPlyText(position, ply, game));
  const values = game.root_values.map((v, i) => [i, v === null ? 0 : (i % 2 === 0 ? v : -v)]);
  drawChart($("run-value-chart"), [{ name: "search value for the first player", points: values }], { yMin: -1, yMax: 1, marker: ply });
}

function runPlyText(position, ply, game) {
  const number = el("span", { id: "run-ply-number" }, String(ply));
  if (position.over) return ["Ply ", number, `: the end (${position.result}).`];
  const value = ply < game.moves.length ? game.root_values[ply] : null;
  const next = ply < game.moves.length ? game.moves[ply] : "";
  return ["Ply ", number, `: ${capital(position.to_move)} to move; search value `, el("span", { id: "run-value" }, signed(value, 3)),
    " for the side to move; played ", el("b", {}, next), ". Heat map: the search's policy (%)."];
}

function scheduleRunRefresh() {
  if (run.timer) clearInterval(run.timer);
  run.timer = setInterval(() => {
    if (!$("panel-run").hidden && $("run-auto").checked && run.dir) refreshRun(false);
  }, RUN_REFRESH_MS);
}

// ---------------------------------------------------------------------------------------------
// Review: a finished game read move by move by the search and the solver (alphazero/review, the
// same code as `python -m alphazero.review`). The server sends the review as JSON lines while it
// runs: the game, then one line a ply, then the summary (or why it stopped); the page draws each
// as it comes. A new review, Stop or leaving the page gives the request up, which stops the
// server's searches.

const REVIEW_MAX_FILE_BYTES = 200000;  // the server's limit on a game's text (positions.MAX_TEXT_CHARS)

const review = {
  request: null,   // AbortController of the review under way, or null
  game: null,      // the "game" event: label, plies, start, moves, black_margin, search
  moves: [],       // the "move" events so far (MoveReview), ply 1 first
  selected: null,  // the ply (1-based) shown on the review's board, or null
  shown: null,     // what the review's board shows: {ply, position, heat}, or null
  analysis: null,  // AbortController of the analysis of the position shown, or null
  started: 0,      // when the review began (performance.now())
};

// Read the review's JSON lines from `response` as they arrive, handing each to `onEvent`.
async function readLines(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim()) onEvent(JSON.parse(line));
    }
  }
  if (buffer.trim()) onEvent(JSON.parse(buffer));
}

function setReviewing(on) {
  document.body.dataset.reviewing = on ? "1" : "0";
  $("review-stop").disabled = !on;
}

// Start a review of the game `source` names ({source: "text", text, game} | {source: "board", start,
// moves} | {source: "run", run, id}), at the simulations given on the review tab.
async function startReview(source) {
  if (review.request) review.request.abort();
  const request = review.request = new AbortController();
  clearReviewAnalysis();
  showError(null);
  switchTab("review");
  resetReview();
  $("review-progress").textContent = "starting the review…";
  setReviewing(true);
  const simulations = $("review-simulations").value;
  try {
    const response = await fetch("/api/review", {
      method: "POST", signal: request.signal,
      headers: { "X-Board-Token": TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ ...source, checkpoint: settings().checkpoint, simulations: simulations === "" ? null : simulations }),
    });
    if (!response.ok) {
      let data = {};
      try { data = await response.json(); } catch (err) { if (isAbort(err)) throw err; }
      throw new Error(data.error || `/api/review: HTTP ${response.status}`);
    }
    await readLines(response, (event) => { if (request === review.request) reviewEvent(event); });
  } catch (err) {
    if (request !== review.request) return;  // replaced by a newer review
    if (isAbort(err)) {
      $("review-progress").textContent = `stopped after ${review.moves.length} of ${review.game ? review.game.plies : "?"} moves.`;
    } else {
      $("review-progress").textContent = "";
      showError(err.message);
    }
  } finally {
    if (request === review.request) {
      review.request = null;
      setReviewing(false);
    }
  }
}

function resetReview() {
  review.game = null;
  review.moves = [];
  review.selected = null;
  review.shown = null;
  $("review-bar").value = 0;
  $("review-label").textContent = "";
  $("review-summary").replaceChildren();
  $("review-moves").querySelector("tbody").replaceChildren();
  $("review-position").textContent = "";
  renderReviewChart();
}

function reviewEvent(event) {
  if (event.type === "game") {
    review.game = event;
    review.started = performance.now();
    $("review-label").textContent = `${event.label}: ${event.plies} plies; search: ${event.search}.`;
    $("review-bar").max = Math.max(1, event.plies);
    reviewProgress();
    selectReviewPly(1, false);
  } else if (event.type === "move") {
    review.moves.push(event);
    $("review-moves").querySelector("tbody").appendChild(reviewRow(event));
    reviewProgress();
    renderReviewChart();
    if (review.shown && review.shown.ply === event.ply) drawReviewPosition();
  } else if (event.type === "summary") {
    $("review-summary").replaceChildren(...event.lines.map((line) => el("p", {}, line)));
    const seconds = (performance.now() - review.started) / 1000;
    $("review-progress").textContent = `reviewed ${review.moves.length} / ${review.game.plies} moves in ${seconds.toFixed(1)} s.`;
  } else if (event.type === "stopped") {
    $("review-progress").textContent = `${event.reason} after ${event.reviewed} of ${review.game.plies} moves.`;
  } else if (event.type === "error") {
    $("review-progress").textContent = `failed after ${event.reviewed} of ${review.game.plies} moves.`;
    showError(event.error);
  }
}

function reviewProgress() {
  const done = review.moves.length, total = review.game.plies;
  $("review-bar").value = done;
  const elapsed = (performance.now() - review.started) / 1000;
  const left = done ? ` (about ${Math.round(elapsed / done * (total - done))} s left)` : "";
  $("review-progress").textContent = `reviewed ${done} / ${total} moves${done < total ? left : ""}…`;
}

function exactText(move) {
  if (move.discs_lost === null || move.discs_lost === undefined) return "";
  return `${signed(move.exact_before, 0)} → ${signed(move.exact_after, 0)}, ${move.discs_lost} disc${move.discs_lost === 1 ? "" : "s"}`;
}

function reviewRow(move) {
  const kind = move.mark === "??" ? " blunder" : move.mark === "?" ? " mistake" : "";
  const cells = [move.number === null ? "" : String(move.number), capital(move.color), move.move,
    `${percent(move.win_before, 1)}%`, `${percent(move.win_after, 1)}%`, move.preferred, `${percent(move.loss, 1)}%`,
    exactText(move), move.mark];
  const names = ["number", "side", "played", "before", "after", "preferred", "loss", "exact", "mark"];
  const row = el("tr", { className: "review-move" + kind + (review.selected === move.ply ? " current" : ""), dataset: { ply: String(move.ply) } },
    ...cells.map((text, i) => el("td", { className: `review-${names[i]}` }, text)));
  row.addEventListener("click", () => selectReviewPly(move.ply));
  return row;
}

// Black's win probability over the game: at x = 0 the first position, at x = k the position after
// ply k; each marked move is drawn at its ply.
function renderReviewChart() {
  const moves = review.moves;
  const forBlack = (move, win) => (move.color === "black" ? win : 1 - win);
  const points = moves.length ? [[0, forBlack(moves[0], moves[0].win_before)]] : [];
  for (const move of moves) points.push([move.ply, forBlack(move, move.win_after)]);
  const marks = moves.filter((move) => move.mark).map((move) => ({
    x: move.ply, y: forBlack(move, move.win_after), mark: move.mark, ply: move.ply,
    title: `${move.number === null ? "ply " + move.ply : "move " + move.number} (${capital(move.color)} ${move.move}) ${move.mark}: lost ${percent(move.loss, 1)}%` +
      (move.discs_lost ? ` and ${move.discs_lost} discs` : "") + `, ${move.preferred} was better`,
  }));
  const series = points.length ? [{ name: "win probability for Black", points }] : [];
  // x spans the whole game from the first line: the marks keep their places as the review goes on
  drawChart($("review-chart"), series, { yMin: 0, yMax: 1, xMin: 0, xMax: review.game ? review.game.plies : undefined,
    marker: review.selected, marks });
}

// The ply a click on the review's chart means: a mark's own, else the nearest to the click.
function reviewChartPly(event) {
  const target = event.target.closest ? event.target.closest("g.mistake") : null;
  if (target) return Number(target.dataset.ply);
  const svg = $("review-chart");
  const xMin = Number(svg.dataset.xmin), xMax = Number(svg.dataset.xmax);
  if (!Number.isFinite(xMin) || !Number.isFinite(xMax)) return null;
  const box = svg.getBoundingClientRect();
  const x = (event.clientX - box.left) * CHART_WIDTH / box.width;
  return Math.round(xMin + (x - CHART_PAD) / (CHART_WIDTH - 2 * CHART_PAD) * (xMax - xMin));
}

// Show the position before move `ply` (1-based); `analyse`: and search it (a click, not the
// review's first line).
function selectReviewPly(ply, analyse = true) {
  if (!review.game || ply === null) return;
  ply = Math.max(1, Math.min(review.game.plies, ply));
  review.selected = ply;
  for (const row of $("review-moves").querySelectorAll("tr.review-move")) row.classList.toggle("current", Number(row.dataset.ply) === ply);
  renderReviewChart();
  renderReviewPosition(analyse);
}

// The position before the selected move, the move played and the one preferred marked, what the
// review found of it, and an analysis of it (given up when another move is shown).
async function renderReviewPosition(analyse) {
  const ply = review.selected, game = review.game;
  if (!game || ply === null) return;
  clearReviewAnalysis();
  review.shown = null;
  await guardedReview(async () => {
    const position = await api("/api/position", { start: game.start, moves: game.moves.slice(0, ply - 1) });
    if (ply !== review.selected || game !== review.game) return;
    review.shown = { ply, position, heat: null };
    drawReviewPosition();
    if (!analyse || position.over) return;
    const analysis = review.analysis = new AbortController();
    $("review-analysis").replaceChildren(el("p", { className: "hint", id: "review-analysis-running" }, "Analysing…"));
    const result = await api("/api/analyse", { start: game.start, moves: game.moves.slice(0, ply - 1), ...settings(),
      simulations: $("review-simulations").value || null, seconds: null }, analysis.signal);
    if (analysis !== review.analysis) return;
    review.analysis = null;
    review.shown.heat = result.network.policy;
    drawReviewPosition();
    renderAnalysis(result, position, "review-analysis");
  });
}

// The shown position's board and text: the move played, the move preferred once the review has
// reached it (drawn again when its line arrives), and the heat map once analysed.
function drawReviewPosition() {
  const shown = review.shown, game = review.game;
  if (!shown || !game) return;
  const move = review.moves[shown.ply - 1];
  const marks = { played: game.moves[shown.ply - 1] };
  if (move && move.preferred !== "pass") marks.preferred = move.preferred;
  renderBoard($("review-board"), shown.position, { legal: [], marks, heat: shown.heat });
  $("review-position").replaceChildren(...reviewPositionText(shown.ply, game, move));
}

function reviewPositionText(ply, game, move) {
  const played = game.moves[ply - 1];
  const parts = ["Before ply ", el("span", { id: "review-ply" }, String(ply)), ": "];
  if (!move) return parts.concat([`${played} played; not reviewed yet.`]);
  parts.push(`${capital(move.color)} played `, el("b", {}, move.move), `; the search preferred `, el("b", {}, move.preferred),
    `. Win probability ${percent(move.win_before, 1)}% → ${percent(move.win_after, 1)}%, lost ${percent(move.loss, 1)}%.`);
  if (move.discs_lost !== null) parts.push(` Exact (perfect play): ${exactText(move)} lost.`);
  if (move.mark) parts.push(" ", el("b", { id: "review-mark" }, move.mark));
  return parts;
}

function clearReviewAnalysis() {
  if (review.analysis) review.analysis.abort();
  review.analysis = null;
  $("review-analysis").replaceChildren();
}

async function guardedReview(action) {
  try {
    await action();
  } catch (err) {
    if (!isAbort(err)) showError(err.message);
  }
}

async function reviewFile(event) {
  const file = event.target.files[0];
  if (!file) return;
  if (file.size > REVIEW_MAX_FILE_BYTES) {
    showError(`${file.name} is ${file.size.toLocaleString()} bytes; a game to review is at most ${REVIEW_MAX_FILE_BYTES.toLocaleString()}`);
    return;
  }
  // GGF archives are latin-1: every byte reads, so the server names a bad one where it is.
  $("review-text").value = new TextDecoder("latin1").decode(await file.arrayBuffer());
  showError(null);
}

// ---------------------------------------------------------------------------------------------
// Start

function switchTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  $("panel-play").hidden = name !== "play";
  $("panel-run").hidden = name !== "run";
  $("panel-review").hidden = name !== "review";
  if (name === "run" && run.dir) refreshRun(true);
}

function listen() {
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
  $("run-review").addEventListener("click", () => run.game && startReview({ source: "run", run: run.dir, id: run.game.id }));
  $("review-start").addEventListener("click", () => startReview({ source: "text", text: $("review-text").value, game: $("review-game").value }));
  $("review-board-game").addEventListener("click", () => startReview({ source: "board", start: play.start, moves: play.moves }));
  $("review-stop").addEventListener("click", () => review.request && review.request.abort());
  $("review-file").addEventListener("change", (event) => guardedReview(() => reviewFile(event)));
  $("review-prev").addEventListener("click", () => selectReviewPly((review.selected || 1) - 1));
  $("review-next").addEventListener("click", () => selectReviewPly((review.selected || 0) + 1));
  $("review-chart").addEventListener("click", (event) => selectReviewPly(reviewChartPly(event)));
}

function applyConfig(config) {
  $("checkpoint").value = config.checkpoint;
  $("checkpoints").replaceChildren(...config.checkpoints.map((path) => el("option", { value: path })));
  $("simulations").value = config.seconds ? "" : config.simulations;
  $("seconds").value = config.seconds || "";
  $("review-simulations").value = config.simulations;
  run.dir = config.run || "";
  $("run-dir").value = run.dir;
  // Without --allow-any-path the server opens only its --run: the field shows it, fixed.
  $("run-dir").readOnly = !config.allow_any_path;
}

async function init() {
  listen();
  clearAnalysis();
  setReviewing(false);
  renderReviewChart();
  try {
    applyConfig(await api("/api/config"));
    scheduleRunRefresh();
  } catch (err) {
    showError(err.message);
  }
  await newGame();
  if (run.dir) await refreshRun(false);  // --run: the viewer's games and curves are there when its tab opens
}

init();
