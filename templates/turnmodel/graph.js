// The generic turn model (docs/turn-model.md): the model API over the capped choice graph that
// pbem works out on the moderator's machine (pbem/views/choicegraph.py, graph_data), so that a
// game with no rules model of its own still gets the whole page.  Its `legal` is null where the
// graph was cut; `apply` says stop where the graph ends at a roll or a hidden value.
//
// A state is {g, n, at, ahead, end}: g the graph (start decodes it once and keeps it by
// number), n the node (or -1 STOP, -2 DONE, -3 CUT), at the pieces that moved (piece -> space),
// ahead the form of orders written ahead at a stop (-1: none).
// An action is the action mapping the move file carries (its move-file text read back);
// `text(state, action)` gives that text exactly as pbem writes it.
"use strict";
(() => {
  const STOP = -1, DONE = -2, CUT = -3;
  const graphs = [];

  // --- reading a move-file text back (one-line flow YAML as pbem.base.yamlio.dump_flow writes it)
  function readFlow(text) {
    let i = 0;
    const fail = () => { throw new Error("cannot read the action " + text + " at " + i); };
    const space = () => { while (text[i] === " ") { i++; } };
    const plain = (value) => {
      if (/^(?:true|True|TRUE)$/.test(value)) { return true; }
      if (/^(?:false|False|FALSE)$/.test(value)) { return false; }
      if (/^[-+]?[0-9]+$/.test(value)) { return Number(value); }
      if (/^(?:~|null|Null|NULL|)$/.test(value)) { return null; }
      return value;
    };
    function scalar(inKey) {
      if (text[i] === "'") {
        let out = "";
        i++;
        for (;;) {
          if (i >= text.length) { fail(); }
          if (text[i] === "'") { if (text[i + 1] === "'") { out += "'"; i += 2; continue; } i++; return out; }
          out += text[i++];
        }
      }
      if (text[i] === '"') {
        const start = i++;
        while (i < text.length && text[i] !== '"') { i += text[i] === "\\" ? 2 : 1; }
        i++;
        return JSON.parse(text.slice(start, i));
      }
      const start = i;
      while (i < text.length && !",]}".includes(text[i]) && !(inKey && text[i] === ":" && text[i + 1] === " ")) { i++; }
      return plain(text.slice(start, i).trim());
    }
    function value(inKey) {
      space();
      if (text[i] === "{") {
        const out = {};
        i++; space();
        while (text[i] !== "}") {
          const key = scalar(true);
          if (text[i] !== ":") { fail(); }
          i++;
          out[String(key)] = value(false);
          space();
          if (text[i] === ",") { i++; space(); } else if (text[i] !== "}") { fail(); }
        }
        i++;
        return out;
      }
      if (text[i] === "[") {
        const out = [];
        i++; space();
        while (text[i] !== "]") {
          out.push(value(false));
          space();
          if (text[i] === ",") { i++; space(); } else if (text[i] !== "]") { fail(); }
        }
        i++;
        return out;
      }
      return scalar(inKey);
    }
    const out = value(false);
    space();
    if (i !== text.length) { fail(); }
    return out;
  }

  // --- the graph's data (graph_data) decoded ---------------------------------------------------
  const expand = (list) => {          // [3, -3, 9] is 3, 4, 5, 6, 9
    const out = [];
    for (const v of list) { if (v >= 0) { out.push(v); } else { for (let i = 1; i <= -v; i++) { out.push(out[out.length - 1] + 1); } } }
    return out;
  };

  function decode(D) {
    const N = D.names;
    let prev = null;                  // [-1, 0, 1]: the shape of the action before, its values moved on
    const codes = D.actions.map((a) => (a ? (prev = a[0] < 0 ? [prev[0], ...a.slice(1).map((d, i) => prev[1 + i] + d)] : a) : 0));
    const texts = codes.map((a) => { let k = 1; return a ? D.shapes[a[0]].replace(/#/g, () => N[a[k++]]) : ""; });
    const places = D.places.map((p, i) => {
      const ref = (v) => (v === -1 ? "" : N[v >= 0 ? codes[i][1 + v] : -2 - v]);
      return p ? { piece: ref(p[0]), to: ref(p[1]), tile: ref(p[2]) } : null;
    });
    const nodes = [];
    for (const n of D.nodes) {        // each node: the actions of a base node, less and more some
      const base = nodes[n[0]], gone = new Set(expand(n[1]));
      const acts = (base ? base.acts.filter((a) => !gone.has(a)) : []).concat(expand(n[2])).sort((a, b) => a - b);
      const at = Object.assign({}, base ? base.at : {});
      for (const [p, c] of n[5] || []) { at[N[p]] = c >= 0 ? N[c] : ""; }
      nodes.push({ acts, at, after: acts.map((a, k) => (Array.isArray(n[4]) ? n[4][k] : n[4])),
                   prompt: D.prompts[n[3]], ahead: n.length > 6 ? n[6] : -1, stop: n[7] || "" });
    }
    const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";
    const words = (D.words || []).map((w, a) => (typeof w === "number"      // the words with the action's values put in
      ? D.wshapes[w].replace(/#(.)/g, (_, c) => (c === "#" ? "#" : N[codes[a][1 + DIGITS.indexOf(c)]])) : w));
    const actions = texts.map((t) => (t ? readFlow(t) : null));
    const number = new Map();
    actions.forEach((a, k) => { if (a) { number.set(JSON.stringify(a), k); } });
    return { D, texts, words, places, nodes, actions, number, pieces: D.pieces || [] };
  }

  const G = (state) => graphs[state.g];
  function numberOf(state, action) {
    const k = G(state).number.get(JSON.stringify(action));
    if (k === undefined) { throw new Error("not an action of this page: " + JSON.stringify(action)); }
    return k;
  }
  const node = (state) => (state.n >= 0 ? G(state).nodes[state.n] : null);

  const model = {
    start(data, view, player) {
      graphs.push(decode(data));
      const g = graphs.length - 1, first = graphs[g].nodes[0];
      return { g, n: first ? 0 : CUT, at: Object.assign({}, first ? first.at : {}), ahead: -1, player };
    },
    decision(state) {
      if (state.n === DONE) { return null; }
      const here = node(state);
      return { kind: "", prompt: here ? here.stop || here.prompt : "", player: state.player };
    },
    legal(state) {
      const here = node(state);
      return here ? here.acts.map((a) => G(state).actions[a]) : null;
    },
    apply(state, action) {
      const here = node(state), a = numberOf(state, action), k = here ? here.acts.indexOf(a) : -1;
      if (k < 0) { throw new Error("not a choice here: " + JSON.stringify(action)); }
      const next = here.after[k], at = Object.assign({}, state.at);
      const p = G(state).places[a];
      if (p && p.piece && p.to) { at[p.piece] = p.to; }
      if (next >= 0) {                 // where the next node's movable pieces stand (the graph's word for it)
        const then = G(state).nodes[next];
        for (const b of then.acts) { const q = G(state).places[b]; if (q && q.piece && then.at[q.piece] !== undefined) { at[q.piece] = then.at[q.piece]; } }
      }
      return { state: { g: state.g, n: next, at, ahead: next === STOP ? here.ahead : -1, player: state.player },
               stop: next === STOP };
    },
    text(state, action) { return G(state).texts[numberOf(state, action)]; },
    words(state, action) {
      const a = numberOf(state, action);
      return G(state).words[a] || G(state).texts[a];
    },
    places(state, action) {
      const p = G(state).places[numberOf(state, action)];
      return p ? { piece: p.piece, from: p.piece ? (state.at[p.piece] || "") : "", to: p.to, tile: p.tile }
               : { piece: "", from: "", to: "", tile: "" };
    },
    pieces(state) {
      const out = [];
      const walk = (list, cell, aboard) => {
        for (const p of list) {
          const moved = aboard === "" && Object.prototype.hasOwnProperty.call(state.at, p.handle);
          const here = moved ? state.at[p.handle] : aboard === "" ? p.cell : cell;
          out.push({ handle: p.handle, shape: p.shape, owner: p.owner, cell: here, label: p.label, aboard,
                     value: p.value === undefined ? null : p.value, title: p.title || p.handle });
          walk(p.passengers || [], here, p.handle);
        }
      };
      walk(G(state).pieces, "", "");
      return out;
    },
    forms(state) {
      const D = G(state).D;
      if (state.n === STOP && state.ahead >= 0) { return [Object.assign({ when: "ahead" }, D.ahead[state.ahead])]; }
      return (D.first || []).map((f) => Object.assign({ when: "first" }, f));
    },
    // where the page's turn ends: "complete" (every path to the end of the player's part),
    // "stop" (some at a real stop), "cut" (some where the graph was capped)
    choices(state) {
      const after = G(state).nodes.flatMap((n) => n.after);
      return after.includes(CUT) || !G(state).nodes.length ? "cut"
        : after.includes(STOP) || G(state).nodes.some((n) => n.stop) ? "stop" : "complete";
    },
  };
  model.readFlow = readFlow;
  PBEM_MODELS.graph = model;
})();
