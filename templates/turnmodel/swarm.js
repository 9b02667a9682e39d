/* Space Swarm's turn model (docs/turn-model.md, "Space Swarm"): the player's page works out their
   turn from their own view and the data of pbem/rules/spaceswarm/turnmodel.py exactly as the engine
   (pbem/rules/spaceswarm/) does; tests/turnmodel/ proves it against the engine.  Each function
   below names the engine function it follows.  Where the engine would need a value the player
   cannot see (a card drawn, another player's hand or standing order) it throws SECRET: apply
   stops there (a real STOP).  Space Swarm has no dice: battles are worked out like the rest. */
(function (root) {
  "use strict";
  const SECRET = { secret: true };
  class Illegal extends Error {}
  const BID = "bid", PRODUCTION = "production", MOVEMENT = "movement", ATTACK = "attack", RESEARCH = "research",
    OVER = "over", DEVELOPMENT = "development";
  const REACT = "react", SLOT = "slot", DEVELOP = "develop", DISCARD = "discard", PRODUCE = "produce", MOVE = "move",
    FIGHT = "attack";
  const W_COMBAT = "combat", W_BID = "bid", UNTIL_PHASE = "phase", UNTIL_TURN = "turn";
  const TERRAIN = { ruins: "alien_ruins", cluster: "star_cluster", nebula: "nebula", nova: "super_nova",
    hole: "black_hole", dark: "dark_matter", quasar: "quasar", asteroid: "asteroid_field" };

  const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const isInt = (v) => Number.isInteger(v) && typeof v !== "boolean";
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  const asc = (a, b) => a - b;
  const fail = (why) => { throw new Illegal(why); };

  // --- the state: plain JSON, cells by number; s.g (the map) and s.d (the data) are shared ---------
  function start(data, view, player) {
    const w = view.map.width, h = view.map.height, labels = [];
    for (let r = 0; r < h; r++) { for (let c = 0; c < w; c++) { labels.push(String.fromCharCode(65 + c) + (r + 1)); } }
    const index = {};
    labels.forEach((l, i) => { index[l] = i; });
    const terrain = view.map.rows.flatMap((row) => String(row).split(/\s+/).filter((x) => x)).map((c) => data.terrain[c]);
    const g = { labels, index, terrain, links: data.links };
    const cells = (m) => { const o = {}; for (const [l, v] of Object.entries(m || {})) { o[index[l]] = Array.isArray(v) ? v.slice() : v; } return o; };
    const players = view.players.map((p) => p.name);
    const per = (f) => Object.fromEntries(players.map((p) => [p, f(p)]));
    return {
      g, d: data, me: player, view: { format: view.format, options: view.options, map: view.map },
      players, homes: per((p) => view.players.find((x) => x.name === p).home),
      options: Object.assign({}, data.defaults, view.options),
      phase: view.phase, step: view.step, round: view.round, order: view.order.slice(), ti: view.turn_index,
      turns: view.turns, sm: view.stack_moves,
      fleets: per((p) => cells(view.stacks[p])), moved: per((p) => cells((view.moved || {})[p])),
      faces: Object.assign({}, view.cards), deck: view.deck.slice(), hands: per((p) => view.hands[p].slice()),
      tech: per((p) => view.tech[p].slice()), discard: view.discard.slice(),
      boosts: (view.boosts || []).map((b) => Object.assign({}, b)),
      visited: (view.visited || []).map((l) => index[l]),
      standing: per((p) => { const o = view.players.find((x) => x.name === p).standing; return o == null ? null : JSON.parse(JSON.stringify(o)); }),
      window: view.window ? { kind: view.window.kind, queue: view.window.queue.slice() } : null,
      slots: view.slots ? view.slots.slice() : null, targets: cells(view.targets),
      produced: per((p) => (view.produced || {})[p] || 0), destroyed: per((p) => (view.destroyed || {})[p] || 0),
      eliminated: (view.eliminated || []).slice(), victory: view.victory || "", winners: (view.winners || []).slice(),
    };
  }
  function copy(s) {                                  // SwarmState.copy: nothing mutable shared
    const t = Object.assign({}, s), per = (m, f) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, f(v)]));
    t.order = s.order.slice(); t.deck = s.deck.slice(); t.discard = s.discard.slice(); t.visited = s.visited.slice();
    t.faces = Object.assign({}, s.faces);
    t.fleets = per(s.fleets, (m) => Object.assign({}, m));
    t.moved = per(s.moved, (m) => per(m, (v) => v.slice()));
    t.hands = per(s.hands, (v) => v.slice()); t.tech = per(s.tech, (v) => v.slice());
    t.boosts = s.boosts.map((b) => Object.assign({}, b));
    t.standing = per(s.standing, (o) => (o === null ? null : JSON.parse(JSON.stringify(o))));
    t.window = s.window ? { kind: s.window.kind, queue: s.window.queue.slice() } : null;
    t.slots = s.slots ? s.slots.slice() : null;
    t.targets = per(s.targets, (m) => Object.assign({}, m));
    t.produced = Object.assign({}, s.produced); t.destroyed = Object.assign({}, s.destroyed);
    t.eliminated = s.eliminated.slice(); t.winners = s.winners.slice();
    return t;
  }
  const lab = (s, c) => s.g.labels[c];
  function cellOf(s, label, what) {                   // HexMap.index
    const c = s.g.index[String(label).trim().toUpperCase()];
    if (c === undefined) { fail(what + ": " + label + " is not a space"); }
    return c;
  }

  // --- who and where (state.py) ------------------------------------------------------------------
  const active = (s) => (s.phase !== BID && s.phase !== OVER ? s.order[s.ti] : "");
  const at = (s, p, c) => s.fleets[p][c] || 0;
  const stacksOf = (s, p) => Object.keys(s.fleets[p]).map(Number).sort(asc);
  const racesAt = (s, c) => s.players.filter((p) => at(s, p, c) > 0);
  const enemiesAt = (s, p, c) => racesAt(s, c).filter((x) => x !== p);
  const inGame = (s, p) => Object.values(s.fleets[p]).some((n) => n > 0);
  function addFleets(s, p, c, n) {
    s.fleets[p][c] = at(s, p, c) + n;
    if (s.fleets[p][c] === 0) { delete s.fleets[p][c]; delete s.moved[p][c]; }
  }
  function contested(s) {
    const all = new Set();
    for (const p of s.players) { for (const c of Object.keys(s.fleets[p])) { all.add(Number(c)); } }
    return [...all].sort(asc).filter((c) => racesAt(s, c).length >= 2);
  }
  const seatFrom = (s, first) => { const i = s.players.indexOf(first); return s.players.slice(i).concat(s.players.slice(0, i)); };
  const orderAfter = (s, p) => { const i = s.order.indexOf(p); return s.order.slice(i + 1).concat(s.order.slice(0, i)); };
  const holder = (s, card) => s.players.find((p) => s.hands[p].includes(card));
  const terrainIs = (s, c, key) => s.g.terrain[c] === TERRAIN[key];

  // --- cards (cards.py, attributes.py) -----------------------------------------------------------
  function faceOf(s, card) {
    const name = s.faces[card];
    if (name === null || name === undefined) { throw SECRET; }
    const f = s.d.faces[name];
    return { name, tech: f[0] === "technology", type: f[0], attribute: f[1], bonus: f[2] };
  }
  function permanent(s, p, a) {
    let total = s.d.base;
    for (const c of s.tech[p]) { if (s.faces[c] != null) { const f = faceOf(s, c); if (f.attribute === a) { total += f.bonus; } } }
    return total;
  }
  const current = (s, p, a) => permanent(s, p, a) + sum(s.boosts.filter((b) => b.player === p && b.attribute === a).map((b) => b.amount));
  const handLimit = (s, p) => s.d.hand_base + current(s, p, "strategy");
  const excess = (s, p) => Math.max(0, s.hands[p].length - handLimit(s, p));
  const clustersHeld = (s, p) => stacksOf(s, p).filter((c) => terrainIs(s, c, "cluster") && racesAt(s, c).length === 1);
  const production = (s, p) => current(s, p, "production") + clustersHeld(s, p).length;
  const stackAttack = (s, p, c) => current(s, p, "attack") + (terrainIs(s, c, "asteroid") ? 1 : 0);
  const stackDefense = (s, p, c) => current(s, p, "defense") + (terrainIs(s, c, "nebula") ? 1 : 0);
  function cardArg(v, what) {
    const text = typeof v === "string" || typeof v === "boolean" || isInt(v) ? String(v).trim().toUpperCase() : "";
    if (!text.startsWith("C") || !/^[0-9]+$/.test(text.slice(1))) { fail(what + ": " + v + " is not a card"); }
    return text;
  }
  function cardList(v, what) {
    const cards = (Array.isArray(v) ? v : [v]).map((x) => cardArg(x, what));
    if (new Set(cards).size !== cards.length) { fail(what + ": a card is named twice"); }
    return cards;
  }
  function inHand(s, p, cards) { for (const c of cards) { if (!s.hands[p].includes(c)) { fail(c + " is not in your hand"); } } }
  function draw(s, p, count, run) {
    const cards = s.deck.slice(0, count);
    if (!cards.length) { return; }
    cards.forEach((c) => faceOf(s, c));
    s.deck.splice(0, cards.length);
    s.hands[p].push(...cards);
    run.chance = true;
  }
  const isNone = (v) => v === null || (typeof v === "string" && v.trim().toLowerCase() === "none");

  // --- settings (options.py) ---------------------------------------------------------------------
  const option = (s, name) => String(s.options[name]);
  const techInResearch = (s) => option(s, "tech_phase") === "research";
  const techPhase = (s) => (techInResearch(s) ? RESEARCH : DEVELOPMENT);             // events.technology_phase
  const eventPhaseAllows = (s) => option(s, "event_phase") === "any" || s.phase !== techPhase(s);

  // --- events, standing orders, windows (events.py) ----------------------------------------------
  function playAsEvent(s, p, card, auto, run) {
    const f = faceOf(s, card);
    s.hands[p].splice(s.hands[p].indexOf(card), 1);
    s.discard.push(card);
    s.boosts.push({ player: p, attribute: f.attribute, amount: f.bonus, card, until: f.tech ? UNTIL_TURN : UNTIL_PHASE });
    if (auto) { run.chance = true; }
  }
  const clearBoosts = (s, until) => { s.boosts = s.boosts.filter((b) => !until.includes(b.until)); };
  function standingOrder(s, p, key) {
    const orders = s.standing[p];
    if (orders === null) { throw SECRET; }
    if (key in orders) { return orders[key]; }
    return option(s, { combat: "react_combat", bid: "react_bid", slot: "slot" }[key]);
  }
  function autoCards(s, p, kind) {
    return s.hands[p].filter((c) => { const f = faceOf(s, c); return !f.tech && s.d.helps[kind].includes(f.attribute); });
  }
  function runWindow(s, run) {
    const w = s.window;
    while (w.queue.length) {
      const p = w.queue[0];
      if (!s.hands[p].length) { w.queue.shift(); continue; }
      const order = standingOrder(s, p, w.kind);
      if (order === "ask") { return false; }
      if (order !== "never") {
        const chosen = order === "auto" ? autoCards(s, p, w.kind) : order.filter((c) => s.hands[p].includes(c));
        for (const c of chosen) { playAsEvent(s, p, c, true, run); }
      }
      w.queue.shift();
    }
    s.window = null;
    return true;
  }
  function knownForWindow(s, players) {
    for (const p of players) {
      if (s.hands[p].length && (s.standing[p] === null || s.hands[p].some((c) => s.faces[c] == null))) { throw SECRET; }
    }
  }
  function checkStanding(s, orders) {
    if (!isMap(orders) || !Object.keys(orders).length) { fail("standing orders look like {standing: {combat: auto}}"); }
    const out = {}, n = s.players.length;
    for (const [k, v] of Object.entries(orders)) {
      if (!["combat", "bid", "slot"].includes(k)) { fail("unknown standing order " + k); }
      if (k === "slot") {
        if (Array.isArray(v)) {
          if (!v.length || !v.every((x) => isInt(x) && x >= 1 && x <= n)) { fail("slot: places 1-" + n); }
          out[k] = v.slice();
        } else if (!["ask", "first", "last"].includes(v)) { fail("slot: ask, first or last"); } else { out[k] = v; }
      } else if (Array.isArray(v)) { out[k] = cardList(v, "standing order " + k); } else if (!["auto", "never", "ask"].includes(v)) {
        fail(k + ": auto, never or ask");
      } else { out[k] = v; }
    }
    return out;
  }

  // --- the Round Bid (bid.py) ----------------------------------------------------------------------
  const bidders = (s) => seatFrom(s, s.order[0]).filter((p) => inGame(s, p));
  function nextPicker(s) {
    const all = bidders(s), rank = (p) => [-current(s, p, "initiative"), -current(s, p, "strategy"), -current(s, p, "movement"), all.indexOf(p)];
    let best = null, key = null;
    for (const p of all.filter((x) => !s.slots.includes(x))) {
      const k = rank(p);
      if (best === null || less(k, key)) { best = p; key = k; }
    }
    return best;
  }
  const freePlaces = (s) => s.slots.map((who, i) => (who === null ? i + 1 : 0)).filter((x) => x);
  function byStandingOrder(s, order) {
    const free = freePlaces(s);
    if (free.length === 1 || order === "first") { return free[0]; }
    if (order === "last") { return free[free.length - 1]; }
    if (Array.isArray(order)) { return order.find((x) => free.includes(x)) || free[0]; }
    return null;
  }

  // --- battles (attack.py) ------------------------------------------------------------------------
  function battleSpaces(s) {
    const cells = contested(s);
    return option(s, "combat_hexes") === "active" ? cells.filter((c) => at(s, active(s), c) > 0) : cells;
  }
  function involved(s) {
    const races = new Set(battleSpaces(s).flatMap((c) => racesAt(s, c)));
    return orderAfter(s, active(s)).filter((p) => races.has(p));
  }
  function checkTargets(s, p, value) {
    if (value === undefined || value === null) { return {}; }
    if (!isMap(value)) { fail("targets: write a battle space and the race to strike"); }
    const battles = battleSpaces(s), out = {};
    for (const [l, race] of Object.entries(value)) {
      const c = cellOf(s, l, "targets");
      if (!battles.includes(c) || !at(s, p, c)) { fail("targets: you have no stack in a battle at " + lab(s, c)); }
      if (!enemiesAt(s, p, c).includes(race)) { fail("targets: " + race + " has no stack at " + lab(s, c)); }
      out[c] = String(race);
    }
    return out;
  }
  function recordTargets(s, p, targets) {
    for (const [c, race] of Object.entries(targets)) { (s.targets[c] = s.targets[c] || {})[p] = race; }
  }
  function kills(s, attacker, target, c) {
    return Math.min(at(s, target, c), Math.floor(stackAttack(s, attacker, c) * at(s, attacker, c) / stackDefense(s, target, c)));
  }
  function defaultTarget(s, chooser, c) {
    const enemies = enemiesAt(s, chooser, c);
    if (!enemies.length) { return null; }
    const after = s.order.includes(chooser) ? orderAfter(s, chooser) : s.players, act = active(s);
    const rank = (e) => [-kills(s, chooser, e, c), e !== act ? 1 : 0, after.includes(e) ? after.indexOf(e) : 99];
    let best = null, key = null;
    for (const e of enemies) { const k = rank(e); if (best === null || less(k, key)) { best = e; key = k; } }
    return best;
  }
  function less(a, b) { for (let i = 0; i < a.length; i++) { if (a[i] !== b[i]) { return a[i] < b[i]; } } return false; }
  function targetOf(s, chooser, c) {
    const chosen = (s.targets[c] || {})[chooser];
    return chosen !== undefined && at(s, chosen, c) > 0 ? chosen : defaultTarget(s, chooser, c);
  }
  function fight(s, c) {
    const races = racesAt(s, c), ini = Object.fromEntries(races.map((r) => [r, current(s, r, "initiative")]));
    for (const level of [...new Set(Object.values(ini))].sort((a, b) => b - a)) {
      const damage = {};
      for (const r of races.filter((x) => ini[x] === level && at(s, x, c) > 0)) {
        const target = targetOf(s, r, c);
        if (target !== null) { damage[target] = (damage[target] || 0) + stackAttack(s, r, c) * at(s, r, c); }
      }
      for (const t of s.players.filter((p) => p in damage)) {
        const lost = Math.min(at(s, t, c), Math.floor(damage[t] / stackDefense(s, t, c)));
        if (lost) { addFleets(s, t, c, -lost); s.destroyed[t] = (s.destroyed[t] || 0) + lost; }
      }
    }
  }

  // --- movement (movement.py) ---------------------------------------------------------------------
  function spent(s, p, c) {
    const moved = (s.moved[p][c] || []).slice().sort(asc);
    return new Array(Math.max(0, at(s, p, c) - moved.length)).fill(0).concat(moved);
  }
  function takeFleets(s, p, c, count) {
    const taken = spent(s, p, c).slice(0, count), left = s.moved[p][c] || [];
    for (const u of taken) { if (u) { left.splice(left.indexOf(u), 1); } }
    if (!left.length) { delete s.moved[p][c]; }
    addFleets(s, p, c, -count);
    return taken;
  }
  function putFleets(s, p, c, used) {
    addFleets(s, p, c, used.length);
    const moved = (s.moved[p][c] || []).concat(used.filter((u) => u)).sort(asc);
    if (moved.length) { s.moved[p][c] = moved; }
  }
  const movementOf = (s, p) => current(s, p, "movement");
  const stacksLeft = (s, p) => current(s, p, "strategy") - s.sm;
  function enemyCells(s, p) {
    const out = new Set();
    for (const q of s.players) { if (q !== p) { for (const [c, n] of Object.entries(s.fleets[q])) { if (n > 0) { out.add(Number(c)); } } } }
    return out;
  }
  function destinations(s, enemies, from, budget) {   // _destinations: breadth first, one shortest path each
    const paths = new Map([[from, []]]), todo = [from];
    for (let k = 0; k < todo.length; k++) {
      const c = todo[k], here = paths.get(c);
      if (here.length >= budget) { continue; }
      if (c !== from && (terrainIs(s, c, "hole") || (enemies.has(c) && !terrainIs(s, c, "dark")))) { continue; }
      for (const n of s.g.links[c]) {
        if (!paths.has(n) && !terrainIs(s, n, "nova")) { paths.set(n, here.concat([n])); todo.push(n); }
      }
    }
    paths.delete(from);
    return [...paths.entries()].sort((a, b) => a[0] - b[0]);
  }
  function simpleMoves(s, p) {
    if (stacksLeft(s, p) <= 0) { return []; }
    const limit = movementOf(s, p), enemies = enemyCells(s, p), out = [];
    for (const from of stacksOf(s, p)) {
      const used = spent(s, p, from);
      for (const count of used.length > 1 ? [used.length, 1] : [used.length]) {
        for (const [, path] of destinations(s, enemies, from, limit - Math.max(...used.slice(0, count)))) {
          const a = { move: lab(s, from), path: path.map((c) => lab(s, c)) };
          if (count !== used.length) { a.fleets = count; }
          out.push(a);
        }
      }
    }
    return out;
  }
  function counts(s, value, what) {
    if (value === undefined || value === null) { return {}; }
    if (!isMap(value)) { fail(what + ": write spaces and numbers of fleets"); }
    const out = {};
    for (const [l, n] of Object.entries(value)) {
      const c = cellOf(s, l, what);
      if (!isInt(n) || n < 1) { fail(what + ": " + l + ": not a number of fleets"); }
      out[c] = n;
    }
    return out;
  }
  function checkMove(s, p, a) {
    if (Object.keys(a).some((k) => !["move", "path", "fleets", "pick", "drop"].includes(k))) { fail("move: unknown key"); }
    const from = cellOf(s, a.move, "move"), here = at(s, p, from);
    if (!here) { fail("move: you have no fleets at " + lab(s, from)); }
    if (stacksLeft(s, p) <= 0) { fail("you have moved as many stacks as your Strategic level"); }
    if (!Array.isArray(a.path) || !a.path.length) { fail("move: path must list the spaces"); }
    const path = a.path.map((l) => cellOf(s, l, "path"));
    let count = "fleets" in a ? a.fleets : here;
    if (count === "all") { count = here; }
    if (!isInt(count) || count < 1 || count > here) { fail("move: fleets must be 1-" + here); }
    const picks = counts(s, a.pick, "pick"), drops = counts(s, a.drop, "drop");
    const seen = new Set([from]);
    let prev = from;
    path.forEach((c, i) => {
      if (seen.has(c)) { fail("path: " + lab(s, c) + " comes twice"); }
      seen.add(c);
      if (!s.g.links[prev].includes(c)) { fail("path: " + lab(s, c) + " is not next to " + lab(s, prev)); }
      if (terrainIs(s, c, "nova")) { fail("path: " + lab(s, c) + " is a Super Nova"); }
      if (i < path.length - 1) {
        if (terrainIs(s, c, "hole")) { fail("path: " + lab(s, c) + " is a Black Hole"); }
        if (enemiesAt(s, p, c).length && !terrainIs(s, c, "dark")) { fail("path: enemy stacks at " + lab(s, c)); }
      }
      prev = c;
    });
    for (const c of Object.keys(picks).concat(Object.keys(drops)).map(Number)) {
      if (!path.slice(0, -1).includes(c)) { fail("pick/drop: " + lab(s, c) + " is not a space the stack moves through"); }
    }
    const limit = movementOf(s, p);
    let group = spent(s, p, from).slice(0, count);
    path.forEach((c, i) => {
      group = group.map((u) => u + 1);
      if (Math.max(...group) > limit) { fail("move: a fleet would move more than your Movement"); }
      if (c in drops) {
        if (drops[c] >= group.length) { fail("drop: the stack must keep a fleet"); }
        group = group.sort(asc).slice(0, group.length - drops[c]);
      }
      if (c in picks) {
        const have = spent(s, p, c);
        if (picks[c] > have.length) { fail("pick: you have " + have.length + " fleet(s) at " + lab(s, c)); }
        group = group.concat(have.slice(0, picks[c])).sort(asc);
        if (Math.max(...group) + path.length - (i + 1) > limit) { fail("pick: picked fleets cannot move on"); }
      }
    });
    return { from, path, count, picks, drops };
  }
  function moveStack(s, p, plan) {
    let group = takeFleets(s, p, plan.from, plan.count);
    const ruins = [];
    for (const c of plan.path) {
      group = group.map((u) => u + 1).sort(asc);
      if (c in plan.drops) { const k = plan.drops[c]; putFleets(s, p, c, group.slice(group.length - k)); group = group.slice(0, group.length - k); }
      if (c in plan.picks) { group = group.concat(takeFleets(s, p, c, plan.picks[c])).sort(asc); }
      if (terrainIs(s, c, "ruins") && !s.visited.includes(c)) { s.visited.push(c); ruins.push(c); }
    }
    putFleets(s, p, plan.path[plan.path.length - 1], group);
    s.sm += 1;
    return ruins;
  }

  // --- the turn sequence (flow.py) ----------------------------------------------------------------
  function setPhase(s, phase) { if (s.phase !== phase) { clearBoosts(s, [UNTIL_PHASE]); s.phase = phase; } }
  function startTurn(s, run) {
    s.turns += 1; s.sm = 0; s.phase = DEVELOPMENT;
    if (techInResearch(s)) { checkHandLimit(s, run); } else { s.step = DEVELOP; }
  }
  function afterDevelop(s, run) { if (s.phase === RESEARCH) { researchDraw(s, run); } else { checkHandLimit(s, run); } }
  function checkHandLimit(s, run) { if (excess(s, active(s))) { s.step = DISCARD; } else { startProduction(s, run); } }
  function startProduction(s) { setPhase(s, PRODUCTION); s.step = PRODUCE; }
  function startMovement(s) { setPhase(s, MOVEMENT); s.sm = 0; s.step = MOVE; }
  function endMovement(s) { s.moved[active(s)] = {}; setPhase(s, ATTACK); s.step = FIGHT; }
  function fightBattles(s, run) {
    if (!battleSpaces(s).length) { finishBattles(s, run); return; }
    s.window = { kind: W_COMBAT, queue: involved(s) };
    if (runWindow(s, run)) { finishBattles(s, run); } else { s.step = REACT; }
  }
  function finishBattles(s, run) {
    for (const c of battleSpaces(s)) { fight(s, c); }
    s.targets = {};
    noteEliminations(s);
    if (inGame(s, active(s))) { startResearch(s, run); } else { endTurn(s, run, false); }
  }
  function startResearch(s, run) {
    setPhase(s, RESEARCH);
    if (techInResearch(s)) { s.step = DEVELOP; } else { researchDraw(s, run); }
  }
  function researchDraw(s, run) { draw(s, active(s), s.d.research_draw, run); endTurn(s, run, true); }
  function endTurn(s, run, researched) {
    const p = active(s);
    for (const c of stacksOf(s, p)) {
      if (terrainIs(s, c, "quasar")) { addFleets(s, p, c, -1); s.destroyed[p] = (s.destroyed[p] || 0) + 1; }
    }
    noteEliminations(s);
    clearBoosts(s, [UNTIL_PHASE, UNTIL_TURN]);
    s.step = "";
    if (checkVictory(s, researched)) { return; }
    nextTurn(s, run);
  }
  function noteEliminations(s) { for (const p of s.players) { if (!inGame(s, p) && !s.eliminated.includes(p)) { s.eliminated.push(p); } } }
  function checkVictory(s, researched) {
    const clusters = s.g.terrain.map((t, c) => c).filter((c) => terrainIs(s, c, "cluster"));
    const controller = s.players.find((p) => clusters.length && clusters.every((c) => { const r = racesAt(s, c); return r.length === 1 && r[0] === p; }));
    if (controller !== undefined) { endGame(s, "control", [controller]); return true; }
    const alive = s.players.filter((p) => inGame(s, p));
    if (alive.length <= 1) { endGame(s, "last-race", alive.length ? alive : s.players.slice()); return true; }
    if (researched && !s.deck.length) {
      const score = (p) => Object.values(s.fleets[p]).filter((n) => n > 0).length, best = Math.max(...s.players.map(score));
      endGame(s, "deck", s.players.filter((p) => score(p) === best));
      return true;
    }
    return false;
  }
  function endGame(s, how, winners) { s.phase = OVER; s.step = ""; s.victory = how; s.winners = winners; s.window = null; s.slots = null; }
  function nextTurn(s, run) {
    for (let i = s.ti + 1; i < s.order.length; i++) { if (inGame(s, s.order[i])) { s.ti = i; startTurn(s, run); return; } }
    startBid(s, run);
  }
  function startBid(s, run) {
    setPhase(s, BID);
    s.step = "";
    const players = bidders(s);
    s.slots = players.map(() => null);
    s.window = { kind: W_BID, queue: players };
    if (runWindow(s, run)) { runPicks(s, run); } else { s.step = REACT; }
  }
  function afterWindow(s, run) { if (s.phase === BID) { runPicks(s, run); } else { finishBattles(s, run); } }
  function runPicks(s, run) {
    let p;
    while ((p = nextPicker(s)) !== null) {
      if (freePlaces(s).length === 1) { s.slots[freePlaces(s)[0] - 1] = p; continue; }
      const place = byStandingOrder(s, standingOrder(s, p, "slot"));
      if (place === null) { s.step = SLOT; return; }
      s.slots[place - 1] = p;
    }
    clearBoosts(s, [UNTIL_PHASE, UNTIL_TURN]);
    s.order = s.slots.filter((x) => x !== null);
    s.slots = null;
    s.round += 1;
    s.ti = 0;
    startTurn(s, run);
  }

  // --- what the game waits for (actions.py) and what a player may do (legal.py) ------------------
  function waiting(s) {
    if (s.phase === OVER || !s.step) { return null; }
    if (s.step === REACT) { return [s.window.queue[0], REACT]; }
    if (s.step === SLOT) { return [nextPicker(s), SLOT]; }
    return [active(s), s.step];
  }
  function expect(s, p, kind) {
    const now = waiting(s);
    if (now === null) { fail("the game is over"); }
    if (now[0] !== p) { fail("it is not your decision now"); }
    if (now[1] !== kind) { fail("you are asked for " + now[1] + " now"); }
  }
  function prompt(s, p, kind) {
    let text = s.d.prompts[kind];
    if ((kind === DEVELOP || kind === DISCARD) && !eventPhaseAllows(s)) { text += s.d.no_events; }
    if (kind === DEVELOP && s.phase === RESEARCH) { return text.replace(s.d.research_develop[0], s.d.research_develop[1]); }
    if (kind === PRODUCE) { return text.replace("{n}", String(production(s, p))); }
    if (kind === REACT) { return text.replace("{what}", s.d.react_what[s.phase === BID ? "bid" : "battles"]); }
    if (kind === SLOT) { return text.replace("{free}", freePlaces(s).join(", ")); }
    return text;
  }
  function combinations(items, k) {
    const out = [], pick = (from, chosen) => {
      if (chosen.length === k) { out.push(chosen.slice()); return; }
      for (let i = from; i < items.length; i++) { chosen.push(items[i]); pick(i + 1, chosen); chosen.pop(); }
    };
    pick(0, []);
    return out;
  }
  const eventPlays = (s, p) => s.hands[p].map((c) => ({ event: c }));
  const LISTERS = {
    [DEVELOP]: (s, p) => [{ develop: "none" }].concat(s.hands[p].filter((c) => s.faces[c] != null && faceOf(s, c).tech).map((c) => ({ develop: c }))),
    [DISCARD]: (s, p) => combinations(s.hands[p], excess(s, p)).map((cards) => ({ discard: cards })),
    [PRODUCE]: (s, p) => stacksOf(s, p).map((c) => ({ produce: lab(s, c) })).concat(eventPlays(s, p)),
    [MOVE]: (s, p) => simpleMoves(s, p).concat([{ done: "move" }], eventPlays(s, p)),
    [FIGHT]: (s, p) => {
      const out = [{ attack: "all" }];
      for (const c of battleSpaces(s)) {
        const enemies = enemiesAt(s, p, c);
        if (at(s, p, c) && enemies.length > 1) { for (const e of enemies) { out.push({ attack: "all", targets: { [lab(s, c)]: e } }); } }
      }
      return out.concat(eventPlays(s, p));
    },
    [REACT]: (s, p) => [{ react: "none" }].concat(s.hands[p].map((c) => ({ react: [c] }))),
    [SLOT]: (s) => freePlaces(s).map((n) => ({ slot: n })),
  };

  // --- the actions (actions.py: one handler per kind) -----------------------------------------------
  const HANDLERS = {
    develop(s, p, a, run) {
      expect(s, p, DEVELOP);
      if (Object.keys(a).length !== 1) { fail("develop: one card or none"); }
      if (!isNone(a.develop)) {
        const card = cardArg(a.develop, "develop");
        inHand(s, p, [card]);
        if (!faceOf(s, card).tech) { fail(card + " is an Event card"); }
        s.hands[p].splice(s.hands[p].indexOf(card), 1);
        s.tech[p].push(card);
      }
      afterDevelop(s, run);
    },
    discard(s, p, a, run) {
      expect(s, p, DISCARD);
      if (Object.keys(a).length !== 1) { fail("discard: a list of cards"); }
      const cards = cardList(a.discard, "discard");
      inHand(s, p, cards);
      if (cards.length !== excess(s, p)) { fail("discard exactly " + excess(s, p) + " card(s)"); }
      cards.forEach((c) => faceOf(s, c));
      for (const c of cards) { s.hands[p].splice(s.hands[p].indexOf(c), 1); s.discard.push(c); }
      startProduction(s, run);
    },
    produce(s, p, a, run) {
      expect(s, p, PRODUCE);
      if (Object.keys(a).length !== 1) { fail("produce: one stack or a mapping"); }
      const total = production(s, p), wanted = isMap(a.produce) ? Object.entries(a.produce) : [[a.produce, total]];
      if (Array.isArray(a.produce) || a.produce === null) { fail("produce: a stack or a mapping"); }
      const placement = new Map();
      for (const [l, n] of wanted) {
        const c = cellOf(s, l, "produce");
        if (!at(s, p, c)) { fail("produce: you have no stack at " + lab(s, c)); }
        if (!isInt(n) || n < 1) { fail("produce: " + l + ": not a number of fleets"); }
        if (placement.has(c)) { fail("produce: " + lab(s, c) + " is named twice"); }
        placement.set(c, n);
      }
      if (sum([...placement.values()]) !== total) { fail("place exactly " + total + " new fleet(s)"); }
      for (const [c, n] of [...placement.entries()].sort((x, y) => x[0] - y[0])) { addFleets(s, p, c, n); }
      s.produced[p] = (s.produced[p] || 0) + total;
      startMovement(s, run);
    },
    move(s, p, a, run) {
      expect(s, p, MOVE);
      for (const c of moveStack(s, p, checkMove(s, p, a))) { draw(s, p, s.d.ruins_draw, run); void c; }
    },
    done(s, p, a, run) {
      if (Object.keys(a).length !== 1 || a.done !== "move") { fail("end the Move Phase like this: {done: move}"); }
      expect(s, p, MOVE);
      endMovement(s, run);
    },
    attack(s, p, a, run) {
      expect(s, p, FIGHT);
      if (Object.keys(a).some((k) => k !== "attack" && k !== "targets") || a.attack !== "all") { fail("attack: {attack: all}"); }
      const targets = checkTargets(s, p, a.targets);
      knownForWindow(s, involved(s));
      recordTargets(s, p, targets);
      fightBattles(s, run);
    },
    react(s, p, a, run) {
      if (Object.keys(a).some((k) => k !== "react" && k !== "targets")) { fail("react: {react: none} or {react: [C17]}"); }
      expect(s, p, REACT);
      const w = s.window;
      let cards = [];
      if (!(a.react === null || (!Array.isArray(a.react) && !isMap(a.react) && String(a.react).trim().toLowerCase() === "none"))) {
        cards = cardList(a.react, "react");
        inHand(s, p, cards);
      }
      if ("targets" in a && w.kind !== W_COMBAT) { fail("targets are for battles"); }
      const targets = checkTargets(s, p, a.targets);
      knownForWindow(s, w.queue.slice(1));
      recordTargets(s, p, targets);
      for (const c of cards) { playAsEvent(s, p, c, false, run); }
      w.queue.shift();
      if (runWindow(s, run)) { afterWindow(s, run); }
    },
    slot(s, p, a, run) {
      expect(s, p, SLOT);
      const place = a.slot, free = freePlaces(s);
      if (Object.keys(a).length !== 1 || !isInt(place) || !free.includes(place)) { fail("slot: one of " + free.join(", ")); }
      s.slots[place - 1] = p;
      runPicks(s, run);
    },
    event(s, p, a, run) {
      if (s.phase === OVER) { fail("the game is over"); }
      if (!inGame(s, p)) { fail("your race is out of the game"); }
      if (Object.keys(a).length !== 1) { fail("event: {event: C17}"); }
      const cards = cardList(a.event, "event");
      inHand(s, p, cards);
      for (const c of cards) {                        // events.check_event
        if (!faceOf(s, c).tech && !eventPhaseAllows(s)) { fail(c + " is an Event card: Event cards are not played in the " + s.phase + " phase"); }
      }
      for (const c of cards) { playAsEvent(s, p, c, false, run); }
      if (s.step === DISCARD && active(s) === p && !excess(s, p)) { startProduction(s, run); }
    },
    standing(s, p, a) {
      if (Object.keys(a).length !== 1) { fail("standing: {standing: {combat: auto}}"); }
      const orders = checkStanding(s, a.standing);
      if (s.standing[p] === null) { throw SECRET; }
      Object.assign(s.standing[p], orders);
    },
  };
  const ANYTIME = ["event", "standing"];

  // --- the API (docs/turn-model.md) --------------------------------------------------------------
  function decision(s) {
    const now = waiting(s);
    return now === null || now[0] !== s.me ? null : { kind: now[1], prompt: prompt(s, now[0], now[1]), player: now[0] };
  }
  function legal(s) {
    const now = waiting(s);
    return now === null || now[0] !== s.me ? [] : LISTERS[now[1]](s, s.me);
  }
  /* The action taken on a copy: {state, stop}; stop: what follows needs a value the player cannot
     see (a card drawn, another player's cards or standing orders) or a standing order fired by
     itself: the action is taken, the rest is the moderator's.  An action the engine refuses
     throws an Error saying why. */
  function apply(s, action) {
    if (!isMap(action) || !Object.keys(action).length) { fail("an action is a mapping such as {develop: C17}"); }
    const kind = Object.keys(action)[0], handler = HANDLERS[kind];
    if (!handler) { fail("unknown action " + kind); }
    const t = copy(s), run = { chance: false };
    const now = waiting(t);
    if ((now === null || now[0] !== t.me) && !ANYTIME.includes(kind)) { fail("it is not your decision now"); }
    try {
      handler(t, t.me, action, run);
    } catch (e) {
      if (e === SECRET) { return { state: t, stop: true }; }
      throw e;
    }
    return { state: t, stop: run.chance };
  }
  const plural = (n, one) => n + " " + one + (n === 1 ? "" : "s");
  function cardWords(s, c) { const n = s.faces[c]; return n == null ? c : c + " " + n; }
  function words(s, a) {
    const p = s.me, kind = Object.keys(a)[0];
    if (kind === "develop") { return isNone(a.develop) ? "Place no Technology card" : "Place " + cardWords(s, a.develop) + " in play"; }
    if (kind === "discard") { return "Discard " + [].concat(a.discard).map((c) => cardWords(s, c)).join(", "); }
    if (kind === "produce") {
      if (isMap(a.produce)) { return "New fleets: " + Object.entries(a.produce).map(([l, n]) => n + " at " + l).join(", "); }
      return plural(production(s, p), "new fleet") + " on your stack at " + a.produce;
    }
    if (kind === "move") {
      const n = "fleets" in a && a.fleets !== "all" ? a.fleets : at(s, p, s.g.index[a.move]);
      const via = a.path.length > 1 ? " via " + a.path.slice(0, -1).join(" ") : "";
      return "Move " + plural(n, "fleet") + " from " + a.move + " to " + a.path[a.path.length - 1] + via;
    }
    if (kind === "done") { return "End the Move Phase"; }
    if (kind === "attack") {
      const t = Object.entries(a.targets || {}).map(([l, r]) => r + " at " + l);
      return "Fight the battles" + (t.length ? ", striking " + t.join(", ") : "");
    }
    if (kind === "event") { return "Play " + [].concat(a.event).map((c) => cardWords(s, c)).join(", ") + " as an event"; }
    if (kind === "react") {
      const what = s.d.react_what[s.phase === BID ? "bid" : "battles"];
      return isNone(a.react) ? "Play no card before " + what : "Play " + [].concat(a.react).map((c) => cardWords(s, c)).join(", ") + " before " + what;
    }
    if (kind === "slot") { return "Take place " + a.slot + " in the next round's turn order"; }
    return JSON.stringify(a);
  }
  function places(s, a) {                            // places.py: a stack is code@space
    const kind = Object.keys(a)[0], none = { piece: "", from: "", to: "", tile: "" };
    if (kind === "move" && typeof a.move === "string" && Array.isArray(a.path) && a.path.length && typeof a.path[a.path.length - 1] === "string") {
      return { piece: s.d.codes[s.me] + "@" + a.move, from: a.move, to: a.path[a.path.length - 1], tile: "" };
    }
    if (kind === "produce" && typeof a.produce === "string") { return Object.assign(none, { tile: a.produce }); }
    return none;
  }
  function pieces(s) {                               // picture.py: one fleet piece per race and space
    const out = [];
    s.g.labels.forEach((l, c) => {
      for (const p of racesAt(s, c)) {
        out.push({ handle: s.d.codes[p] + "@" + l, shape: "fleet", owner: p, cell: l, label: String(at(s, p, c)), aboard: "", value: null,
          title: p + ": " + at(s, p, c) + " fleet(s) at " + l });
      }
    });
    return out;
  }
  function forms(s) {                                // places.order_forms: the standing orders
    const mine = s.standing[s.me], f = s.d.standing;
    if (mine === null || mine === undefined) { return []; }
    const fields = f.keys.map((k) => {
      const [label, values, texts] = f.fields[k];
      const now = k in mine ? mine[k] : option(s, { combat: "react_combat", bid: "react_bid", slot: "slot" }[k]);
      return { name: k, label, values, texts, current: typeof now === "string" ? now : "[" + now.join(", ") + "]" };
    });
    return [{ key: "standing", title: f.title, fields, when: "first", note: "" }];
  }
  /* Number pickers (an extension of the API, docs/turn-model.md): the numbers a listed action
     carries that the player may change, each {key, min, max, value, label}; counted() gives the action
     with other numbers (null when they do not go together), in the listed form where it is one. */
  function countsOf(s, a) {
    const p = s.me, kind = Object.keys(a)[0], now = waiting(s);
    if (now === null || now[0] !== p) { return null; }
    if (kind === "produce" && now[1] === PRODUCE && typeof a.produce === "string") {
      const total = production(s, p);
      return stacksOf(s, p).map((c) => ({ key: lab(s, c), min: 0, max: total, value: lab(s, c) === a.produce ? total : 0,
        label: "New fleets at " + lab(s, c) }));
    }
    if (kind === "move" && now[1] === MOVE) {
      const from = s.g.index[a.move], used = spent(s, p, from), room = movementOf(s, p) - a.path.length;
      const most = used.filter((u) => u <= room).length;
      return most ? [{ key: "fleets", min: 1, max: most, value: "fleets" in a ? a.fleets : used.length,
        label: "Fleets to move from " + a.move }] : null;
    }
    return null;
  }
  function counted(s, a, values) {
    const kind = Object.keys(a)[0], pickers = countsOf(s, a);
    if (!pickers) { return null; }
    for (const k of pickers) { const v = values[k.key]; if (!isInt(v) || v < k.min || v > k.max) { return null; } }
    if (kind === "produce") {
      const chosen = pickers.filter((k) => values[k.key] > 0);
      if (sum(chosen.map((k) => values[k.key])) !== production(s, s.me)) { return null; }
      return chosen.length === 1 ? { produce: chosen[0].key } : { produce: Object.fromEntries(chosen.map((k) => [k.key, values[k.key]])) };
    }
    const out = { move: a.move, path: a.path.slice() }, here = at(s, s.me, s.g.index[a.move]);
    if (values.fleets !== here) { out.fleets = values.fleets; }
    return out;
  }
  function view(s) {                                 // make_position for the player (tests compare it with the engine's)
    const cells = (m) => Object.fromEntries(Object.keys(m).map(Number).sort(asc).map((c) => [lab(s, c), Array.isArray(m[c]) ? m[c].slice() : m[c]]));
    const per = (f) => Object.fromEntries(s.players.map((p) => [p, f(p)]));
    return {
      format: s.view.format, options: s.view.options, map: s.view.map,
      players: s.players.map((p) => ({ name: p, home: s.homes[p], standing: p === s.me && s.standing[p] !== null ? Object.assign({}, s.standing[p]) : null })),
      phase: s.phase, step: s.step, round: s.round, order: s.order.slice(), turn_index: s.ti, turns: s.turns, stack_moves: s.sm,
      stacks: per((p) => cells(s.fleets[p])),
      moved: Object.fromEntries(s.players.filter((p) => Object.keys(s.moved[p]).length).map((p) => [p, cells(s.moved[p])])),
      cards: Object.assign({}, s.faces), deck: s.deck.slice(), hands: per((p) => s.hands[p].slice()),
      tech: per((p) => s.tech[p].slice()), discard: s.discard.slice(), boosts: s.boosts.map((b) => Object.assign({}, b)),
      visited: s.visited.map((c) => lab(s, c)), window: s.window ? { kind: s.window.kind, queue: s.window.queue.slice() } : null,
      slots: s.slots ? s.slots.slice() : null, targets: cells(s.targets),
      produced: per((p) => s.produced[p] || 0), destroyed: per((p) => s.destroyed[p] || 0),
      eliminated: s.eliminated.slice(), victory: s.victory, winners: s.winners.slice(),
    };
  }
  const model = { start, decision, legal, apply, words, places, pieces, forms, counts: countsOf, counted, view };
  (root.PBEM_MODELS = root.PBEM_MODELS || {}).swarm = model;
})(typeof globalThis !== "undefined" ? globalThis : this);
