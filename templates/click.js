// The player's page (templates/click.html.j2): one UI over the turn model API (docs/turn-model.md).
// It knows no game: the model (PBEM_MODELS[family]) says what may be done, in which words, where
// on the board; the page shows it, lets the player pick pieces and spaces or press buttons,
// redraws the pieces where they now stand, undoes, and writes the move file as it grows.
"use strict";
(() => {
  const D = JSON.parse(document.getElementById("pbem-click-data").textContent);
  const $ = (id) => document.getElementById(id), NS = "http://www.w3.org/2000/svg";
  const M = PBEM_MODELS[D.family];
  // the pieces of a state, read once per state (a model never changes a state: an action makes a
  // new one), for the several drawings of each click
  const piecesRead = new WeakMap();
  const piecesOf = (s) => { let p = piecesRead.get(s); if (!p) { p = M.pieces(s); piecesRead.set(s, p); } return p; };
  const panel = $("pbem-click");
  const el = (tag, parent, text) => { const e = parent.appendChild(document.createElement(tag)); if (text !== undefined) { e.textContent = text; } return e; };

  // <family> (a family model's page: the move file's text of an action, as pbem.base.yamlio.dump_flow writes the plain values actions use)
  const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9_.@+\-/ ]*$/;
  const RESERVED = /^(?:true|True|TRUE|false|False|FALSE|~|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?[0-9][0-9_.:eE+-]*|\.(?:inf|Inf|INF|nan|NaN|NAN))$/;
  function flow(v) {
    if (v === null) { return "null"; }
    if (typeof v === "boolean" || typeof v === "number") { return String(v); }
    if (Array.isArray(v)) { return "[" + v.map(flow).join(", ") + "]"; }
    if (typeof v === "object") { return "{" + Object.entries(v).map(([k, x]) => flow(k) + ": " + flow(x)).join(", ") + "}"; }
    const s = String(v);
    return PLAIN.test(s) && !RESERVED.test(s) && !s.endsWith(" ") ? s : "'" + s.replace(/'/g, "''") + "'";
  }
  // </family>

  const start = M.start(D.model, D.view || null, D.player);
  const lineOf = (state, action) => (M.text ? M.text(state, action) : flow(action));

  // --- the board: spaces, the pieces drawn on it, an overlay for marks and moved pieces
  const svg = document.querySelector("svg.pbem-board"), cells = new Map();   // space -> [points, x, y, g]
  for (const g of svg ? svg.querySelectorAll("g.pbem-cell") : []) {
    const label = g.querySelector(".pbem-label"), poly = g.querySelector("polygon");
    if (!label || !poly) { continue; }
    const xy = poly.getAttribute("points").trim().split(/[ ,]+/).map(Number);
    const mean = (k) => xy.filter((_, i) => i % 2 === k).reduce((s, v) => s + v, 0) / (xy.length / 2);
    cells.set(label.textContent, [poly.getAttribute("points"), mean(0), mean(1), g]);
  }
  const layer = svg ? svg.appendChild(document.createElementNS(NS, "g")) : null;     // moved pieces
  const overlay = svg ? svg.appendChild(document.createElementNS(NS, "g")) : null;   // marks
  if (layer) { layer.setAttribute("class", "pbem-now"); }
  const svgEl = (tag, attrs, parent) => {
    const e = (parent || overlay).appendChild(document.createElementNS(NS, tag));
    for (const [k, v] of Object.entries(attrs)) { e.setAttribute(k, v); }
    return e;
  };
  const tipOf = (g) => { const t = g.querySelector("title"); return t ? t.textContent : ""; };

  // where a mark goes in a space: a point near its middle (a family model's page finds a free one, below)
  let room = (c, r, first) => [cells.get(c)[1] + first[0], cells.get(c)[2] + first[1]], resetRoom = () => {};
  // <family> (room in a space: marks, step numbers and moved pieces go where they hide no piece's
  // count or letter and no space's label (nor each other): the first free spot of a few around the centre)
  const spot = svg ? svg.createSVGPoint() : null;
  function boxOf(e) {                                // an element's box in the board's own units
    const r = e.getBoundingClientRect(), m = svg.getScreenCTM();
    if (!m || (!r.width && !r.height)) { return null; }
    const inv = m.inverse(), at = (x, y) => { spot.x = x; spot.y = y; return spot.matrixTransform(inv); };
    const a = at(r.left, r.top), b = at(r.right, r.bottom);
    return { x0: Math.min(a.x, b.x), y0: Math.min(a.y, b.y), x1: Math.max(a.x, b.x), y1: Math.max(a.y, b.y) };
  }
  let allotted = new Map();                          // space -> the boxes taken in this drawing
  resetRoom = () => { allotted = new Map(); };
  // the board's own texts never move: each is measured once (measuring right after the marks were
  // redrawn makes the browser lay the page out again, most of a click's time on a big set-up page);
  // a resize may change the fonts' sizes, so it measures them again
  let measured = new WeakMap();
  window.addEventListener("resize", () => { measured = new WeakMap(); });
  const boardBox = (t) => { let b = measured.get(t); if (!b) { b = boxOf(t); if (b) { measured.set(t, b); } } return b; };
  function obstacles(c) {
    const texts = [...cells.get(c)[3].querySelectorAll("text.pbem-pt, text.pbem-label")].filter((t) => !t.closest(".pbem-gone"));
    const boxes = texts.map(boardBox);
    for (const g of layer.children) { if (g.dataset.cell === c) { boxes.push(...[...g.querySelectorAll("text.pbem-pt")].map(boxOf)); } }
    return (allotted.get(c) || []).concat(boxes.filter((b) => b));
  }
  const SPOTS = [[0, 0], [-21, -7], [21, -7], [-21, 13], [21, 13], [0, 27], [-16, -26], [16, -26], [-12, 27], [12, 27]];
  room = function (c, r, first, only) {             // [x, y] for a round mark of radius r in space c (only: there or null)
    const cell = cells.get(c), taken = obstacles(c);
    if (only && ([...cell[3].querySelectorAll("g.pbem-piece")].some((g) => !g.closest(".pbem-gone")) || [...layer.children].some((g) => g.dataset.cell === c))) { return null; }
    let best = null, least = Infinity;
    for (const [dx, dy] of (first ? [first] : []).concat(SPOTS)) {
      const x = cell[1] + dx, y = cell[2] + dy, box = { x0: x - r, y0: y - r, x1: x + r, y1: y + r };
      const hit = taken.reduce((n, b) => n + Math.max(0, Math.min(box.x1, b.x1) - Math.max(box.x0, b.x0))
        * Math.max(0, Math.min(box.y1, b.y1) - Math.max(box.y0, b.y0)), 0);
      if (hit < least) { least = hit; best = [x, y, box]; }
      if (hit === 0 || only) { break; }
    }
    if (only && least) { return null; }
    allotted.set(c, (allotted.get(c) || []).concat([best[2]]));
    return best;
  };
  const lookAlike = (p) => {             // a piece new on the board: drawn as one of its owner's of its shape
    for (const q of initial.values()) { const g = q.owner === p.owner && q.shape === p.shape && drawn(q, q.cell); if (g) { return g; } }
    return null;
  };
  const inPlace = (all, fade) => {
    const here = new Set(all.map((p) => p.handle));
    for (const [h, was] of initial) { if (!here.has(h) && !was.aboard) { fade(drawn(was, was.cell), "0.25"); } }   // gone
    for (const p of all) {             // still where it was, another count or letter (a stack grown or split)
      const was = initial.get(p.handle);
      if (p.aboard || !was || was.cell !== p.cell || was.label === p.label) { continue; }
      const old = drawn(was, was.cell), text = old && old.querySelector("text.pbem-pt");
      if (!text) { continue; }
      const copy = old.cloneNode(true);
      fade(old, "0");
      copy.querySelector("text.pbem-pt").textContent = p.label;
      const tip = copy.querySelector("title");
      if (tip) { tip.textContent = (p.title || p.handle) + ": " + p.label + " (was " + was.label + ")"; }
      copy.setAttribute("class", "pbem-piece pbem-relabel");
      copy.dataset.cell = p.cell;
      layer.appendChild(copy);
    }
  };
  // </family>
  function drawn(piece, cell) {      // the piece's own drawing on the board as it was sent, if any
    const c = cells.get(cell);
    if (!c) { return null; }
    const title = piece.title || piece.handle;
    return [...c[3].querySelectorAll("g.pbem-piece")].find((g) => { const t = tipOf(g); return t === title || t.startsWith(title + ";"); }) || null;
  }
  const initial = new Map(piecesOf(start).map((p) => [p.handle, p]));
  let drawPieces = function (state) {
    if (!layer) { return; }
    layer.replaceChildren();
    for (const g of svg.querySelectorAll("g.pbem-piece.pbem-gone")) { g.classList.remove("pbem-gone"); g.removeAttribute("opacity"); }
    const moved = piecesOf(state).filter((p) => !p.aboard && (!initial.has(p.handle) || initial.get(p.handle).cell !== p.cell));
    const crowd = new Map();
    for (const p of moved) {
      const was = initial.get(p.handle), old = was ? drawn(was, was.cell) : null, to = cells.get(p.cell);
      if (old) { old.classList.add("pbem-gone"); old.setAttribute("opacity", "0.25"); }
      if (!to) { continue; }
      const k = crowd.get(p.cell) || 0;
      crowd.set(p.cell, k + 1);
      const x = to[1] - 14 + 14 * (k % 3), y = to[2] + 16 + 14 * Math.floor(k / 3);
      const g = svgEl("g", { class: "pbem-piece pbem-moving" }, layer);
      svgEl("title", {}, g).textContent = (p.title || p.handle) + (was && was.cell ? " (from " + was.cell + ")" : "");
      const look = (D.look && D.look.colours && D.look.colours[p.owner]) || ["#ffffff", "#000000"];
      if (old) {
        const copy = old.cloneNode(true), box = old.getBBox();
        copy.removeAttribute("opacity");
        copy.classList.remove("pbem-gone");
        const s = Math.min(1, 13 / Math.max(box.width, box.height, 1));
        copy.setAttribute("transform", `translate(${x} ${y}) scale(${s}) translate(${-(box.x + box.width / 2)} ${-(box.y + box.height / 2)})`);
        g.appendChild(copy);
      } else {
        svgEl("circle", { cx: x, cy: y, r: 6.5, fill: look[0], stroke: "#1a1a1a", "stroke-width": 1 }, g);
        svgEl("text", { x, y: y + 2.5, class: "pbem-pt", "font-size": 6.5, fill: look[1] }, g).textContent = p.label || "";
      }
    }
  };

  // --- the turn so far
  let steps = [], picked = null, asking = null;     // {before, action, after, stop}; a piece picked; a question
  // a number picker open: {action, pickers, values}
  let counting = null;
  // what a family model's page adds (below, in its sections): number pickers, lists of crowded spaces
  let take = (action) => choose(action), collapse = (state, list) => list, drawCount = null, drawCrowds = null, crowdBox = null;
  const now = () => (steps.length ? steps[steps.length - 1].after : start);
  const stopped = () => steps.length > 0 && steps[steps.length - 1].stop;
  const ahead = new Map(), first = new Map();       // form field -> its <select>
  let aheadForm = null;

  const button = (text, run, parent) => { const b = el("button", parent, text); b.type = "button"; b.addEventListener("click", run); return b; };
  const redo = (change) => () => { change(); render(); };
  function choose(action) {
    const before = now(), out = M.apply(before, action);
    steps.push({ before, action, after: out.state, stop: out.stop, words: M.words(before, action), text: lineOf(before, action) });
    picked = asking = counting = null;
    render();
  }

  // <family> (number pickers: where the model says how many an action may carry (its counts/counted,
  // docs/turn-model.md), the page asks how many before it takes the action)
  const canon = (v) => JSON.stringify(v, (_, x) => (x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
  function pickersOf(state, action) {                // the pickers, if they leave the player a choice
    if (!M.counts || !M.counted) { return null; }
    const ks = M.counts(state, action);
    if (!ks || !ks.length || ks.every((k) => k.min === k.max)) { return null; }
    if (ks.length === 1) {
      const k = ks[0];
      for (let v = k.min; v <= k.max; v++) { if (v !== k.value && M.counted(state, action, { [k.key]: v }) !== null) { return ks; } }
      return null;
    }
    return ks;
  }
  collapse = function (state, list) {               // one choice for the actions a picker gives from another
    if (!M.counts || !M.counted) { return list; }
    const kept = [], same = (a, b) => a.piece === b.piece && a.from === b.from && a.to === b.to && a.tile === b.tile;
    for (const x of list) {
      const by = kept.find((y) => y.pickers && same(x.place, y.place) && (() => {
        const ks = M.counts(state, x.action);
        const made = ks && M.counted(state, y.action, Object.fromEntries(ks.map((k) => [k.key, k.value])));
        return !!made && canon(made) === canon(x.action);
      })());
      if (!by) { x.pickers = pickersOf(state, x.action); kept.push(x); }
    }
    return kept;
  };
  take = function (action) {
    const ks = pickersOf(now(), action);
    if (!ks) { choose(action); return; }
    counting = { action, pickers: ks, values: Object.fromEntries(ks.map((k) => [k.key, k.value])) };
    picked = asking = null;
    render();
    const first = document.querySelector("#pbem-choices input.pbem-count-n");
    if (first) { first.focus(); }
  };
  drawCount = function (box) {
    const state = now(), c = counting, set = el("fieldset", box), rows = [];
    set.className = "pbem-count";
    el("legend", set, "How many? " + M.words(state, c.action));
    const take1 = document.createElement("button"), hint = document.createElement("p");
    const update = () => {
      const made = M.counted(state, c.action, c.values);
      take1.textContent = made ? M.words(state, made) : "These numbers do not go together";
      take1.disabled = !made;
      for (const [k, less, more] of rows) { less.disabled = c.values[k.key] <= k.min; more.disabled = c.values[k.key] >= k.max; }
      hint.textContent = c.pickers.length > 1 ? "In all: " + Object.values(c.values).reduce((n, v) => n + v, 0) : "";
    };
    c.pickers.forEach((k, i) => {
      const p = el("p", set), id = "pbem-count-" + i, name = k.label || k.key;
      el("label", p, name + " ").htmlFor = id;
      const input = document.createElement("input");
      const put = (v) => { c.values[k.key] = Math.max(k.min, Math.min(k.max, v)); input.value = String(c.values[k.key]); update(); };
      const less = button("-", () => put(c.values[k.key] - 1), p);
      Object.assign(input, { type: "number", id, min: String(k.min), max: String(k.max), step: "1", value: String(c.values[k.key]), className: "pbem-count-n" });
      p.appendChild(input);
      const more = button("+", () => put(c.values[k.key] + 1), p);
      less.className = "pbem-less";
      more.className = "pbem-more";
      less.setAttribute("aria-label", "one fewer: " + name);
      more.setAttribute("aria-label", "one more: " + name);
      el("span", p, " (" + k.min + " to " + k.max + ")");
      input.addEventListener("input", () => { const v = Number(input.value); c.values[k.key] = input.value !== "" && Number.isInteger(v) ? v : NaN; update(); });
      input.addEventListener("change", () => { const v = Number(input.value); put(input.value !== "" && Number.isInteger(v) ? v : k.value); });
      input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); take1.click(); } });
      rows.push([k, less, more]);
    });
    take1.type = "button";
    take1.id = "pbem-count-take";
    take1.addEventListener("click", () => { const made = M.counted(state, c.action, c.values); if (made) { choose(made); } });
    set.appendChild(take1);
    set.appendChild(hint);
    button("Cancel", redo(() => { counting = null; }), set);
    update();
  };
  // </family>

  function offer(title, items) {
    if (items.length === 1 && items[0].action !== undefined) { take(items[0].action); } else { asking = { title, items }; render(); }
  }
  // a piece not on the board, as the page names it: its handle, the player's own value where the
  // page's data holds it (how a set-up page's pieces look once placed), and where it is
  function offBoard(handle) {
    const look = (D.setup ? D.setup.groups : []).map((g) => (g.looks || {})[handle]).find((x) => x);
    return handle + (look && look.value != null ? " (value " + look.value + ")" : "") + ", off the board";
  }
  let choices = [];                                  // what may be done now: {action, words, place}
  const moves = (c) => c.place.piece && c.place.to;
  const pieceOf = (handle) => piecesOf(now()).find((x) => x.handle === handle);
  const titleOf = (handle) => { const p = pieceOf(handle); return p ? (p.title || p.handle) : handle; };
  function clickCell(c) {
    if (picked !== null) {
      const here = choices.filter((x) => moves(x) && x.place.piece === picked);
      const acts = here.filter((x) => x.place.to === c);
      const items = acts.map((x) => ({ text: x.words, action: x.action }));
      if (here.length && here[0].place.from === c) {   // its own space: put it back, or a move that stays
        if (!acts.length) { picked = null; render(); return; }   // there (out of a ship into the water)
        offer(picked + " at " + c, items.concat([{ text: "Put " + picked + " back", run: () => { picked = null; } }]));
        return;
      }
      if (acts.length) { offer(picked + " to " + c, items); }
      return;
    }
    const pieces = [...new Set(choices.filter((x) => moves(x) && x.place.from === c).map((x) => x.place.piece))];
    const tiles = choices.filter((x) => !moves(x) && x.place.tile === c);
    if (pieces.length === 1 && !tiles.length) { picked = pieces[0]; render(); return; }
    offer(c, pieces.map((p) => ({ text: "pick " + p, run: () => { picked = p; } })).concat(tiles.map((x) => ({ text: x.words, action: x.action }))));
  }
  function mark(c, cls, tip) {
    const cell = cells.get(c);
    if (!cell) { return; }
    const e = svgEl("polygon", { points: cell[0], class: "pbem-hl " + cls, tabindex: "0", role: "button", "aria-label": tip });
    svgEl("title", {}, e).textContent = tip;
    if (cls === "pbem-to") { const [x, y] = room(c, 6, [0, 14]); svgEl("circle", { cx: x, cy: y, r: 6, class: "pbem-dot" }); }
    e.addEventListener("click", () => clickCell(c));
    e.addEventListener("keydown", (k) => { if (k.key === "Enter" || k.key === " ") { k.preventDefault(); clickCell(c); } });
  }
  let drawSteps = function () {
    steps.forEach((s, k) => {
      const p = M.places(s.before, s.action), to = cells.get(p.to || p.tile);
      if (!to) { return; }
      const from = p.piece && cells.get(p.from);
      if (from) { svgEl("line", { x1: from[1], y1: from[2], x2: to[1], y2: to[2], class: "pbem-step" }); }
      if (p.tile && !p.piece) { svgEl("path", { d: `M${to[1] - 12} ${to[2] - 12}l24 24m0 -24l-24 24`, class: "pbem-step" }); }
      svgEl("circle", { cx: to[1], cy: to[2], r: 9, class: "pbem-num" });
      svgEl("text", { x: to[1], y: to[2] + 4, class: "pbem-numt" }).textContent = String(k + 1);
    });
  };
  // <family> (the board as a family model's page draws it: what moved, grew or went, and the step
  // numbers, each in a free corner of its space (room, above))
  drawPieces = function (state) {
    if (!layer) { return; }
    layer.replaceChildren();
    for (const g of svg.querySelectorAll("g.pbem-piece.pbem-gone")) { g.classList.remove("pbem-gone"); g.removeAttribute("opacity"); }
    const all = piecesOf(state), fade = (g, o) => { if (g) { g.classList.add("pbem-gone"); g.setAttribute("opacity", o); } };
    inPlace(all, fade);
    const moved = all.filter((p) => !p.aboard && (!initial.has(p.handle) || initial.get(p.handle).cell !== p.cell));
    for (const p of moved) {
      const was = initial.get(p.handle), old = was ? drawn(was, was.cell) : null, to = cells.get(p.cell);
      fade(old, "0.25");
      if (!to) { continue; }
      // full size in an empty space
      const like = old || lookAlike(p), big = like && room(p.cell, 15, [0, 6], true);
      const [x, y] = big || room(p.cell, 8, [0, 14]);
      const g = svgEl("g", { class: "pbem-piece pbem-moving", "data-cell": p.cell }, layer);
      svgEl("title", {}, g).textContent = (p.title || p.handle) + (was && was.cell ? " (from " + was.cell + ")" : "");
      const look = (D.look && D.look.colours && D.look.colours[p.owner]) || ["#ffffff", "#000000"];
      if (like) {
        const copy = like.cloneNode(true), box = like.getBBox();
        copy.removeAttribute("opacity");
        copy.classList.remove("pbem-gone");
        // another piece's drawing: this one's count or letter, no tooltip of its own
        if (!old) {
          const t = copy.querySelector("text.pbem-pt"), tip = copy.querySelector("title");
          if (t) { t.textContent = p.label || ""; }
          if (tip) { tip.remove(); }
        }
        const s = Math.min(1, (big ? 30 : 16) / Math.max(box.width, box.height, 1));
        copy.setAttribute("transform", `translate(${x} ${y}) scale(${s}) translate(${-(box.x + box.width / 2)} ${-(box.y + box.height / 2)})`);
        g.appendChild(copy);
      } else {
        svgEl("circle", { cx: x, cy: y, r: 6.5, fill: look[0], stroke: "#1a1a1a", "stroke-width": 1 }, g);
        svgEl("text", { x, y: y + 2.5, class: "pbem-pt", "font-size": 6.5, fill: look[1] }, g).textContent = p.label || "";
      }
    }
  };
  drawSteps = function () {
    const lines = svgEl("g", { class: "pbem-lines" });
    steps.forEach((s, k) => {
      const p = M.places(s.before, s.action), to = cells.get(p.to || p.tile);
      if (!to) { return; }
      const cross = p.tile && !p.piece, from = p.piece && cells.get(p.from), [x, y] = room(p.to || p.tile, cross ? 13 : 9);
      // from the edge of the first space's middle, where its pieces' counts are
      if (from) {
        const d = Math.hypot(x - from[1], y - from[2]) || 1, k0 = Math.min(0.45, 16 / d);
        svgEl("line", { x1: from[1] + (x - from[1]) * k0, y1: from[2] + (y - from[2]) * k0, x2: x, y2: y, class: "pbem-step" }, lines);
      }
      if (cross) { svgEl("path", { d: `M${x - 13} ${y - 13}l26 26m0 -26l-26 26`, class: "pbem-step" }, lines); }
      svgEl("circle", { cx: x, cy: y, r: 9, class: "pbem-num" });
      svgEl("text", { x, y: y + 4, class: "pbem-numt" }).textContent = String(k + 1);
    });
  };
  // </family>

  // <family> (a crowded space (more than CROWD pieces, aboard or not): a small list mark in a free
  // corner shows each piece, its owner, kind and value where the player may see it, on hover or
  // focus; a click or Enter keeps the list open)
  const CROWD = 3;                                   // a space with more pieces than this gets a list of them
  let crowdPinned = false;
  function pieceText(p) {
    const what = [p.owner, p.shape].filter((w) => w).join(" ");
    return (p.title || p.handle) + (what ? ": " + what : "") + (p.label && p.label !== p.handle ? " (" + p.label + ")" : "")
      + (p.aboard ? ", aboard " + p.aboard : "") + (p.value !== null && p.value !== undefined ? ", value " + p.value : "");
  }
  function showCrowd(c, list, anchor, pin) {
    if (!crowdBox) {
      crowdBox = document.body.appendChild(document.createElement("div"));
      crowdBox.id = "pbem-crowd";
      crowdBox.className = "pbem-crowd";
      crowdBox.setAttribute("role", "region");
      crowdBox.setAttribute("aria-live", "polite");
    }
    crowdPinned = pin;
    crowdBox.replaceChildren();
    crowdBox.setAttribute("aria-label", "pieces at " + c);
    el("p", crowdBox, c + ": " + list.length + " pieces");
    const ul = el("ul", crowdBox), top = list.filter((p) => !p.aboard || !list.some((v) => v.handle === p.aboard));
    for (const p of top) {
      const li = el("li", ul, pieceText(p)), inside = list.filter((x) => x.aboard === p.handle);
      if (inside.length) { const sub = el("ul", li); for (const x of inside) { el("li", sub, pieceText(x)); } }
    }
    if (pin) { button("Close", () => { crowdBox.hidden = true; }, crowdBox); }
    const r = anchor.getBoundingClientRect();
    crowdBox.style.left = Math.round(r.right + window.scrollX + 6) + "px";
    crowdBox.style.top = Math.round(r.top + window.scrollY) + "px";
    crowdBox.hidden = false;
  }
  drawCrowds = function (state) {
    if (crowdBox) { crowdBox.hidden = true; crowdPinned = false; }    // its list was of the board before
    const by = new Map();
    for (const p of piecesOf(state)) { if (p.shape !== "tile" && cells.has(p.cell)) { by.set(p.cell, (by.get(p.cell) || []).concat([p])); } }
    for (const [c, list] of by) {
      if (list.length <= CROWD) { continue; }
      const [x, y] = room(c, 7, [25, -12]);
      const tip = c + ": " + list.length + " pieces; show the list";
      const g = svgEl("g", { class: "pbem-crowd-mark", tabindex: "0", role: "button", "aria-label": tip });
      svgEl("title", {}, g).textContent = tip;
      svgEl("rect", { x: x - 7, y: y - 7, width: 14, height: 14, rx: 2.5, fill: "#ffffff", stroke: "#111111", "stroke-width": 1.2 }, g);
      svgEl("path", { d: `M${x - 4} ${y - 3.5}h8m-8 3.5h8m-8 3.5h8`, stroke: "#111111", "stroke-width": 1.4 }, g);
      const open = (pin) => showCrowd(c, list, g, pin);
      g.addEventListener("mouseenter", () => { if (!crowdPinned || crowdBox.hidden) { open(false); } });
      g.addEventListener("focus", () => { if (!crowdPinned || crowdBox.hidden) { open(false); } });
      g.addEventListener("mouseleave", () => { if (crowdBox && !crowdPinned) { crowdBox.hidden = true; } });
      g.addEventListener("blur", () => { if (crowdBox && !crowdPinned) { crowdBox.hidden = true; } });
      g.addEventListener("click", (e) => { e.stopPropagation(); open(true); });
      g.addEventListener("keydown", (k) => { if (k.key === "Enter" || k.key === " ") { k.preventDefault(); open(true); } });
    }
  };
  // </family>

  // --- forms: standing orders (first) and orders written ahead at a stop; a form is an OrderForm as
  // JSON (docs/turn-model.md: key, title, fields of name, label, values, texts, current; when, note)
  // a key as the move file writes it: the generic model's data carries it (``k``), a family's
  // page writes it with flow()
  const keyText = (o, name) => (o.k !== undefined ? o.k : flow(name));
  function formAction(form, selects, changed) {
    const parts = form.fields.map((f) => [f, selects.get(f.name).value])
      .filter(([f, v]) => v !== "" && !(changed && v === f.current)).map(([f, v]) => keyText(f, f.name) + ": " + v);
    return parts.length ? "{" + keyText(form, form.key) + ": {" + parts.join(", ") + "}}" : "";
  }
  function buildForm(form, selects, box, later) {
    selects.clear();
    box.replaceChildren();
    const set = el("fieldset", box);
    el("legend", set, form.title);
    for (const f of form.fields) {
      const p = el("p", set), label = el("label", p, f.label + " "), sel = el("select", p);
      sel.id = label.htmlFor = "pbem-f-" + form.key + "-" + f.name;
      const opts = (later ? [["", "ask me after the roll"]] : []).concat(f.values.map((v, i) => [v, (f.texts || [])[i] || v]));
      if (!later && !f.values.includes(f.current)) { opts.unshift([f.current, "as now: " + f.current]); }
      for (const [v, t] of opts) { sel.add(new Option(t, v, false, v === (later ? "" : f.current))); }
      sel.addEventListener("change", show);
      selects.set(f.name, sel);
    }
    if (form.note) { el("p", set, form.note); }
  }
  const firstForm = (M.forms(start) || []).find((f) => f.when !== "ahead") || null;

  // <setup> (a set-up round's page: every placement to come, as one preference list)
  let plan = null;
  const MAX_ENTRIES = 100;                           // a preference list's longest (pbem.core.preferences)
  function planLines() {          // each entry, then the same piece on the next spaces no entry names, should its be taken
    if (!plan || !plan.some((g) => g.order.length)) { return []; }
    const out = [], entries = plan.reduce((n, g) => n + g.order.length, 0);
    const FALLBACKS = Math.max(0, Math.floor((MAX_ENTRIES - entries) / entries));   // as many as the list holds
    for (const g of plan) {
      const index = new Map(g.pairs.map(([p, s], k) => [p + " " + s, k]));
      const named = new Set(g.order.map((k) => g.pairs[k][1]));
      for (const k of g.order) {
        out.push(g.texts[k]);
        const [p, s] = g.pairs[k];
        let left = FALLBACKS;
        for (let d = 1; left > 0 && d < g.spots.length; d++) {
          const t = (s + d) % g.spots.length, f = index.get(p + " " + t);
          if (!named.has(t) && f !== undefined) { out.push(g.texts[f]); left--; }
        }
      }
    }
    return out.slice(0, MAX_ENTRIES);
  }
  function buildPlan() {
    const box = $("pbem-setup");
    box.replaceChildren();
    if (!D.setup) { return; }
    const fill = (t, piece, spot) => t.replace(/#(p|s|#)/g, (_, c) => (c === "p" ? piece : c === "s" ? spot : "#"));
    plan = D.setup.groups.map((g) => {
      const pairs = g.pairs || g.pieces.flatMap((_, p) => g.spots.map((__, s) => [p, s]));
      const texts = pairs.map(([p, s], k) => (typeof g.text === "string" ? fill(g.text, g.pieces[p], g.spots[s]) : g.text[k]));
      const words = pairs.map(([p, s], k) => (typeof g.words === "string" ? fill(g.words, g.pieces[p], g.spots[s]) : g.words[k]));
      return { prompt: g.prompt, pairs, texts, words, order: [], pieces: g.pieces, spots: g.spots };
    });
    const set = el("fieldset", box);
    el("legend", set, "Your whole set-up in one message");
    el("p", set, "Add the placements you want, best first; the moderator takes the first of them that is still open each time it is your turn to place, and asks you where none is. Move them up and down to reorder.");
    el("p", set, panel.dataset.sentBy ? panel.dataset.sentBy + "'s Send seals the list to the moderator before it signs: the other players cannot read it." :
      "The list goes in your move file as it is: once the moderator has taken it, the other players can read it with the log (sealed with pbem seal, only the moderator can: see the move file's guide).");
    plan.forEach((g, gi) => {
      const p = el("p", set);
      el("span", p, g.prompt + ": ");
      const pick = (what, names) => {
        const label = el("label", p, what + " "), sel = el("select", p);
        sel.id = label.htmlFor = "pbem-plan-" + gi + "-" + what;
        names.forEach((n, k) => sel.add(new Option(n, String(k))));
        el("span", p, " ");
        return sel;
      };
      const piece = pick("piece", g.pieces.map(offBoard)), spot = pick("space", g.spots);
      const index = new Map(g.pairs.map(([a, b], k) => [a + " " + b, k]));
      const add = button("Add", () => {
        const k = index.get(piece.value + " " + spot.value);
        if (k !== undefined && !g.order.includes(k)) { g.order.push(k); }
        note(k === undefined ? "that piece may not go there" : "");
        drawPlan(); show();
      }, p);
      add.id = "pbem-plan-" + gi + "-add";
      g.list = el("ol", set);
      g.list.className = "pbem-plan";
    });
    drawPlan();
  }
  function drawPlan() {
    for (const g of plan) {
      g.list.replaceChildren();
      g.order.forEach((k, i) => {
        const li = el("li", g.list, g.words[k] + " ");
        const move = (d) => () => { const j = i + d; if (j < 0 || j >= g.order.length) { return; } [g.order[i], g.order[j]] = [g.order[j], g.order[i]]; drawPlan(); show(); };
        button("Up", move(-1), li).disabled = i === 0;
        button("Down", move(1), li).disabled = i === g.order.length - 1;
        button("Remove", () => { g.order.splice(i, 1); drawPlan(); show(); }, li);
      });
    }
  }

  // </setup>

  // --- the move file
  function actions() {
    const out = [firstForm ? formAction(firstForm, first, true) : ""];
    const lines = D.setup ? planLines() : [];
    out.push(...steps.map((s) => s.text));           // what was clicked on the board answers the decision now,
    // the list the ones to come; keep: a placement that does not fit a decision waits for a later one (the
    // ships' while the explorers are placed), and the player is asked where the list has nothing that fits
    if (lines.length) { out.push("{prefer: [" + lines.join(", ") + "], keep: true}"); }
    if (aheadForm && stopped()) { out.push(formAction(aheadForm, ahead, false)); }
    return out.filter((a) => a);
  }
  const moveText = () => {
    const acts = actions();
    return D.head + (acts.length ? "actions:\n" + acts.map((a) => "  - " + a + "\n").join("") : "actions: []\n");
  };
  function show() {
    const text = moveText();
    $("pbem-move").value = text;
    $("pbem-move").rows = Math.max(8, text.split("\n").length + 2);
    $("pbem-save").disabled = $("pbem-copy").disabled = !actions().length;
  }

  // <family> (whether the page holds the whole turn: complete, stop or cut; the graph model's page has it already)
  function worksOut() {
    if (M.choices) { return M.choices(start); }
    let seen = 0, stop = false;
    const queue = [start];
    while (queue.length && seen < 2000) {
      const s = queue.pop();
      seen++;
      if (M.decision(s) === null) { continue; }
      const legal = M.legal(s);
      if (legal === null) { return "cut"; }
      for (const a of legal) { const out = M.apply(s, a); if (out.stop) { stop = true; } else { queue.push(out.state); } }
    }
    return queue.length ? "cut" : stop ? "stop" : "complete";
  }
  if (!panel.dataset.choices) { panel.dataset.choices = worksOut(); }
  // </family>

  // where the page is framed by the program that signs and sends the move (pbem play), it says to
  // press that program's Send; the page from the mail says to save, sign and send the file
  const SENT_BY = panel.dataset.sentBy;
  const STATUS = SENT_BY ? {
    stop: "Your move stops here: what comes next depends on a die roll or a hidden tile. The moderator applies it and asks you again if there is more to decide. Press Send in " + SENT_BY + ", under this page.",
    done: "Your part is done: press Send in " + SENT_BY + ", under this page; it signs the move and sends it.",
    cut: "This page has your choices only this far. Press Send in " + SENT_BY + " to send the move as it is (the moderator applies it and your next digest goes on from there), or use its list of every choice.",
  } : {
    stop: "Your move stops here: what comes next depends on a die roll or a hidden tile. The moderator applies it and asks you again if there is more to decide. Save the move.",
    done: "Your part is done: save the move, sign it and send it.",
    cut: "This page has your choices only this far. Save the move as it is (the moderator applies it and your next digest goes on from there), or write the rest by hand, or use pbem turn.",
  };
  // a decision's prompt up to its examples in move-file syntax, as pbem.views.clickpage.page_prompt
  // cuts the generic model's (a family model's prompt may carry them too: the buttons are the words)
  const TRAILING = /(?:[\s:;,(\-]|\b(?:or|e\.g\.|like|such as|then|\.\.\.))+$/;
  function pagePrompt(prompt) {
    const at = prompt.indexOf("{");
    return at < 0 ? prompt : prompt.slice(0, at).replace(TRAILING, "") || "Your choice";
  }
  let shownList = "";
  function render() {
    const state = now(), box = $("pbem-choices"), list = $("pbem-all");
    const decision = stopped() ? null : M.decision(state);
    const legal = stopped() || decision === null ? null : M.legal(state);
    const end = stopped() || (legal && !legal.length) ? "stop" : decision === null ? "done" : legal === null ? "cut" : "";
    choices = legal ? collapse(state, legal.map((action) => ({ action, words: M.words(state, action), place: M.places(state, action) }))) : [];
    if (overlay) { overlay.replaceChildren(); resetRoom(); drawPieces(state); drawSteps(); }
    $("pbem-status").textContent = end ? STATUS[end] : (steps.length ? "Choice " + (steps.length + 1) + ": " : "") + pagePrompt(decision.prompt)
      + (picked !== null ? ". " + picked + " is picked: choose where it goes (marked with a dot), or press Escape." : "");
    panel.dataset.now = end || "choose";
    const history = $("pbem-history");
    history.replaceChildren();
    for (const s of steps) { el("li", history, s.words); }
    box.replaceChildren();
    let listed = "";                                 // the list of every choice, as its words' JSON ("": none)
    if (counting && drawCount) {
      drawCount(box);
    } else if (asking) {
      el("p", box, asking.title + ": which one?");
      for (const item of asking.items) { button(item.text, () => (item.action !== undefined ? take(item.action) : redo(() => { item.run(); asking = null; })()), box); }
      button("Cancel", redo(() => { asking = null; }), box);
    } else if (!end) {
      const pieces = new Map(), by = new Map();
      const add = (c, what) => by.set(c, (by.get(c) || []).concat(what));
      listed = JSON.stringify(choices.map((x) => x.words));
      choices.forEach((x) => {
        if (moves(x)) { pieces.set(x.place.piece, x.place.from); } else if (x.place.tile) { add(x.place.tile, x.words); } else { button(x.words, () => take(x.action), box); }
      });
      if (picked !== null) {
        button("Cancel " + picked, redo(() => { picked = null; }), box);
        mark(pieces.get(picked), "pbem-from", pieces.get(picked) + ": " + titleOf(picked) + " picked; press to put it back");
        for (const c of new Set(choices.filter((x) => moves(x) && x.place.piece === picked).map((x) => x.place.to))) { mark(c, "pbem-to", c + ": move " + titleOf(picked) + " here"); }
      } else {
        const off = [...pieces].filter(([, c]) => !c || !cells.has(c));
        if (off.length) { const p = el("p", box, "Off the board: "); for (const [piece] of off) { button(piece, redo(() => { picked = piece; }), p).title = pieceOf(piece) ? titleOf(piece) : offBoard(piece); } }
        for (const [p, c] of pieces) { if (c && cells.has(c)) { add(c, p); } }
        for (const [c, what] of by) { mark(c, "pbem-pick", c + ": " + what.join(", ")); }
      }
    }
    // the list of every choice: made again only when its words change (a set-up page lists some 400)
    if (listed !== shownList) {
      list.replaceChildren(...(listed ? choices.map((x, k) => new Option(x.words, String(k))) : []));
      shownList = listed;
    } else if (list.options.length) {
      list.selectedIndex = 0;
    }
    if (overlay && drawCrowds) { drawCrowds(state); }
    $("pbem-list").hidden = !choices.length || !!asking || !!counting;
    const forms = end === "stop" ? (M.forms(state) || []).filter((f) => f.when === "ahead") : [];
    if (!forms.length) { aheadForm = null; ahead.clear(); $("pbem-ahead").replaceChildren(); } else if (!aheadForm || aheadForm.key !== forms[0].key) { aheadForm = forms[0]; buildForm(aheadForm, ahead, $("pbem-ahead"), true); }
    $("pbem-undo").disabled = !steps.length && picked === null && !asking && !counting;
    $("pbem-reset").disabled = !steps.length;
    show();
  }
  const back = () => { picked = asking = counting = null; };
  // a space with no choice on it now says so when clicked (the marked spaces have their own handlers)
  for (const [label, cell] of cells) {
    cell[3].addEventListener("click", () => note(picked !== null
      ? picked + " cannot go to " + label + ": the spaces with a dot are where it can go."
      : "No choice on " + label + " now: the marked spaces and the buttons below are your choices."));
  }
  $("pbem-undo").addEventListener("click", redo(() => { if (asking || counting || picked !== null) { back(); } else { steps.pop(); } }));
  $("pbem-reset").addEventListener("click", redo(() => { steps = []; back(); }));
  $("pbem-take").addEventListener("click", () => { const k = $("pbem-all").value; if (k !== "" && choices[Number(k)]) { take(choices[Number(k)].action); } });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") { return; }
    if (crowdBox && !crowdBox.hidden) { crowdBox.hidden = true; return; }
    if (picked !== null || asking || counting) { back(); render(); }
  });
  const note = (t) => { $("pbem-note").textContent = t; };
  $("pbem-save").addEventListener("click", () => {
    const a = el("a", document.body);
    a.href = URL.createObjectURL(new Blob([moveText()], { type: "application/x-yaml" }));
    a.download = D.file;
    a.click();
    a.remove();
    note("saved as " + D.file + " (in your downloads folder)");
  });
  $("pbem-copy").addEventListener("click", () => {
    const fallback = () => { $("pbem-move").select(); note(document.execCommand("copy") ? "copied" : "select the text and copy it"); };
    if (navigator.clipboard) { navigator.clipboard.writeText(moveText()).then(() => note("copied"), fallback); } else { fallback(); }
  });
  if (firstForm) {
    const box = el("details", $("pbem-first"));
    el("summary", box, firstForm.title);
    buildForm(firstForm, first, el("div", box), false);
  }
  if (D.setup) { buildPlan(); }
  render();
})();
