// The Survive family's turn model (docs/turn-model.md): Atlantis, its 1986 edition, Space Attack.
// Data: pbem/rules/survive/turnmodel.py (geometry, `params`: the rules as data, `parts`: which
// parts of the turn this ruleset plays as modelled here, `decision`: what the view waits for,
// `prompts`: what the page says for each decision, in the game's own words).
// A part the data does not switch on gets `legal` null: the page stops there ("cut").
// The model never names a game: what differs between games and options is in `params`, and
// every word it says of a decision is the game's (`prompts`).
(function () {
  'use strict';
  const ON_BOARD = {land: true, boat: true, sea: true};

  // --- the board's geometry, worked out from its labels (pbem/rules/survive/board.py) ------------
  // A label is a row letter and a 1-based column of even-r offset rows (even rows shifted right);
  // cells 0..playable-1 are the playable spaces.  `neighbours`: for every cell the playable cells
  // next to it, sorted; `rays` (where the rules use straight lines: params.rays): for every playable
  // cell the six straight lines leaving it, nearest space first, up to the grid's edge, in the
  // order of board.py's DIRECTIONS (axial steps).  The page's data carries neither: it is smaller.
  const ROWS = 'ABCDEFGHIJKLM';
  const DIRECTIONS = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, -1], [-1, 1]];
  // (a pair of small integers, one a grid's row or column, is found by the number a * 4096 + b)
  const pair = (a, b) => a * 4096 + b;
  function geometry(labels, playable, withRays) {
    const offsets = labels.map((l) => [ROWS.indexOf(l[0]), Number(l.slice(1)) - 1]);
    const byOffset = new Map();
    for (let i = 0; i < playable; i++) byOffset.set(pair(offsets[i][0], offsets[i][1]), i);
    const neighbours = offsets.map(([r, c]) => {
      const rows = r % 2 === 0 ? [[r - 1, c], [r - 1, c + 1], [r + 1, c], [r + 1, c + 1]]
        : [[r - 1, c - 1], [r - 1, c], [r + 1, c - 1], [r + 1, c]];
      return [[r, c - 1], [r, c + 1], ...rows].map(([a, b]) => byOffset.get(pair(a, b)))
        .filter((n) => n !== undefined).sort((a, b) => a - b);
    });
    if (!withRays) return {neighbours, rays: null};
    const axial = offsets.map(([r, c]) => [c - ((r + (r & 1)) >> 1) - 2, r - 6]);
    const byAxial = new Map();
    for (let i = 0; i < playable; i++) byAxial.set(pair(axial[i][0], axial[i][1]), i);
    const rays = [];
    for (let i = 0; i < playable; i++) {
      const [q, r] = axial[i];
      rays.push(DIRECTIONS.map(([dq, dr]) => {
        const line = [];
        for (let k = 1, n; (n = byAxial.get(pair(q + k * dq, r + k * dr))) !== undefined; k++) line.push(n);
        return line;
      }));
    }
    return {neighbours, rays};
  }

  // the board last started on: each label's cell (`index`) and the geometry, worked out once per
  // board (a bounded cache of a pure function, one board: a page starts one model, the proofs
  // start many on the same board); the states share them, as they share the rest of `g` (a state
  // is never changed)
  let lastBoard = null;
  function board(labels, playable, withRays) {
    const key = `${playable} ${withRays} ${labels.join(' ')}`;
    if (lastBoard === null || lastBoard.key !== key) {
      const index = {};
      labels.forEach((label, i) => { index[label] = i; });
      lastBoard = {key, index, ...geometry(labels, playable, withRays)};
    }
    return lastBoard;
  }

  // --- the state: the view, with spaces as cell numbers ------------------------------------------
  function start(data, view, player) {
    const {index, neighbours, rays} = board(data.labels, data.playable, Boolean(data.params.rays));
    const cell = (label) => (label == null ? null : index[label]);
    const owner = {};
    for (const p of view.players) for (const c of p.colours) owner[c] = p.name;
    // the pieces in the engine's handle order (r2 before r10), whatever the order of the view's keys
    // (the page's data has them sorted as text): the choices are listed in the engine's order
    const inOrder = (pieces) => Object.entries(pieces).sort(([a], [b]) => handleOrder(a, b));
    const ex = {};
    for (const [h, e] of inOrder(view.explorers)) {
      const aboard = e.where === 'boat';
      ex[h] = {colour: e.colour, owner: owner[e.colour], where: e.where, cell: aboard ? null : cell(e.at),
               boat: aboard ? e.at : null, value: e.value};
    }
    const tiles = {};
    for (const [h, t] of inOrder(view.tiles)) {
      tiles[h] = {cell: cell(t.at), terrain: t.terrain, where: t.where, holder: t.holder, obtained: t.obtained,
                  back: t.back};
    }
    const boats = {};
    for (const [h, b] of inOrder(view.boats)) boats[h] = {where: b.where, cell: cell(b.at), owner: b.owner};
    const cr = {};
    for (const [h, c] of inOrder(view.creatures)) cr[h] = {kind: c.kind, where: c.where, cell: cell(c.at)};
    const mine = data.decision.find((d) => d.player === player);
    return {
      g: {labels: data.labels, index, neighbours, rays,
          isles: data.isles_next_to,
          playable: data.playable, central: data.central, params: data.params, parts: data.parts,
          standing: data.standing_forms, phrases: data.phrases || [], prompts: data.prompts || {}},
      me: player,
      players: view.players.map((p) => p.name),
      phase: view.phase,
      turn: {number: view.turn.number, player: view.turn.player, step: view.turn.step, moves: view.turn.moves,
             swum: view.turn.swum.slice(), die: view.turn.die},
      dec: mine ? {kind: mine.kind, player: mine.player} : null,
      ex, tiles, boats, cr,
      protects: Object.assign({}, (view.dolphins || {}).protects || {}),    // dolphin -> the swimmer it protects
      flown: (view.flown || []).slice(),                                     // fighters flown this turn
      captured: JSON.parse(JSON.stringify(view.captured || {})),             // player -> creatures captured
      extra: view.extra || 0,
      squid: view.squid ? JSON.parse(JSON.stringify(view.squid)) : null,     // a squid's pending choice
      sunk: view.sunk ? JSON.parse(JSON.stringify(view.sunk)) : null,       // challenge #5's sunk-tile round                                                // extra spaces for this turn's creature
    };
  }

  // a deep copy of plain data, as its JSON round trip makes it (a value JSON cannot write: left
  // out of a record, null in a list), without writing and reading the text
  function clone(v) {
    if (Array.isArray(v)) {
      const out = new Array(v.length);
      for (let i = 0; i < v.length; i++) { const x = v[i]; out[i] = typeof x === 'object' && x !== null ? clone(x) : plain(x); }
      return out;
    }
    const out = {...v};
    for (const k in out) {
      const x = out[k];
      if (typeof x === 'object') { if (x !== null) out[k] = clone(x); }
      else if (x === undefined || typeof x === 'function') delete out[k];
      else if (typeof x === 'number' && !Number.isFinite(x)) out[k] = null;
    }
    return out;
  }
  const plain = (x) => (x === undefined || typeof x === 'function' || (typeof x === 'number' && !Number.isFinite(x)) ? null : x);

  // a state's copy for `apply`: its own copy of every part an action may change, the keys in the
  // same order (the geometry `g` last).  The geometry and the tiles are shared (no action changes a
  // tile: a tile played or removed is a STOP); so are the records of the people, ships and
  // creatures, in the copy's own maps: an action that changes a piece puts a new record there (`put`)
  function copy(s) {
    const t = {};
    for (const k of Object.keys(s)) {
      const x = s[k];
      if (k === 'g') continue;
      if (k === 'tiles') { t.tiles = x; continue; }
      if (k === 'ex' || k === 'boats' || k === 'cr') { t[k] = {...x}; continue; }
      if (typeof x === 'object') t[k] = x === null ? null : clone(x);
      else if (x !== undefined && typeof x !== 'function') t[k] = plain(x);
    }
    t.g = s.g;
    return t;
  }

  // piece `h` of `part` (ex, boats, cr) changed: a new record in the state's own map (the record
  // itself may be shared with the state the copy was made from: it is never changed in place)
  function put(s, part, h, changes) {
    s[part][h] = Object.assign({}, s[part][h], changes);
  }

  // where things are, worked out from the pieces (the engine's indexes)
  function where(s) {
    const tileAt = {}, boatAt = {}, aboard = {}, kindsAt = {};
    for (const [h, t] of Object.entries(s.tiles)) if (t.where === 'island') tileAt[t.cell] = h;
    for (const [h, b] of Object.entries(s.boats)) {
      aboard[h] = [];
      if (b.where === 'sea') boatAt[b.cell] = h;
    }
    for (const [h, e] of Object.entries(s.ex)) if (e.where === 'boat') aboard[e.boat].push(h);
    for (const c of Object.values(s.cr)) {
      if (c.where === 'sea') (kindsAt[c.cell] = kindsAt[c.cell] || []).push(c.kind);
    }
    return {tileAt, boatAt, aboard, kindsAt};
  }

  const hasKind = (w, cell, kinds) => (w.kindsAt[cell] || []).some((k) => kinds.includes(k));

  // the engine's handle order: r2 before r10
  function handleOrder(a, b) {
    const x = /^([A-Za-z]+)(\d+)$/.exec(a), y = /^([A-Za-z]+)(\d+)$/.exec(b);
    const ka = x ? [x[1], +x[2]] : [a, 0], kb = y ? [y[1], +y[2]] : [b, 0];
    if (ka[0] !== kb[0]) return ka[0] < kb[0] ? -1 : 1;
    return ka[1] - kb[1];
  }

  // --- dolphins protecting swimmers -----------------------------------------------------------------
  const protector = (s, h) => Object.keys(s.protects).sort().find((d) => s.protects[d] === h);
  const unprotected = (s, handles) => {
    const guarded = new Set(Object.values(s.protects));
    return handles.filter((h) => !guarded.has(h));
  };

  function release(s) {
    for (const d of Object.keys(s.protects).sort()) {
      const c = s.cr[d], e = s.ex[s.protects[d]];
      if (c.where !== 'sea' || e.where !== 'sea' || e.cell !== c.cell) delete s.protects[d];
    }
  }

  // --- step 2: moving people and ships ----------------------------------------------------------
  function controllers(s, w, boat) {
    const on = w.aboard[boat];
    if (!on.length) return s.players.slice();
    const counts = {};
    for (const h of on) counts[s.ex[h].owner] = (counts[s.ex[h].owner] || 0) + 1;
    const top = Math.max(...Object.values(counts));
    return s.players.filter((p) => counts[p] === top);
  }

  function explorerSteps(s, w, h) {
    const e = s.ex[h], g = s.g, p = g.params, out = [];
    const room = (b) => w.aboard[b].length < p.capacities[b];
    const maySwim = !s.turn.swum.includes(h);
    if (e.where === 'land') {
      for (const n of g.neighbours[e.cell]) {
        if (n in w.tileAt) { out.push([n, false]); continue; }
        const b = w.boatAt[n];
        if (b === undefined || room(b)) out.push([n, false]);
        if (b !== undefined) out.push([n, true]);
      }
    } else if (e.where === 'boat') {
      const cell = s.boats[e.boat].cell;
      for (const n of g.neighbours[cell]) {
        const b = w.boatAt[n];
        if (b !== undefined && room(b)) out.push([n, false]);
      }
      if (maySwim) out.push([cell, false]);
      for (const isle of g.isles[cell]) out.push([isle, false]);
    } else if (e.where === 'sea') {
      const b = w.boatAt[e.cell];
      if (b !== undefined && room(b) && maySwim) out.push([e.cell, false]);
      if (maySwim) for (const n of g.neighbours[e.cell]) if (!(n in w.tileAt)) out.push([n, false]);
      for (const isle of g.isles[e.cell]) out.push([isle, false]);
    }
    return out;
  }

  function boatSteps(s, w, b) {
    const p = s.g.params, occupied = w.aboard[b].length > 0;
    return s.g.neighbours[s.boats[b].cell].filter((n) => !(n in w.tileAt) && !(n in w.boatAt)
      && !(occupied && hasKind(w, n, p.ship_blockers)));
  }

  // tiles in `player`'s hand taken before this turn
  const earlierTiles = (s, player) => Object.values(s.tiles).filter((t) => t.where === 'hand' && t.holder === player
    && (t.obtained || 0) < s.turn.number);
  const crewInPlay = (s, player) => Object.values(s.ex).some((e) => e.owner === player && ON_BOARD[e.where]);

  // fighters fly one straight line: not into a tile, through ships but not ending on one, up to
  // the first space with creatures
  function flights(s, w, b) {
    const out = [];
    for (const ray of s.g.rays[s.boats[b].cell]) {
      for (const c of ray) {
        if (c in w.tileAt) break;
        const ship = c in w.boatAt;
        if (w.kindsAt[c]) { if (!ship) out.push(c); break; }
        if (!ship) out.push(c);
      }
    }
    return out.sort((a, b2) => a - b2);
  }

  // a turret's shots: on each line, the first space with creatures before a tile
  function shots(s, w, cell) {
    const out = [];
    for (const ray of s.g.rays[cell]) {
      for (const c of ray) {
        if (c in w.tileAt) break;
        if (w.kindsAt[c]) { out.push(c); break; }
      }
    }
    return out.sort((a, b) => a - b);
  }

  function legalMove(s) {
    const p = s.g.params;
    if (p.hand_open) {
      const plays = handPlays(s);
      if (plays === null) return null;
      if (!(s.turn.moves < p.movement_points && crewInPlay(s, s.me))) return [{done: 'move'}, ...plays];
      const out = legalMoveCore(s);
      return out === null ? null : [...out, ...plays];
    }
    return legalMoveCore(s);
  }

  // the plays of the player's tiles of `hand_play_kind` taken before this turn (Space Attack's red
  // tiles), in hand order; null for a rule the model does not know
  function handPlays(s) {
    const p = s.g.params, w = where(s), labels = s.g.labels, out = [];
    const vacant = () => {
      const swimmersAt = new Set(Object.values(s.ex).filter((e) => e.where === 'sea').map((e) => e.cell));
      const cells = [];
      for (let c = 0; c < s.g.playable; c++) if (!(c in w.tileAt) && !(c in w.boatAt) && !swimmersAt.has(c) && !w.kindsAt[c]) cells.push(c);
      return cells;
    };
    const drifters = Object.keys(s.ex).filter((h) => s.ex[h].where === 'sea').sort(handleOrder);
    for (const t of earlierTiles(s, s.me)) {
      const h = Object.keys(s.tiles).find((x) => s.tiles[x] === t);
      if (p.tile_kinds[t.back] !== p.hand_play_kind) continue;
      const back = p.backs[t.back];
      if (back.rule === 'swap-crew') {            // two crew tokens in different places swap them
        const placed = Object.keys(s.ex).sort(handleOrder).map((x) => {
          const e = s.ex[x];
          return [x, back.crew_on === 'station' ? (e.where === 'land' ? e.cell : null) : (e.where === 'boat' ? e.boat : null)];
        }).filter(([, at]) => at !== null);
        for (let i = 0; i < placed.length; i++) {
          for (let j = i + 1; j < placed.length; j++) if (placed[i][1] !== placed[j][1]) out.push({play: h, crew: [placed[i][0], placed[j][0]]});
        }
      } else if (back.rule === 'drifter-to-station') {
        for (const x of drifters) for (const n of s.g.neighbours[s.ex[x].cell]) if (n in w.tileAt) out.push({play: h, crew: x, to: labels[n]});
      } else if (back.rule === 'drifter-to-ship') {
        for (const x of drifters) {
          const here = s.ex[x].cell, ships = [];
          for (const c of [here, ...s.g.neighbours[here]]) {
            const b = w.boatAt[c];
            if (b !== undefined && w.aboard[b].length < p.capacities[b]) ships.push(b);
          }
          for (const b of ships.sort(handleOrder)) out.push({play: h, crew: x, ship: b});
        }
      } else if (back.rule === 'fire-turret') {
        for (const [tt, tile] of Object.entries(s.tiles)) {
          if (tile.where === 'island' && tile.terrain === p.turret_terrain) for (const c of shots(s, w, tile.cell)) out.push({play: h, turret: tt, at: labels[c]});
        }
      } else if (back.rule === 'move-to-empty-space') {
        const key = back.piece === 'creature' ? 'creature' : 'ship';
        const pieces = key === 'creature' ? Object.keys(s.cr).filter((c) => s.cr[c].where === 'sea')
          : Object.keys(s.boats).filter((b) => s.boats[b].where === 'sea' && !w.aboard[b].length);
        const spaces = vacant();
        for (const x of pieces.sort(handleOrder)) for (const c of spaces) out.push({play: h, [key]: x, to: labels[c]});
      } else if (back.rule === 'fly-fighter') {
        for (const f of p.fighters) {
          if (!(f in s.boats) || s.boats[f].where !== 'sea' || !w.aboard[f].length) continue;
          for (const c of flights(s, w, f)) out.push({play: h, ship: f, to: labels[c]});
        }
      } else if (back.rule === 'place-near-queens') {
        const [first, second] = back.creatures;
        const token = (kind) => Object.values(s.cr).some((c) => c.kind === kind && (c.where === 'supply' || c.where === 'sea'));
        if (!token(first) || !token(second)) continue;
        const empty = new Set(vacant());
        const queens = Object.keys(s.cr).filter((q) => s.cr[q].where === 'sea' && p.creatures[s.cr[q].kind].rule === 'serpent');
        const near = Object.fromEntries(queens.map((q) => [q, s.g.neighbours[s.cr[q].cell].filter((n) => empty.has(n))]));
        const pairs = new Set();
        for (const q1 of queens) for (const q2 of queens) {
          if (q1 === q2) continue;
          for (const a of near[q1]) for (const b of near[q2]) if (a !== b) pairs.add(a * 1000 + b);
        }
        for (const key of [...pairs].sort((x, y) => x - y)) out.push({play: h, [first]: labels[Math.floor(key / 1000)], [second]: labels[key % 1000]});
      } else {
        return null;
      }
    }
    return out;
  }

  function legalMoveCore(s) {
    const p = s.g.params;
    const w = where(s), labels = s.g.labels, out = [{done: 'move'}];
    for (const [h, e] of Object.entries(s.ex)) {
      if (e.owner !== s.me || !ON_BOARD[e.where]) continue;
      const moves = explorerSteps(s, w, h).map(([n, swim]) => (swim ? {move: h, to: labels[n], [p.swim_key]: true} : {move: h, to: labels[n]}));
      out.push(...moves);
      if (s.g.params.dolphin_escorts && e.where === 'sea' && protector(s, h) !== undefined && !s.turn.swum.includes(h)) {
        const near = s.g.neighbours[e.cell];       // a swim to another sea space, the dolphin along
        for (const a of moves) if (near.includes(s.g.index[a.to])) out.push({...a, dolphin: true});
      }
    }
    for (const [b, boat] of Object.entries(s.boats)) {
      if (boat.where !== 'sea') continue;
      if (w.aboard[b].length && !controllers(s, w, b).includes(s.me)) continue;
      if (p.fighters.includes(b)) {
        if (!s.flown.includes(b)) for (const n of flights(s, w, b)) out.push({move: b, to: labels[n]});
        continue;
      }
      for (const n of boatSteps(s, w, b)) out.push({move: b, to: labels[n]});
    }
    if (p.turret_terrain !== null) {
      for (const [t, tile] of Object.entries(s.tiles)) {
        if (tile.where !== 'island' || tile.terrain !== p.turret_terrain) continue;
        if (!Object.values(s.ex).some((e) => e.where === 'land' && e.cell === tile.cell && e.owner === s.me)) continue;
        for (const c of shots(s, w, tile.cell)) out.push({fire: t, at: labels[c]});
      }
    }
    if (s.g.params.rides) {                  // a swimmer rides a dolphin in its space to a sea space next to it
      for (const [h, e] of Object.entries(s.ex)) {
        if (e.owner !== s.me || e.where !== 'sea') continue;
        const dolphins = Object.keys(s.cr).filter((d) => s.cr[d].kind === 'dolphin' && s.cr[d].where === 'sea'
          && s.cr[d].cell === e.cell).sort();
        for (const d of dolphins) {
          for (const n of s.g.neighbours[e.cell]) if (!(n in w.tileAt)) out.push({move: h, to: labels[n], ride: d});
        }
      }
    }
    return out;
  }

  function lose(s, handles) {
    for (const h of handles) put(s, 'ex', h, {where: 'lost', cell: null, boat: null});
    release(s);
  }

  function enterSea(s, w, h, cell) {
    if (s.g.params.dolphin_escorts) {
      let escort = protector(s, h);
      if (escort !== undefined && s.cr[escort].cell !== cell) { delete s.protects[escort]; escort = undefined; }
      const free = Object.keys(s.cr).filter((d) => s.cr[d].kind === 'dolphin' && s.cr[d].where === 'sea'
        && s.cr[d].cell === cell && !(d in s.protects)).sort(handleOrder);
      if (escort === undefined && free.length) s.protects[free[0]] = h;
    }
    put(s, 'ex', h, {where: 'sea', cell, boat: null});
    s.turn.swum.push(h);
    if (hasKind(w, cell, s.g.params.swimmer_killers)) lose(s, unprotected(s, [h]));
  }

  function doMove(s, a) {
    const w = where(s), p = s.g.params, cell = s.g.index[a.to], h = a.move;
    if (a.ride != null) {                     // the dolphin carries its rider (not a swim)
      put(s, 'cr', a.ride, {cell});
      put(s, 'ex', h, {where: 'sea', cell, boat: null});
      if (hasKind(w, cell, p.swimmer_killers)) lose(s, [h]);
      return false;
    }
    if (p.fighters.includes(h)) {              // a fighter flies; a crewed one captures what is there
      s.flown.push(h);
      put(s, 'boats', h, {cell, owner: null});
      if (w.aboard[h].length && w.kindsAt[cell]) return capture(s, cell);
      return false;
    }
    if (h in s.boats) {
      put(s, 'boats', h, {cell, owner: null});
      const people = w.aboard[h].slice().sort();
      if (!people.length && !p.empty_ships_prey) return false;
      const met = p.ship_meets.find((m) => hasKind(w, cell, m.kinds));
      if (!met) return false;
      put(s, 'boats', h, {where: 'lost', cell: null});
      if (met.effect === 'sink') { lose(s, people); return false; }
      for (const x of people) put(s, 'ex', x, {where: 'sea', cell, boat: null});    // they swim
      if (people.length && hasKind(w, cell, p.swimmer_killers)) lose(s, unprotected(s, people));
      return false;
    }
    const e = s.ex[h];
    const swim = a[p.swim_key] === true;
    if (a.dolphin === true) put(s, 'cr', protector(s, h), {cell});      // the dolphin swims along
    if (s.g.labels.length > s.g.playable && cell >= s.g.playable) {
      put(s, 'ex', h, {where: 'isle', cell, boat: null});
    } else if (e.where === 'land') {
      if (cell in w.tileAt) put(s, 'ex', h, {cell});
      else if (cell in w.boatAt && !swim) put(s, 'ex', h, {where: 'boat', cell: null, boat: w.boatAt[cell]});
      else enterSea(s, w, h, cell);
    } else if (e.where === 'boat') {
      if (cell === s.boats[e.boat].cell) enterSea(s, w, h, cell);
      else put(s, 'ex', h, {boat: w.boatAt[cell]});
    } else if (cell === e.cell) {
      put(s, 'ex', h, {where: 'boat', cell: null, boat: w.boatAt[cell]});     // a swimmer climbs aboard
    } else {
      enterSea(s, w, h, cell);
    }
    release(s);
    return false;
  }

  // creatures captured at `cell` by the player: a STOP while another player holds a tile (a steal
  // tile there would take them: hidden); else they go in front of the player
  function capture(s, cell) {
    if (s.players.some((q) => q !== s.turn.player && Object.values(s.tiles).some((t) => t.where === 'hand' && t.holder === q))) {
      return true;
    }
    const taken = Object.keys(s.cr).filter((c) => s.cr[c].where === 'sea' && s.cr[c].cell === cell);
    for (const c of taken) put(s, 'cr', c, {where: 'captured', cell: null});
    s.captured[s.me] = [...(s.captured[s.me] || []), ...taken].sort(handleOrder);
    return false;
  }

  // the movement step ends with the last point, unless a tile from an earlier turn is in hand
  const moveStepOver = (s) => s.turn.moves >= s.g.params.movement_points
    && !(s.g.params.hand_open && earlierTiles(s, s.me).length);

  const boardEmpty = (s) => !Object.values(s.ex).some((e) => ON_BOARD[e.where]);

  function gameOver(s) {
    for (const [h, e] of Object.entries(s.ex)) if (ON_BOARD[e.where]) put(s, 'ex', h, {where: 'lost', cell: null, boat: null});
    s.phase = 'over';
    s.turn.step = '';
    s.dec = null;
  }

  // the end of step 2: step 3 (a tile to remove), or, with none left, the creature die (a STOP);
  // the end of the game is a STOP too (the moderator reveals the saved people's values)
  function endMoveStep(s) {
    if (s.g.params.end_when_board_empty && boardEmpty(s)) { gameOver(s); return true; }
    if (Object.values(s.tiles).some((t) => t.where === 'island')) {
      s.turn.step = 'remove-tile';
      s.dec = {kind: 'remove-tile', player: s.turn.player};
      return false;
    }
    s.dec = null;
    return true;
  }

  // --- step 3: which tile may be removed (removing it is a STOP: its back is hidden) -------------
  function legalRemove(s) {
    const p = s.g.params, w = where(s);
    const island = Object.values(s.tiles).filter((t) => t.where === 'island');
    if (p.removal === 'rings') {               // the outermost ring left; its empty tiles first
      const ringOf = (t) => p.rings[s.g.labels[t.cell]];
      if (!island.length) return [];
      const outer = Math.min(...island.map(ringOf));
      const ring = island.filter((t) => ringOf(t) === outer);
      const people = new Set(Object.values(s.ex).filter((e) => e.where === 'land').map((e) => e.cell));
      const empty = ring.filter((t) => !people.has(t.cell));
      return (empty.length ? empty : ring).map((t) => ({remove: s.g.labels[t.cell]}));
    }
    const terrain = p.terrains.find((t) => island.some((x) => x.terrain === t));
    if (terrain === undefined) return [];
    const group = island.filter((t) => t.terrain === terrain);
    const closed = new Set(p.closed_spaces.map((label) => s.g.index[label]));
    const sea = (n) => !(n in w.tileAt) && !closed.has(n);
    const coastal = group.filter((t) => s.g.neighbours[t.cell].some(sea));
    return (coastal.length ? coastal : group).map((t) => ({remove: s.g.labels[t.cell]}));
  }

  // --- set-up: people on empty terrain tiles, then ships by the coast ---------------------------------
  // the next player (clockwise after `after`, `after` last) who still has something to place
  function nextWith(s, after, wants) {
    const i = s.players.indexOf(after), n = s.players.length;
    for (let k = 1; k <= n; k++) {
      const p = s.players[(i + k) % n];
      if (wants(p)) return p;
    }
    return null;
  }

  const reservePeople = (s, p) => Object.keys(s.ex).filter((h) => s.ex[h].owner === p && s.ex[h].where === 'reserve');
  const reserveShips = (s, p) => Object.keys(s.boats).filter((h) => s.boats[h].where === 'reserve' && s.boats[h].owner === p);

  function legalPlace(s) {
    const limits = s.g.params.setup_limits, count = {};
    for (const e of Object.values(s.ex)) if (e.where === 'land') count[e.cell] = (count[e.cell] || 0) + 1;
    const p = s.g.params, island = Object.values(s.tiles).filter((t) => t.where === 'island');
    const mineOn = new Set(Object.values(s.ex).filter((e) => e.where === 'land' && e.owner === s.me).map((e) => e.cell));
    const occupiedNotMine = island.filter((t) => count[t.cell] && !mineOn.has(t.cell));
    const limited = () => island.filter((t) => {
      const limit = limits[s.g.labels[t.cell]];
      return limit == null || (count[t.cell] || 0) < limit;
    });
    let tiles = p.setup_fallback ? limited() : [];
    if (tiles.length) {
      // the per-tile limits first; with no room left, the base rule below
    } else if (p.crowd != null) {
      const empty = island.filter((t) => !count[t.cell]);
      tiles = empty.length ? empty : occupiedNotMine.filter((t) => count[t.cell] < p.crowd);
    } else if (p.final_on_occupied.includes(s.players.indexOf(s.me) + 1) && reservePeople(s, s.me).length === 1) {
      tiles = occupiedNotMine;
    } else {
      tiles = p.setup_fallback ? island.filter((t) => !count[t.cell]) : limited();
    }
    const spots = tiles.map((t) => s.g.labels[t.cell]);
    const out = [];
    for (const h of reservePeople(s, s.me)) for (const on of spots) out.push({place: h, on});
    return out;
  }

  function legalShip(s) {
    const w = where(s), g = s.g, coast = new Set();
    for (const cell of Object.keys(w.tileAt)) for (const n of g.neighbours[cell]) if (!(n in w.tileAt)) coast.add(n);
    const spots = [...coast].filter((c) => !(c in w.boatAt) && !hasKind(w, c, g.params.setup_ship_blockers))
      .sort((a, b) => a - b).map((c) => g.labels[c]);
    const out = [];
    for (const b of reserveShips(s, s.me)) for (const at of spots) out.push({[g.params.ship_place_key]: b, at});
    return out;
  }

  function decide(s, kind, player) {
    s.turn.player = player;
    s.dec = {kind, player};
  }

  function afterPlacing(s) {
    const nxt = nextWith(s, s.turn.player, (p) => reservePeople(s, p).length > 0);
    if (nxt !== null) { decide(s, 'setup-place', nxt); return; }
    s.phase = 'setup-boat';
    const first = nextWith(s, s.players[s.players.length - 1], (p) => reserveShips(s, p).length > 0);
    if (first === null) { startPlay(s); return; }
    s.turn = {number: 0, player: first, step: 'setup-boat', moves: 0, swum: []};
    s.dec = {kind: 'setup-boat', player: first};
  }

  // the first turn: no tile in anyone's hand yet, so it opens with the movement step
  function startPlay(s) {
    s.phase = 'play';
    s.flown = [];
    if (!s.g.params.values_seen_in_play) for (const h of Object.keys(s.ex)) put(s, 'ex', h, {value: null});
    s.turn = {number: 1, player: s.players[0], step: 'move', moves: 0, swum: []};
    s.dec = {kind: 'move', player: s.players[0]};
  }

  function afterShip(s) {
    const nxt = nextWith(s, s.turn.player, (p) => reserveShips(s, p).length > 0);
    if (nxt !== null) decide(s, 'setup-boat', nxt);
    else startPlay(s);
  }

  // --- step 4: where creatures may go (the orders written ahead at the removal) ---------------------------
  // the spaces where a creature of behaviour `rule` ends its move on entering them
  function stopsAt(s, w, rule) {
    const stops = new Set();
    if (rule === 'serpent') {
      if (s.g.params.serpent_stops === 'always') return () => true;
      for (const [cell, b] of Object.entries(w.boatAt)) if (w.aboard[b].length) stops.add(+cell);
      const swimmers = {};
      for (const [h, e] of Object.entries(s.ex)) if (e.where === 'sea') (swimmers[e.cell] = swimmers[e.cell] || []).push(h);
      for (const [cell, hs] of Object.entries(swimmers)) if (unprotected(s, hs).length) stops.add(+cell);
      return (cell) => stops.has(cell);
    }
    if (rule === 'shark') {
      const swimmers = {};
      for (const [h, e] of Object.entries(s.ex)) if (e.where === 'sea') (swimmers[e.cell] = swimmers[e.cell] || []).push(h);
      for (const [cell, hs] of Object.entries(swimmers)) if (unprotected(s, hs).length) stops.add(+cell);
    } else if (rule === 'whale') {
      for (const [cell, b] of Object.entries(w.boatAt)) if (w.aboard[b].length) stops.add(+cell);
      for (const cell of Object.keys(w.kindsAt)) if (hasKind(w, +cell, s.g.params.whale_stopped_by)) stops.add(+cell);
    } else if (rule === 'octopus' || rule === 'monster') {   // 1986: boats (as prey), and for the monster swimmers
      for (const [cell, b] of Object.entries(w.boatAt)) if (w.aboard[b].length || s.g.params.empty_ships_prey) stops.add(+cell);
      if (rule === 'monster') for (const e of Object.values(s.ex)) if (e.where === 'sea') stops.add(e.cell);
    } else if (rule === 'squid') {               // occupied ships, whales, people on land next to it
      for (const [cell, b] of Object.entries(w.boatAt)) if (w.aboard[b].length) stops.add(+cell);
      for (const cell of Object.keys(w.kindsAt)) if (hasKind(w, +cell, ['whale'])) stops.add(+cell);
      for (const e of Object.values(s.ex)) if (e.where === 'land') for (const n of s.g.neighbours[e.cell]) if (!(n in w.tileAt)) stops.add(n);
    }
    return (cell) => stops.has(cell);
  }

  // the engine's sea walk: spaces reached in 1..steps steps, not into land, stopping where `ends`
  function seaWalk(s, w, start, steps, ends) {
    const seen = new Set();
    let frontier = [start];
    for (let step = 1; step <= steps; step++) {
      const next = [];
      for (const cell of frontier) {
        for (const n of s.g.neighbours[cell]) {
          if (seen.has(n) || n in w.tileAt) continue;
          seen.add(n);
          if (!ends(n)) next.push(n);
        }
      }
      if (!next.length) break;
      frontier = next;
    }
    return [...seen].sort((a, b) => a - b);
  }

  // step 4's choices once `face` is rolled: [creature, [spaces]] for each creature it moves
  function creatureChoices(s, face) {
    const w = where(s), p = s.g.params, kinds = p.creatures, ends = {}, out = [];
    const moved = p.die_kinds[face] || [face];
    for (const [h, c] of Object.entries(s.cr)) {
      if (c.where !== 'sea' || !moved.includes(c.kind)) continue;
      const rule = kinds[c.kind].rule;
      ends[rule] = ends[rule] || stopsAt(s, w, rule);
      const cells = seaWalk(s, w, c.cell, kinds[c.kind].moves + s.extra, ends[rule]);
      if (p.stay.includes(c.kind) && !cells.includes(c.cell)) cells.push(c.cell);
      out.push([h, cells.sort((a, b) => a - b)]);
    }
    return out;
  }

  function aheadForm(s) {
    const fields = s.g.params.ahead_faces.map((face) => {
      const values = ['none'], texts = [`move no ${face}`];
      for (const [h, cells] of creatureChoices(s, face)) {
        for (const c of cells) { values.push(`{creature: ${h}, to: ${s.g.labels[c]}}`); texts.push(`${h} to ${s.g.labels[c]}`); }
      }
      return {name: face, label: `if the die shows ${face}`, values, texts, current: ''};
    });
    return {key: 'creature', title: 'Written ahead: a creature order for each face of the die', fields, when: 'ahead',
            note: 'The die is rolled after your tile removal; the order for the face it shows is used, or you are asked again if it no longer fits.'};
  }

  // step 4's decision once the die shows `face`: none, or a creature to a space it may end on
  function legalCreature(s) {
    const out = [{creature: 'none'}];
    for (const [h, cells] of creatureChoices(s, s.turn.die)) for (const c of cells) out.push({creature: h, to: s.g.labels[c]});
    return out;
  }

  // the people a defence tile would protect at `cell` from a `kind` creature ending there
  function threatened(s, w, kind, cell) {
    const protects = s.g.params.answered[kind];
    if (protects === 'swimmers') {
      return unprotected(s, Object.keys(s.ex).filter((h) => s.ex[h].where === 'sea' && s.ex[h].cell === cell));
    }
    const b = w.boatAt[cell];
    return b === undefined ? [] : w.aboard[b];
  }

  // Space Attack: the owners of the drifters a creature of `rule` hits at `cell`, and the controllers
  // of the occupied ship it hits there
  function hitOwners(s, w, rule, cell) {
    const owners = new Set();
    if (rule === 'serpent' || rule === 'shark') {
      for (const e of Object.values(s.ex)) if (e.where === 'sea' && e.cell === cell) owners.add(e.owner);
    }
    const b = w.boatAt[cell];
    if (b !== undefined && w.aboard[b].length && (rule === 'serpent' || rule === 'whale')) {
      for (const q of controllers(s, w, b)) owners.add(q);
    }
    return owners;
  }

  const holdsTile = (s, q) => Object.values(s.tiles).some((t) => t.where === 'hand' && t.holder === q);

  // the creature `h` ends its move at `cell`; true when that is a STOP (another player threatened
  // there holds a tile: whether they defend is hidden)
  function creatureArrives(s, h, cell) {
    const w = where(s), c = s.cr[h], rule = s.g.params.creatures[c.kind].rule, p = s.g.params;
    const swimmersHere = () => Object.keys(s.ex).filter((x) => s.ex[x].where === 'sea' && s.ex[x].cell === cell);
    const stops = stopsAt(s, w, rule)(cell);
    if (c.kind in p.answered && stops) {
      const owners = p.threat === 'hit' ? hitOwners(s, w, rule, cell) : new Set(threatened(s, w, c.kind, cell).map((x) => s.ex[x].owner));
      if (s.players.some((q) => q !== s.turn.player && owners.has(q) && holdsTile(s, q))) return true;
    }
    put(s, 'cr', h, {cell});
    const b = w.boatAt[cell];
    if (rule === 'serpent') {
      if (b !== undefined && w.aboard[b].length) {
        lose(s, w.aboard[b].slice());
        put(s, 'boats', b, {where: 'lost', cell: null});
      }
      lose(s, unprotected(s, swimmersHere()));
    } else if (rule === 'shark') {
      lose(s, unprotected(s, swimmersHere()));
    } else if (rule === 'octopus' || rule === 'monster') {
      if (b !== undefined && (w.aboard[b].length || p.empty_ships_prey)) {
        const people = w.aboard[b].slice().sort();
        put(s, 'boats', b, {where: 'lost', cell: null});
        if (rule === 'monster') lose(s, people);
        else {
          for (const x of people) put(s, 'ex', x, {where: 'sea', cell, boat: null});
          if (people.length && hasKind(where(s), cell, p.swimmer_killers)) lose(s, people);
        }
      }
      if (rule === 'monster') lose(s, swimmersHere());
    } else if (rule === 'squid') {              // eats the whales here, takes one person (or the mover chooses)
      for (const x of Object.keys(s.cr)) if (s.cr[x].where === 'sea' && s.cr[x].cell === cell && s.cr[x].kind === 'whale') put(s, 'cr', x, {where: 'lost', cell: null});
      const prey = new Set(b !== undefined ? w.aboard[b] : []);
      for (const [x, e] of Object.entries(s.ex)) if (e.where === 'land' && s.g.neighbours[cell].includes(e.cell)) prey.add(x);
      if (prey.size === 1) lose(s, [...prey]);
      else if (prey.size > 1) {
        s.squid = {kind: 'squid-take', squid: h, resume: 'creature', roll: false};
        return 'squid-take';
      }
    } else if (rule === 'whale') {
      for (const x of Object.keys(s.cr)) {
        if (s.cr[x].where === 'sea' && s.cr[x].cell === cell && p.whale_eats.includes(s.cr[x].kind)) put(s, 'cr', x, {where: 'lost', cell: null});
      }
      if (b !== undefined && w.aboard[b].length) {
        const people = w.aboard[b].slice().sort();
        put(s, 'boats', b, {where: 'lost', cell: null});
        for (const x of people) put(s, 'ex', x, {where: 'sea', cell, boat: null});
        if (hasKind(where(s), cell, p.swimmer_killers)) lose(s, unprotected(s, people));
      }
    }
    return false;
  }

  // a squid among several people: the mover chooses whom it takes (not modelled: the page stops there)
  function squidTakes(s) {
    s.turn.step = 'squid-take';
    s.dec = {kind: 'squid-take', player: s.turn.player};
    return s;
  }

  // the turn ends: the next player's turn opens with a decision of theirs (the player's part is
  // over), or with the die (a STOP)
  function nextTurn(s) {
    if (s.g.params.end_when_board_empty && boardEmpty(s)) { gameOver(s); return true; }
    const i = s.players.indexOf(s.turn.player), next = s.players[(i + 1) % s.players.length];
    const number = s.turn.number + 1;
    s.turn = {number, player: next, step: '', moves: 0, swum: [], die: null};
    s.flown = [];
    s.dec = null;
    s.extra = 0;
    const tile = Object.values(s.tiles).some((t) => t.where === 'hand' && t.holder === next && (t.obtained || 0) < number);
    const captured = (s.captured[next] || []).length > 0;
    return !(tile || captured || crewInPlay(s, next) || Object.values(s.tiles).some((t) => t.where === 'island'));
  }

  // --- step 1: a tile from the hand (playing one shows its back: a STOP) ------------------------------------
  // where a piece walks over the sea from `start` (up to `steps`), not back to `start`
  function walkFrom(s, w, start, steps, blocked, ends) {
    const saved = w.tileAt;
    w.tileAt = blocked;
    const out = seaWalk(s, w, start, steps, ends).filter((c) => c !== start);
    w.tileAt = saved;
    return out;
  }

  function legalTile(s) {
    const w = where(s), p = s.g.params, labels = s.g.labels, out = [{play: 'none'}];
    for (const [h, t] of Object.entries(s.tiles)) {
      if (t.where !== 'hand' || t.holder !== s.me || (t.obtained || 0) >= s.turn.number) continue;
      const back = p.backs[t.back];
      if (!back || back.kind !== 'hand') continue;
      if (back.rule === 'dolphin') {             // one of your swimmers, 1 to 3 sea spaces, stopping at a killer
        const deadly = (c) => hasKind(w, c, p.swimmer_killers);
        for (const [x, e] of Object.entries(s.ex)) {
          if (e.owner !== s.me || e.where !== 'sea') continue;
          for (const c of walkFrom(s, w, e.cell, p.tile_moves.dolphin, w.tileAt, deadly)) out.push({play: h, swimmer: x, to: labels[c]});
        }
      } else if (back.rule === 'wind') {         // a ship you control, 1 to 3 sea spaces
        for (const [b, boat] of Object.entries(s.boats)) {
          if (boat.where !== 'sea' || (w.aboard[b].length && !controllers(s, w, b).includes(s.me))) continue;
          const occupied = w.aboard[b].length > 0;
          const blocked = Object.assign({}, w.tileAt, w.boatAt);
          if (occupied) for (const c of Object.keys(w.kindsAt)) if (hasKind(w, +c, p.ship_blockers)) blocked[c] = true;
          const stops = (c) => (occupied || p.empty_ships_prey) && p.ship_meets.some((m) => hasKind(w, c, m.kinds));
          for (const c of walkFrom(s, w, boat.cell, p.tile_moves.wind, blocked, stops)) out.push({play: h, boat: b, to: labels[c]});
        }
      } else if (back.rule === 'move-to-empty-space') {   // a creature of the tile's kind to a vacant sea space
        const swimmersAt = new Set(Object.values(s.ex).filter((e) => e.where === 'sea').map((e) => e.cell));
        const vacant = [];
        for (let c = 0; c < s.g.playable; c++) {
          if (!(c in w.tileAt) && !(c in w.boatAt) && !swimmersAt.has(c) && !w.kindsAt[c]) vacant.push(labels[c]);
        }
        for (const [x, c] of Object.entries(s.cr)) {
          if (c.kind === back.creature && c.where === 'sea') for (const to of vacant) out.push({play: h, creature: x, to});
        }
        if (back.creature === p.squid_moves_with) {
          const cells = vacant.map((label) => s.g.index[label]);
          for (const [x, c] of Object.entries(s.cr)) {
            if (c.kind !== 'squid' || c.where !== 'sea') continue;
            for (const cell of [...cells, c.cell].sort((a, b) => a - b)) out.push({play: h, creature: x, to: labels[cell]});
          }
        }
      } else {
        return null;
      }
    }
    return out;
  }

  // the turn goes on to the movement step if the player has people in play (or, in Space Attack, a
  // tile from an earlier turn), else step 3 (a tile to remove), else the die (a STOP)
  function afterTileStep(s) {
    if (s.g.params.end_when_board_empty && boardEmpty(s)) { gameOver(s); return true; }
    if (crewInPlay(s, s.turn.player) || (s.g.params.hand_open && earlierTiles(s, s.turn.player).length)) {
      s.turn.step = 'move';
      s.dec = {kind: 'move', player: s.turn.player};
      return false;
    }
    return endMoveStep(s);
  }

  // --- step 4 with the dive dice ---------------------------------------------------------------------------
  function vacantCells(s, w) {
    const swimmersAt = new Set(Object.values(s.ex).filter((e) => e.where === 'sea').map((e) => e.cell));
    const out = [];
    for (let c = 0; c < s.g.playable; c++) {
      if (!(c in w.tileAt) && !(c in w.boatAt) && !swimmersAt.has(c) && !w.kindsAt[c]) out.push(c);
    }
    return out;
  }

  const freeSwimmers = (s, cell) => {
    const guarded = new Set(Object.values(s.protects));
    return Object.keys(s.ex).filter((h) => s.ex[h].where === 'sea' && s.ex[h].cell === cell && !guarded.has(h)).sort(handleOrder);
  };

  // the pieces the dive roll moves, in handle order, with where each may go
  function divePieces(s) {
    const d = s.g.params.dive, [face, distance] = s.turn.die.split('/');
    const named = face === d.wild ? d.faces.filter((f) => f !== d.wild) : [face];
    const kinds = named.flatMap((f) => (f === 'dolphin' || f === 'boat' ? [f] : (s.g.params.die_kinds[f] || [f])));
    const pieces = Object.keys(s.cr).filter((h) => s.cr[h].where === 'sea' && kinds.includes(s.cr[h].kind));
    const w = where(s);
    if (kinds.includes('boat')) for (const b of Object.keys(s.boats)) if (s.boats[b].where === 'sea' && !w.aboard[b].length) pieces.push(b);
    return {pieces: pieces.sort(handleOrder), distance, w};
  }

  function diveDestinations(s, w, piece, distance) {
    const d = s.g.params.dive, anywhere = distance === d.anywhere, n = anywhere ? 0 : +distance;
    const none = () => false;
    if (piece in s.boats) {
      const start = s.boats[piece].cell;
      const cells = anywhere ? vacantCells(s, w) : walkFrom(s, w, start, n, Object.assign({}, w.tileAt, w.boatAt), none);
      return cells.filter((c) => c !== start).map((c) => [c, []]);
    }
    const c = s.cr[piece];
    if (c.kind === 'dolphin') {
      const cells = anywhere ? vacantCells(s, w) : seaWalk(s, w, c.cell, n, none);
      return cells.filter((x) => x !== c.cell).map((x) => [x, freeSwimmers(s, x)]);
    }
    const stay = s.g.params.stay.includes(c.kind);
    if (anywhere) return [...vacantCells(s, w), ...(stay ? [c.cell] : [])].sort((a, b) => a - b).map((x) => [x, []]);
    const rule = s.g.params.creatures[c.kind].rule;
    const cells = seaWalk(s, w, c.cell, n, stopsAt(s, w, rule));
    if (stay && !cells.includes(c.cell)) cells.push(c.cell);
    return cells.sort((a, b) => a - b).map((x) => [x, []]);
  }

  function legalDive(s) {
    const out = [{dive: 'none'}], {pieces, distance, w} = divePieces(s), labels = s.g.labels;
    for (const piece of pieces) {
      for (const [cell, swimmers] of diveDestinations(s, w, piece, distance)) {
        if (swimmers.length > 1) for (const x of swimmers) out.push({dive: piece, to: labels[cell], protect: x});
        else out.push({dive: piece, to: labels[cell]});
      }
      if (piece in s.cr && s.cr[piece].kind === 'dolphin') {
        const current = s.protects[piece];
        for (const x of freeSwimmers(s, s.cr[piece].cell)) if (x !== current) out.push({dive: piece, protect: x});
      }
    }
    return out;
  }

  // a dolphin gone from its swimmer's space: the swimmer, no longer protected, meets what is there
  function exposed(s, cell, swimmer) {
    if (hasKind(where(s), cell, s.g.params.swimmer_killers)) lose(s, unprotected(s, [swimmer]));
  }

  // true when it is a STOP
  function doDive(s, a) {
    if (a.dive in s.boats) { put(s, 'boats', a.dive, {cell: s.g.index[a.to]}); return false; }
    const c = s.cr[a.dive];
    if (c.kind !== 'dolphin') return creatureArrives(s, a.dive, s.g.index[a.to]);    // true, false or a decision
    const start = c.cell, old = s.protects[a.dive];
    if (a.to === undefined) {                  // the dolphin protects another swimmer here
      s.protects[a.dive] = a.protect;
      if (old !== undefined) exposed(s, start, old);
      return false;
    }
    const dest = s.g.index[a.to];
    delete s.protects[a.dive];
    put(s, 'cr', a.dive, {cell: dest});
    const free = freeSwimmers(s, dest);
    if (a.protect !== undefined) s.protects[a.dive] = a.protect;
    else if (free.length === 1) s.protects[a.dive] = free[0];
    if (old !== undefined) exposed(s, start, old);
    return false;
  }

  // --- the 1986 spinner's step ----------------------------------------------------------------------------------
  function legalSpin(s, key) {
    const sp = s.g.params.spin, face = s.turn.die, i = face.lastIndexOf('-');
    const kind = face.slice(0, i), move = face.slice(i + 1), w = where(s), out = sp.pass ? [{[key]: 'none'}] : [];
    for (const [h, c] of Object.entries(s.cr)) {
      if (c.where !== 'sea' || c.kind !== kind) continue;
      let cells;
      if (move === sp.dive) {                    // any sea space without villagers or boats
        const swimmersAt = new Set(Object.values(s.ex).filter((e) => e.where === 'sea').map((e) => e.cell));
        cells = [];
        for (let x = 0; x < s.g.playable; x++) if (!(x in w.tileAt) && !swimmersAt.has(x) && !(x in w.boatAt)) cells.push(x);
      } else {
        cells = seaWalk(s, w, c.cell, +move, stopsAt(s, w, s.g.params.creatures[kind].rule));
      }
      for (const x of cells) out.push({[key]: h, to: s.g.labels[x]});
    }
    return out;
  }

  // the spun creature moves (a dive: it just appears there), then the next turn
  function applySpin(t, a, key) {
    if (a[key] !== 'none') {
      const face = t.turn.die, dive = face.slice(face.lastIndexOf('-') + 1) === t.g.params.spin.dive;
      if (dive) put(t, 'cr', a[key], {cell: t.g.index[a.to]});
      else creatureArrives(t, a[key], t.g.index[a.to]);
    }
    const stop = nextTurn(t);
    return {state: t, stop};
  }

  // --- challenge #5's sunk-tile round ---------------------------------------------------------------------
  const sunkExplorers = (s, q) => (s.sunk ? s.sunk.explorers : []).filter((h) => s.ex[h].owner === q
    && (s.ex[h].where === 'sea' || s.ex[h].where === 'boat'));

  function legalSunk(s) {
    const w = where(s), out = [{done: 'move'}];
    for (const h of sunkExplorers(s, s.me)) {
      for (const [n, swim] of explorerSteps(s, w, h)) {
        out.push(swim ? {move: h, to: s.g.labels[n], [s.g.params.swim_key]: true} : {move: h, to: s.g.labels[n]});
      }
    }
    return out;
  }

  // the point is used (or not); the round goes on with another player, or its last point rolls the die
  function applySunk(t, a) {
    const last = !t.sunk.queue.slice(1).some((q) => sunkExplorers(t, q).length);
    t.dec = null;
    if (last) return {state: t, stop: true};
    if ('move' in a) doMove(t, a);
    release(t);
    t.sunk.queue.shift();
    while (t.sunk.queue.length && !sunkExplorers(t, t.sunk.queue[0]).length) t.sunk.queue.shift();
    return {state: t, stop: false};
  }

  // --- the squid takes one of several people --------------------------------------------------------------
  function squidPrey(s) {
    const w = where(s), cell = s.cr[s.squid.squid].cell, b = w.boatAt[cell];
    const prey = new Set(b !== undefined ? w.aboard[b] : []);
    for (const [x, e] of Object.entries(s.ex)) if (e.where === 'land' && s.g.neighbours[cell].includes(e.cell)) prey.add(x);
    return [...prey].sort(handleOrder);
  }

  function legalTake(s) {
    if (!s.squid || !(s.squid.roll || s.squid.resume === 'creature')) return null;
    return squidPrey(s).map((h) => ({take: h}));
  }

  // --- Space Attack: deploying captured creatures; the blue-tile decision ----------------------------------
  function legalDeploy(s) {
    const w = where(s), swimmersAt = new Set(Object.values(s.ex).filter((e) => e.where === 'sea').map((e) => e.cell));
    const empty = [];
    for (let c = 0; c < s.g.playable; c++) {
      if (!(c in w.tileAt) && !(c in w.boatAt) && !swimmersAt.has(c) && !w.kindsAt[c]) empty.push(s.g.labels[c]);
    }
    const out = [{deploy: 'none'}];
    for (const h of s.captured[s.me] || []) for (const to of empty) out.push({deploy: h, to});
    return out;
  }

  // none, or a blue tile's play (a STOP): an extra space for the rolled creature, an evolution
  function legalBlue(s) {
    const p = s.g.params, out = [{play: 'none'}];
    const onBoard = (kind) => Object.keys(s.cr).filter((c) => s.cr[c].kind === kind && s.cr[c].where === 'sea').sort(handleOrder);
    for (const [h, t] of Object.entries(s.tiles)) {
      if (t.where !== 'hand' || t.holder !== s.me || p.tile_kinds[t.back] !== p.after_roll_kind) continue;
      const back = p.backs[t.back];
      if (back.rule === 'extra-space') {
        if (Object.values(s.cr).some((c) => c.where === 'sea' && c.kind === s.turn.die)) out.push({play: h});
      } else if (back.rule === 'evolve') {
        for (const [source, targets] of Object.entries(back.changes)) {
          for (const x of onBoard(source)) {
            for (const into of targets) {
              const unused = Object.values(s.cr).some((c) => c.kind === into && c.where === 'supply');
              if (unused) out.push({play: h, creature: x, into});
              else for (const token of onBoard(into)) out.push({play: h, creature: x, into, token});
            }
          }
        }
      } else {
        return null;
      }
    }
    return out;
  }

  // after the blue-tile decision: step 4 if the die's creature is on the board, else the next turn
  function afterBlue(s) {
    if (Object.values(s.cr).some((c) => c.where === 'sea' && c.kind === s.turn.die)) {
      s.turn.step = 'creature';
      s.dec = {kind: 'creature', player: s.turn.player};
      return false;
    }
    return nextTurn(s);
  }

  // --- the API ---------------------------------------------------------------------------------------
  function decision(s) {
    if (!s.dec || s.dec.player !== s.me) return null;
    return {kind: s.dec.kind, prompt: s.g.prompts[s.dec.kind] || s.dec.kind, player: s.dec.player};
  }

  function legal(s) {
    if (!s.dec || s.dec.player !== s.me) return [];
    if (s.phase === 'setup-place' && s.dec.kind === 'setup-place' && s.g.parts.setup) return legalPlace(s);
    if (s.phase === 'setup-boat' && s.dec.kind === 'setup-boat' && s.g.parts.setup) return legalShip(s);
    if (s.phase !== 'play') return null;
    if (s.dec.kind === 'move' && s.g.parts.move) return legalMove(s);
    if (s.dec.kind === 'remove-tile' && s.g.parts.remove) return legalRemove(s);
    if (s.dec.kind === 'play-tile' && s.g.parts.tile) return legalTile(s);
    if (s.g.params.spin) {
      if ((s.dec.kind === 'creature' || s.dec.kind === 'dive') && s.g.parts.spin) return legalSpin(s, s.dec.kind);
      return null;
    }
    if (s.dec.kind === 'creature' && s.g.parts.creature) return legalCreature(s);
    if (s.dec.kind === 'deploy' && s.g.parts.deploy) return legalDeploy(s);
    if (s.dec.kind === 'sunk-move' && s.g.parts.sunk && s.sunk) return legalSunk(s);
    if (s.dec.kind === 'squid-take' && s.g.parts.squid) return legalTake(s);
    if (s.dec.kind === 'dive' && s.g.parts.dive && s.g.params.dive) return legalDive(s);
    if (s.dec.kind === 'blue-tile' && s.g.parts.blue) return legalBlue(s);
    return null;
  }

  const aheadAt = new WeakMap();             // a state -> the orders written ahead at its removal's STOP
  function apply(s, a) {
    const t = copy(s);
    if ('remove' in a) {                     // the tile's back is hidden: the moderator turns it
      // the creature orders written ahead at this STOP: the forms of the removal decision (worked
      // out once for every tile `s` may remove: a state is never changed)
      if (!aheadAt.has(s)) {
        const before = forms(s);             // null: not modelled (nor then at the STOP)
        aheadAt.set(s, before === null ? null : before.filter((f) => f.when === 'ahead'));
      }
      t.dec = null;
      t.ahead = aheadAt.get(s);
      return {state: t, stop: true};
    }
    if (t.dec && t.dec.kind === 'sunk-move') return applySunk(t, a);
    if ('take' in a) {                       // the squid takes the one chosen; the turn goes on (or the die rolls)
      if (t.squid.roll) { t.dec = null; return {state: t, stop: true}; }
      t.squid = null;
      lose(t, [a.take]);
      return {state: t, stop: nextTurn(t)};
    }
    if (t.g.params.spin && ('creature' in a || 'dive' in a)) return applySpin(t, a, 'creature' in a ? 'creature' : 'dive');
    if ('dive' in a) {
      const met = a.dive !== 'none' && doDive(t, a);
      if (met === true) { t.dec = null; return {state: t, stop: true}; }
      if (met) { release(t); return {state: squidTakes(t), stop: false}; }
      release(t);
      const stop = nextTurn(t);
      return {state: t, stop};
    }
    if ('deploy' in a) {                     // a captured creature onto an empty space; with none left, on
      if (a.deploy !== 'none') {
        put(t, 'cr', a.deploy, {where: 'sea', cell: t.g.index[a.to]});
        t.captured[t.me] = t.captured[t.me].filter((h) => h !== a.deploy);
      }
      if (a.deploy !== 'none' && t.captured[t.me].length) return {state: t, stop: false};
      const stop = afterTileStep(t);
      if (stop) t.dec = null;
      return {state: t, stop};
    }
    // (an action's kind is its first key, as in the engine: {play: T3, creature: K1, to: F4} is a play)
    if ('play' in a) {                       // a tile played shows its back: the moderator goes on
      if (a.play !== 'none') { t.dec = null; return {state: t, stop: true}; }
      const stop = t.dec.kind === 'blue-tile' ? afterBlue(t) : afterTileStep(t);
      if (stop) t.dec = null;
      return {state: t, stop};
    }
    if ('creature' in a) {
      const met = a.creature !== 'none' && creatureArrives(t, a.creature, t.g.index[a.to]);
      if (met === true) {
        t.dec = null;
        return {state: t, stop: true};
      }
      if (met) return {state: squidTakes(t), stop: false};
      const stop = nextTurn(t);
      return {state: t, stop};
    }
    let stop = false;
    if ('place' in a) {
      put(t, 'ex', a.place, {where: 'land', cell: t.g.index[a.on], boat: null});
      afterPlacing(t);
    } else if (t.g.params.ship_place_key in a) {
      put(t, 'boats', a[t.g.params.ship_place_key], {where: 'sea', cell: t.g.index[a.at], owner: null});
      afterShip(t);
    } else if ('done' in a) {
      stop = endMoveStep(t);
    } else if ('move' in a || 'fire' in a) {
      stop = 'fire' in a ? capture(t, t.g.index[a.at]) : doMove(t, a);
      if (stop) { t.dec = null; return {state: t, stop}; }      // a steal tile may answer: the moderator goes on
      t.turn.moves += 1;
      if (moveStepOver(t)) stop = endMoveStep(t);
    } else {
      throw new Error(`not modelled: ${JSON.stringify(a)}`);
    }
    if (!stop && t.phase === 'play' && t.g.params.end_when_board_empty && boardEmpty(t)) { gameOver(t); stop = true; }
    release(t);
    return {state: t, stop};
  }

  // a laser turret stands on its tile and is named by it
  const isTurret = (s, h) => h in s.tiles && s.tiles[h].where === 'island' && s.tiles[h].terrain === s.g.params.turret_terrain;

  function spaceOf(s, h) {
    if (h in s.boats) return s.boats[h].cell;
    if (isTurret(s, h)) return s.tiles[h].cell;
    if (h in s.cr) return s.cr[h].cell;
    const e = s.ex[h];
    return e.where === 'boat' ? s.boats[e.boat].cell : e.cell;
  }

  function label(s, cell) {
    return cell == null ? '' : s.g.labels[cell];
  }

  // as the engine's default_places: the piece is the first handle, the space the last label
  function places(s, a) {
    const labels = s.g.index;
    const isPiece = (v) => v in s.ex || v in s.boats || v in s.cr || isTurret(s, v);
    let piece = '', first = null;
    const spaces = [];
    Object.values(a).forEach((v, n) => {
      if (n === 0) first = v;
      if (Array.isArray(v)) { for (const x of v) if (typeof x === 'string' && x in labels) spaces.push(x); }
      else if (typeof v === 'string') {
        if (!piece && isPiece(v)) piece = v;
        else if (v in labels) spaces.push(v);
      }
    });
    const last = spaces.length ? spaces[spaces.length - 1] : '';
    if (piece) return {piece, from: label(s, spaceOf(s, piece)), to: last, tile: ''};
    if (typeof first === 'string' && first in labels && spaces.length === 1) return {piece: '', from: '', to: '', tile: first};
    if (typeof first === 'string' && first && first.toLowerCase() !== 'none' && spaces.length) {
      return {piece: first, from: '', to: last, tile: ''};
    }
    return {piece: '', from: '', to: '', tile: ''};
  }

  // --- words: the engine's own (Game.describe_action: pbem/rules/survive/words.py's phrases, and
  // those the game adds, named in the data's `phrases`; pbem.core.actionwords for the rest)
  function valueWords(v) {
    if (v === null || v === undefined) return 'none';
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (Array.isArray(v)) return v.map(valueWords).join(', ');
    if (typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k} ${valueWords(x)}`).join(', ');
    return String(v);
  }
  function plainWords(a) {
    const text = Object.entries(a).map(([k, v]) => `${k.replace(/_/g, ' ')} ${valueWords(v)}`).join(', ');
    return text.slice(0, 1).toUpperCase() + text.slice(1);
  }
  const truthy = (v) => (Array.isArray(v) ? v.length > 0 : v !== null && typeof v === 'object' ? Object.keys(v).length > 0 : !!v);
  function need(a, k) {            // a key the phrase reads (missing: the action is read plainly)
    if (!(k in a)) throw new Error('no ' + k);
    return String(a[k]);
  }
  const route = (a) => ('to' in a ? ` to ${a.to}` : '') + (truthy(a.path) ? ` along ${valueWords(a.path)}` : '');
  const noneOr = (nothing, some) => (a) => (Object.values(a)[0] === 'none' ? nothing : some(a));
  const PHRASES = {
    place: (a) => `Place ${need(a, 'place')} on ${need(a, 'on')}`,
    play: (a) => {
      if (a.play === 'none') return 'Play no tile';
      const rest = Object.entries(a).filter(([k]) => !['play', 'to', 'path'].includes(k)).map(([k, v]) => `${k} ${valueWords(v)}`);
      return `Play tile ${need(a, 'play')}` + (rest.length ? ': ' + rest.join(', ') : '') + route(a);
    },
    move: (a) => {
      const how = ['swim', 'ride', 'dolphin', 'drift'].filter((k) => truthy(a[k]));
      return `Move ${need(a, 'move')} to ${need(a, 'to')}` + (how.length ? ` (${how.join(', ')})` : '');
    },
    done: (a) => (a.done === 'move' ? 'End your moves' : `Done with ${need(a, 'done')}`),
    remove: (a) => `Remove the tile on ${need(a, 'remove')}` + (truthy(a.board) ? `, boarding ${valueWords(a.board)}` : ''),
    creature: noneOr('Move no creature', (a) => `Move creature ${need(a, 'creature')}` + route(a)),
    defend: noneOr('Do not defend', (a) => `Defend with ${need(a, 'defend')}` + route(a)),
    standing: (a) => `Standing orders: ${valueWords(a.standing)}`,
    boat: (a) => `Put boat ${need(a, 'boat')} on ${need(a, 'at')}`,
    board: (a) => `Board ${valueWords(a.board)}`,
    dive: noneOr('No dive', (a) => `Dive ${need(a, 'dive')}` + route(a) + (truthy(a.protect) ? `, protecting ${a.protect}` : '')),
    protect: (a) => `Protect ${need(a, 'protect')}`,
    squid: (a) => `Put squid ${need(a, 'squid')} on ${need(a, 'at')}`,
    take: (a) => `Take ${need(a, 'take')}`,
    pod: (a) => `Launch escape pod ${need(a, 'pod')} at ${need(a, 'at')}`,
    deploy: (a) => (a.deploy === 'none' ? 'Deploy no fighter' : `Deploy ${need(a, 'deploy')}` + ('to' in a ? ` to ${a.to}` : '')),
    fire: (a) => `Fire turret ${need(a, 'fire')} at ${need(a, 'at')}`,
    steal: (a) => (a.steal === 'none' ? 'Steal nothing' : `Steal tile ${need(a, 'steal')}`),
  };
  function words(s, a) {
    const kinds = Object.keys(a);
    if (!kinds.length) return 'Nothing';
    const phrase = (s.g.phrases || []).includes(kinds[0]) ? PHRASES[kinds[0]] : undefined;
    if (phrase !== undefined) {
      try { return phrase(a); } catch (e) { /* read plainly */ }
    }
    return plainWords(a);
  }

  function pieces(s) {
    const out = [];
    for (const [h, t] of Object.entries(s.tiles)) {
      if (t.where === 'island') out.push({handle: h, shape: 'tile', owner: '', cell: label(s, t.cell), label: t.terrain, aboard: '', value: null});
    }
    for (const [h, b] of Object.entries(s.boats)) {
      if (b.where === 'sea') out.push({handle: h, shape: 'ship', owner: '', cell: label(s, b.cell), label: h, aboard: '', value: null});
    }
    for (const [h, c] of Object.entries(s.cr)) {
      if (c.where === 'sea') out.push({handle: h, shape: c.kind, owner: '', cell: label(s, c.cell), label: h, aboard: '', value: null});
    }
    for (const [h, e] of Object.entries(s.ex)) {
      if (!ON_BOARD[e.where] && e.where !== 'isle') continue;
      out.push({handle: h, shape: 'person', owner: e.owner, cell: label(s, spaceOf(s, h)), label: h,
                aboard: e.where === 'boat' ? e.boat : '', value: e.value});
    }
    return out;
  }

  // the standing orders' forms (as the data gives them) and, at the removal, the creature order
  // for each face written ahead; null where the model does not know step 4's choices
  function forms(s) {
    const standing = s.g.standing.map((f) => JSON.parse(JSON.stringify(f)));
    const removing = s.phase === 'play' && s.dec && s.dec.kind === 'remove-tile' && s.dec.player === s.me
      && s.turn.player === s.me && s.g.params.ahead_faces.length;
    if (s.ahead !== undefined) {            // at the removal's STOP
      return s.ahead === null ? null : [...standing, ...s.ahead.map((f) => JSON.parse(JSON.stringify(f)))];
    }
    if (!removing) return standing;
    if (!s.g.parts.ahead) return null;
    return [...standing, aheadForm(s)];
  }

  // the page's data-choices (docs/turn-model.md): "complete" (every path ends the player's part),
  // "stop" (some end at a roll or a hidden value) or "cut" (somewhere the choices are not known).
  // The page explores at most `cap` states; the states of a movement step are explored once per
  // what can change the answer (moveKey), which keeps a whole mid-game turn within the cap
  // (`merge` false: every state, for the proof that merging changes no answer).
  function choices(s0, cap = 2000, merge = true) {
    let seen = 0, stop = false;
    const queue = [s0], merged = new Set();
    while (queue.length && seen < cap) {
      const s = queue.pop();
      seen++;
      if (decision(s) === null) continue;
      const acts = legal(s);
      if (acts === null) return 'cut';
      for (const a of acts) {
        const out = apply(s, a);
        if (out.stop) { stop = true; continue; }
        const key = merge ? moveKey(out.state) : null;
        if (key !== null) {
          if (merged.has(key)) continue;
          merged.add(key);
        }
        queue.push(out.state);
      }
    }
    return queue.length ? 'cut' : stop ? 'stop' : 'complete';
  }

  // In the player's own movement step whether the choices are known depends only on the tiles in
  // their hand (legalMove is null only through handPlays; the core moves are always listed), and
  // every way out of the step leads on alike whatever moved where: to the removal (always listed,
  // and a STOP), a STOP, or the end of the game.  So movement states with the same turn, moves
  // made and hand answer alike; null for any other state (explored one by one).
  function moveKey(s) {
    if (s.phase !== 'play' || !s.dec || s.dec.kind !== 'move' || s.dec.player !== s.me) return null;
    const hand = Object.keys(s.tiles).filter((h) => s.tiles[h].where === 'hand' && s.tiles[h].holder === s.me).sort()
      .map((h) => [h, s.tiles[h].back, s.tiles[h].obtained || 0]);
    return JSON.stringify([s.turn.number, s.turn.moves, s.sunk || null, hand]);
  }

  PBEM_MODELS.survive = {start, decision, legal, apply, words, places, pieces, forms, choices};
})();
