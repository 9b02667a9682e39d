// The player's page (templates/click.html.j2): one UI over the turn model API (docs/turn-model.md).
// It knows no game: the model (PBEM_MODELS[family]) says what may be done, in which words, where
// on the board; the page shows it, lets the player pick pieces and spaces or press buttons,
// redraws the pieces where they now stand, undoes, and writes the move file as it grows.
"use strict";
(() => {
  const D = JSON.parse(document.getElementById("pbem-click-data").textContent);
  const $ = (id) => document.getElementById(id), NS = "http://www.w3.org/2000/svg";
  const M = PBEM_MODELS[D.family];
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
  function drawn(piece, cell) {      // the piece's own drawing on the board as it was sent, if any
    const c = cells.get(cell);
    if (!c) { return null; }
    const title = piece.title || piece.handle;
    return [...c[3].querySelectorAll("g.pbem-piece")].find((g) => { const t = tipOf(g); return t === title || t.startsWith(title + ";"); }) || null;
  }
  const initial = new Map(M.pieces(start).map((p) => [p.handle, p]));
  function drawPieces(state) {
    if (!layer) { return; }
    layer.replaceChildren();
    for (const g of svg.querySelectorAll("g.pbem-piece.pbem-gone")) { g.classList.remove("pbem-gone"); g.removeAttribute("opacity"); }
    const moved = M.pieces(state).filter((p) => !p.aboard && (!initial.has(p.handle) || initial.get(p.handle).cell !== p.cell));
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
  }

  // --- the turn so far
  let steps = [], picked = null, asking = null;     // {before, action, after, stop}; a piece picked; a question
  const now = () => (steps.length ? steps[steps.length - 1].after : start);
  const stopped = () => steps.length > 0 && steps[steps.length - 1].stop;
  const ahead = new Map(), first = new Map();       // form field -> its <select>
  let aheadForm = null;

  const button = (text, run, parent) => { const b = el("button", parent, text); b.type = "button"; b.addEventListener("click", run); return b; };
  const redo = (change) => () => { change(); render(); };
  function choose(action) {
    const before = now(), out = M.apply(before, action);
    steps.push({ before, action, after: out.state, stop: out.stop, words: M.words(before, action), text: lineOf(before, action) });
    picked = asking = null;
    render();
  }
  function offer(title, items) {
    if (items.length === 1 && items[0].action !== undefined) { choose(items[0].action); } else { asking = { title, items }; render(); }
  }
  let choices = [];                                  // what may be done now: {action, words, place}
  const moves = (c) => c.place.piece && c.place.to;
  const titleOf = (handle) => { const p = M.pieces(now()).find((x) => x.handle === handle); return p ? (p.title || p.handle) : handle; };
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
    if (cls === "pbem-to") { svgEl("circle", { cx: cell[1], cy: cell[2] + 14, r: 6, class: "pbem-dot" }); }
    e.addEventListener("click", () => clickCell(c));
    e.addEventListener("keydown", (k) => { if (k.key === "Enter" || k.key === " ") { k.preventDefault(); clickCell(c); } });
  }
  function drawSteps() {
    steps.forEach((s, k) => {
      const p = M.places(s.before, s.action), to = cells.get(p.to || p.tile);
      if (!to) { return; }
      const from = p.piece && cells.get(p.from);
      if (from) { svgEl("line", { x1: from[1], y1: from[2], x2: to[1], y2: to[2], class: "pbem-step" }); }
      if (p.tile && !p.piece) { svgEl("path", { d: `M${to[1] - 12} ${to[2] - 12}l24 24m0 -24l-24 24`, class: "pbem-step" }); }
      svgEl("circle", { cx: to[1], cy: to[2], r: 9, class: "pbem-num" });
      svgEl("text", { x: to[1], y: to[2] + 4, class: "pbem-numt" }).textContent = String(k + 1);
    });
  }

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
    el("p", set, "Add the placements you want, best first; the moderator takes the first of them that is still open each time it is your turn to place. Move them up and down to reorder.");
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
      const piece = pick("piece", g.pieces.map((h) => ((D.setup.groups[gi].looks || {})[h] || {}).title || h)), spot = pick("space", g.spots);
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
    if (lines.length) { out.push("{prefer: [" + lines.join(", ") + "]}"); } else { out.push(...steps.map((s) => s.text)); }
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

  const STATUS = {
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
  function render() {
    const state = now(), box = $("pbem-choices"), list = $("pbem-all");
    const decision = stopped() ? null : M.decision(state);
    const legal = stopped() || decision === null ? null : M.legal(state);
    const end = stopped() || (legal && !legal.length) ? "stop" : decision === null ? "done" : legal === null ? "cut" : "";
    choices = legal ? legal.map((action) => ({ action, words: M.words(state, action), place: M.places(state, action) })) : [];
    if (overlay) { overlay.replaceChildren(); drawPieces(state); drawSteps(); }
    $("pbem-status").textContent = end ? STATUS[end] : (steps.length ? "Choice " + (steps.length + 1) + ": " : "") + pagePrompt(decision.prompt)
      + (picked !== null ? ". " + picked + " is picked: choose where it goes (marked with a dot), or press Escape." : "");
    panel.dataset.now = end || "choose";
    const history = $("pbem-history");
    history.replaceChildren();
    for (const s of steps) { el("li", history, s.words); }
    box.replaceChildren();
    list.replaceChildren();
    if (asking) {
      el("p", box, asking.title + ": which one?");
      for (const item of asking.items) { button(item.text, () => (item.action !== undefined ? choose(item.action) : redo(() => { item.run(); asking = null; })()), box); }
      button("Cancel", redo(() => { asking = null; }), box);
    } else if (!end) {
      const pieces = new Map(), by = new Map();
      const add = (c, what) => by.set(c, (by.get(c) || []).concat(what));
      choices.forEach((x, k) => {
        list.add(new Option(x.words, String(k)));
        if (moves(x)) { pieces.set(x.place.piece, x.place.from); } else if (x.place.tile) { add(x.place.tile, x.words); } else { button(x.words, () => choose(x.action), box); }
      });
      if (picked !== null) {
        button("Cancel " + picked, redo(() => { picked = null; }), box);
        mark(pieces.get(picked), "pbem-from", pieces.get(picked) + ": " + titleOf(picked) + " picked; press to put it back");
        for (const c of new Set(choices.filter((x) => moves(x) && x.place.piece === picked).map((x) => x.place.to))) { mark(c, "pbem-to", c + ": move " + titleOf(picked) + " here"); }
      } else {
        const off = [...pieces].filter(([, c]) => !c || !cells.has(c));
        if (off.length) { const p = el("p", box, "Off the board: "); for (const [piece] of off) { button(piece, redo(() => { picked = piece; }), p).title = titleOf(piece); } }
        for (const [p, c] of pieces) { if (c && cells.has(c)) { add(c, p); } }
        for (const [c, what] of by) { mark(c, "pbem-pick", c + ": " + what.join(", ")); }
      }
    }
    $("pbem-list").hidden = !choices.length || !!asking;
    const forms = end === "stop" ? (M.forms(state) || []).filter((f) => f.when === "ahead") : [];
    if (!forms.length) { aheadForm = null; ahead.clear(); $("pbem-ahead").replaceChildren(); } else if (!aheadForm || aheadForm.key !== forms[0].key) { aheadForm = forms[0]; buildForm(aheadForm, ahead, $("pbem-ahead"), true); }
    $("pbem-undo").disabled = !steps.length && picked === null && !asking;
    $("pbem-reset").disabled = !steps.length;
    show();
  }
  const back = () => { picked = asking = null; };
  $("pbem-undo").addEventListener("click", redo(() => { if (asking || picked !== null) { back(); } else { steps.pop(); } }));
  $("pbem-reset").addEventListener("click", redo(() => { steps = []; back(); }));
  $("pbem-take").addEventListener("click", () => { const k = $("pbem-all").value; if (k !== "" && choices[Number(k)]) { choose(choices[Number(k)].action); } });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && (picked !== null || asking)) { back(); render(); } });
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
