// The node side of tests/turnmodel/harness.py: runs turn models (templates/turnmodel/*.js) over
// JSON lines on stdin/stdout, one request a line, one answer a line, in order.
//
//   node runner.js [--loose] [--frozen] MODEL.js [MODEL.js ...]
//
// Each model file is run as a plain script (as the page embeds it) after `PBEM_MODELS = {}`
// exists, and registers itself as PBEM_MODELS[family].  A request is
//   {"op": OP, ...arguments}                  -> {"ok": result} or {"error": "message\nstack"}
// with OP one of
//   start    {family, data, view, player}   -> a state handle (a number)
//   decision {s}  legal {s}  pieces {s}  forms {s}     -> the model's answer for state s
//   apply    {s, action}                    -> {state: a new handle, stop}
//   words    {s, action}  places {s, action}            -> the model's answer
//   state    {s}                            -> the state itself (JSON)
//   drop     {s: [handles] or a handle}     -> null (forget them)
//   batch    {calls: [request, ...]}        -> [answer, ...] (each {"ok"} or {"error"}); in a batch, a
//                                              call's `s` may be {made: i}: the state the batch's i-th
//                                              call made (start's handle, apply's state), so that a state
//                                              is applied and looked at in one exchange
//   families {}                             -> {family: [the names of its functions]}
//   method   {s, name, args}                -> model[name](state, ...args): a family's own extension
//                                              (e.g. swarm's counts/counted/view), not the core API
//   explore  {s, cap}                       -> the answer of a page exploring the turn from s state
//                                              by state (no state merged), from the core API (below)
//   listed   {s, ops}                       -> [legal, answers]: the model's legal actions and, for
//                                              each op of ops (words, places), its answer for every
//                                              listed action (as JSON gives it: a copy), in one
//                                              answer ([null, null] where legal is null; answers
//                                              is {error} if one of them throws); with expect,
//                                              a JSON text's digest (or null) for each part (legal,
//                                              then each op's list), a part written exactly so: true
//   pieces_as_fresh {s, family, data, view, player, blank}
//                                           -> null when state s's pieces are those of a model started
//                                              afresh from (data, view, player) (as the page starts one:
//                                              the state not kept), as JSON writes them (blank: each
//                                              piece's value left out of the comparison), else both
//                                              lists {got, want} for the caller to compare
// A request may carry `expect`, the sha256 (hex) of a JSON text: the answer is then {"same": true}
// where the result's JSON.stringify has exactly that digest (so it is that text: the caller need not
// send the text nor read the result back), else {"ok"} as usual (the caller compares the values
// itself: the same value may be written in another key order, and it shows what differs).
// With --frozen, a request may carry `kept`, {field: {keys, sent, base}}: the field's value is the
// object with those keys in that order, the values of `sent` as sent and every other one the value
// the field last had under that key (a request's value is kept, deeply frozen, for the next: so the
// caller sends only what changed, e.g. the view of the next state); `base` counts the values the
// field had before, so that a caller out of step is an error, not another value.
// Unless --loose, the runner checks the API's promises on every apply: the state given is not
// changed (it is still the JSON it was stored as: no call on it changed it since), and the state
// returned is plain JSON (it is stored as its JSON round trip, so a model relying on anything
// else fails).  With --frozen (for models written in strict mode: each file is run as strict code),
// a value the new state shares with the given one, just found unchanged, is frozen, deeply: a model
// writing to it throws there and then, and the check of a later apply need not write it again.
'use strict';
const fs = require('fs');
const vm = require('vm');
const readline = require('readline');
const crypto = require('crypto');

const args = process.argv.slice(2);
const strict = !args.includes('--loose');
const frozen = strict && args.includes('--frozen');
globalThis.PBEM_MODELS = {};
for (const file of args.filter((a) => a !== '--loose' && a !== '--frozen')) {
  const code = fs.readFileSync(file, 'utf8');
  // (strict code throws where it writes to a frozen value; the directive keeps the lines' numbers)
  vm.runInThisContext(frozen ? `'use strict';${code}` : code, {filename: file});
}

const states = new Map();   // handle -> {model, state, json}
let nextHandle = 1;

// json (strict): what the stored state's JSON was when it was stored (below)
function keep(model, state, json = null) {
  const handle = nextHandle++;
  states.set(handle, {model, state, json});
  return handle;
}

function held(handle) {
  const entry = states.get(handle);
  if (!entry) throw new Error(`no state ${handle} (dropped, or never made)`);
  return entry;
}

// Strict: a state is stored as its JSON round trip, an object value by value (its own values, as
// JSON.stringify writes it), with each value's JSON kept (json: {keys, texts, values}; any other
// state: {whole}) to check later that it is unchanged.  A value of the new state that is the given
// state's own value (a model's copy shares what it does not change, e.g. survive's geometry `g`),
// just found unchanged, is stored as it is with its JSON (a later change to it is caught as well;
// --frozen: it is frozen, so it cannot change).
const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) &&
  Object.getPrototypeOf(v) === Object.prototype && typeof v.toJSON !== 'function';

function stored(model, value, what, from = null) {
  if (!isRecord(value)) {
    const whole = JSON.stringify(value);
    if (whole === undefined) throw new Error(`${what} is not JSON`);
    return keep(model, JSON.parse(whole), {whole});
  }
  const state = {}, keys = [], texts = [], values = [];
  const shared = from !== null && from.json.keys ? new Map(from.json.keys.map((k, i) => [k, from.json.texts[i]])) : null;
  for (const key of Object.keys(value)) {
    const v = value[key];
    let text = shared !== null && v === from.state[key] ? shared.get(key) : undefined;
    if (text !== undefined) {
      state[key] = v;
      if (frozen) freeze(v);
    } else {
      text = JSON.stringify(v);
      if (text === undefined) continue;          // not JSON: left out, as JSON.stringify does
      state[key] = JSON.parse(text);
    }
    keys.push(key);
    texts.push(text);
    values.push(state[key]);
  }
  return keep(model, state, {keys, texts, values});
}

// --frozen: the values frozen with everything in them (a value in it cannot change)
const sealed = new WeakSet();
function freeze(v) {
  if (v === null || typeof v !== 'object' || sealed.has(v)) return;
  for (const x of Object.values(v)) freeze(x);
  Object.freeze(v);
  sealed.add(v);
}

// whether a stored state is still the JSON it was stored as
// (a value frozen with everything in it, still the one stored under its key, is the same JSON)
function unchanged(e) {
  const {keys, texts, values, whole} = e.json;
  if (!keys) return JSON.stringify(e.state) === whole;
  if (!isRecord(e.state)) return false;
  let n = 0;
  for (const key of Object.keys(e.state)) {
    const v = e.state[key];
    if (n < keys.length && v === values[n] && sealed.has(v)) {
      if (key !== keys[n]) return false;
      n++;
      continue;
    }
    const text = JSON.stringify(v);
    if (text === undefined) continue;
    if (key !== keys[n] || text !== texts[n]) return false;
    n++;
  }
  return n === keys.length;
}

// the sha256 (hex) of a JSON text, as `expect` carries it (undefined: no JSON at all)
const digest = (text) => (text === undefined ? undefined : crypto.createHash('sha256').update(text, 'utf8').digest('hex'));

// field -> {values: Map key -> the deeply frozen value the field last had under it, count}
const kept = new Map();

// the request's `kept` fields made whole (see the head of this file)
function unkept(request) {
  if (!frozen) throw new Error('kept fields need --frozen (their values are shared, frozen)');
  const out = {...request};
  delete out.kept;
  for (const [field, part] of Object.entries(request.kept)) {
    const had = kept.get(field) || {values: new Map(), count: 0};
    if (part.base !== had.count) throw new Error(`kept ${field}: the caller counts ${part.base} values, the runner ${had.count}`);
    const value = {}, values = new Map();
    for (const key of part.keys) {
      let v;
      if (Object.prototype.hasOwnProperty.call(part.sent, key)) freeze(v = part.sent[key]);
      else if (had.values.has(key)) v = had.values.get(key);
      else throw new Error(`kept ${field}: no value kept under ${JSON.stringify(key)}`);
      value[key] = v;
      values.set(key, v);
    }
    kept.set(field, {values, count: had.count + 1});
    out[field] = value;
  }
  return out;
}

const CORE = ['start', 'decision', 'legal', 'apply', 'words', 'places', 'pieces', 'forms'];

const OPS = {
  start(r) {
    const model = PBEM_MODELS[r.family];
    if (!model) throw new Error(`no model ${JSON.stringify(r.family)}: loaded ${Object.keys(PBEM_MODELS).join(', ')}`);
    const state = model.start(r.data, r.view, r.player);
    return strict ? stored(model, state, 'the state start made') : keep(model, state);
  },
  decision: (r) => { const e = held(r.s); return e.model.decision(e.state); },
  legal: (r) => { const e = held(r.s); return e.model.legal(e.state); },
  pieces: (r) => { const e = held(r.s); return e.model.pieces(e.state); },
  forms: (r) => { const e = held(r.s); return e.model.forms(e.state); },
  words: (r) => { const e = held(r.s); return e.model.words(e.state, r.action); },
  places: (r) => { const e = held(r.s); return e.model.places(e.state, r.action); },
  state: (r) => held(r.s).state,
  apply(r) {
    const e = held(r.s);
    const out = e.model.apply(e.state, r.action);
    // the state given is still the JSON it was stored as (so no call on it since changed it either)
    if (strict && !unchanged(e)) throw new Error('apply changed the state it was given (or a call on that state before it did)');
    if (!out || typeof out.stop !== 'boolean') throw new Error('apply must return {state, stop: true|false}');
    return {state: strict ? stored(e.model, out.state, 'the state apply made', e) : keep(e.model, out.state),
            stop: out.stop};
  },
  method(r) {
    const e = held(r.s);
    if (CORE.includes(r.name) || typeof e.model[r.name] !== 'function' ||
        !Object.prototype.hasOwnProperty.call(e.model, r.name)) throw new Error(`no extension ${JSON.stringify(r.name)}`);
    return e.model[r.name](e.state, ...(r.args || []));
  },
  explore: (r) => { const e = held(r.s); return explore(e.model, e.state, r.cap); },
  listed(r) {
    const e = held(r.s);
    const legal = e.model.legal(e.state);
    if (legal === null) return [null, null];
    const actions = JSON.parse(JSON.stringify(legal));
    let each;
    try {
      each = r.ops.map((op) => {
        if (op !== 'words' && op !== 'places') throw new Error(`listed: no op ${JSON.stringify(op)}`);
        return actions.map((a) => e.model[op](e.state, a));
      });
    } catch (err) {
      each = {error: `${err && err.message}\n${err && err.stack}`};
    }
    const out = [legal, ...(Array.isArray(each) ? each : [])];
    // expect: a JSON text's digest (or null) for each part (legal, then each op's answers): a part
    // written exactly as that text is answered true (no part is ever true itself)
    if (Array.isArray(r.expect)) {
      for (let i = 0; i < out.length; i++) {
        if (typeof r.expect[i] === 'string' && digest(JSON.stringify(out[i])) === r.expect[i]) out[i] = true;
      }
    }
    return [out[0], Array.isArray(each) ? out.slice(1) : each];
  },
  // the fresh model is started as the page starts one (its state used as start made it: not kept,
  // so neither stored nor its JSON round trip made; a state start makes that is not a plain
  // object is stored as `start` stores it, so that what is not JSON fails as there)
  pieces_as_fresh(r) {
    const model = PBEM_MODELS[r.family];
    if (!model) throw new Error(`no model ${JSON.stringify(r.family)}: loaded ${Object.keys(PBEM_MODELS).join(', ')}`);
    const e = held(r.s);
    let fresh = model.start(r.data, r.view, r.player);
    if (!isRecord(fresh)) {
      const handle = stored(model, fresh, 'the state start made');
      fresh = held(handle).state;
      states.delete(handle);
    }
    const got = e.model.pieces(e.state), want = model.pieces(fresh);
    const text = (pieces) => JSON.stringify(r.blank ? pieces.map((p) => ({...p, value: null})) : pieces);
    return text(got) === text(want) ? null : {got, want};
  },
  drop(r) { for (const h of [].concat(r.s)) states.delete(h); return null; },
  batch(r) {
    const out = [];
    for (const call of r.calls) out.push(answer(call, out));
    return out;
  },
  families: () => Object.fromEntries(Object.entries(PBEM_MODELS).map(
    ([name, model]) => [name, Object.keys(model).filter((k) => typeof model[k] === 'function').sort()])),
};

// The page's data-choices worked out from the core API alone, every state one by one (no two
// merged): a page explores depth first and takes at most `cap` states from its stack; it answers
// "cut" where `legal` is null in a state taken or states are left at the cap, else "stop" where an
// action stops (a STOP ends that path), else "complete".  That answer depends only on the tree of
// the turn's paths: when the tree has at most `cap` states every one is taken, whatever the order
// (the stack empties only when every state found was taken), so the answer is "cut" if `legal` is
// null anywhere in it, else "stop" if any action stops, else "complete"; when it has more, states
// are left at the cap: "cut".  So any order of taking states gives the page's answer, and here the
// states whose decision kind has most often led on to a state (not a STOP) are taken first, the
// earliest found first (breadth first: a turn's last moves mostly STOP): a tree over the cap is
// found to be over it after few `apply` calls (each copies the state) instead of up to 100,000.
function explore(model, s0, cap) {
  let found = 1, stop = false;
  const waiting = new Map();                // decision kind -> states found, not yet taken
  const led = new Map();                    // decision kind -> [actions applied, of them STOPs]
  const put = (s) => {
    const d = model.decision(s);
    if (d === null) return;                 // the player's part is over: nothing to take
    if (!waiting.has(d.kind)) waiting.set(d.kind, []);
    waiting.get(d.kind).push(s);
  };
  const stops = (kind) => { const n = led.get(kind); return n ? n[1] / n[0] : 0; };
  put(s0);
  for (;;) {
    let kind = null;
    for (const [k, states] of waiting) if (states.length && (kind === null || stops(k) < stops(kind))) kind = k;
    if (kind === null) return stop ? 'stop' : 'complete';
    const s = waiting.get(kind).shift();
    const acts = model.legal(s);
    if (acts === null) return 'cut';
    if (!led.has(kind)) led.set(kind, [0, 0]);
    for (const a of acts) {
      const out = model.apply(s, a);
      led.get(kind)[0]++;
      if (out.stop) { stop = true; led.get(kind)[1]++; continue; }
      if (++found > cap) return 'cut';
      put(out.state);
    }
  }
}

// the handle of the state made by the call `i` of a batch, whose answers so far are `earlier`
function madeBy(earlier, i) {
  const a = Number.isInteger(i) && i >= 0 && i < earlier.length ? earlier[i] : null;
  const h = a === null || !('ok' in a) ? undefined : typeof a.ok === 'number' ? a.ok : a.ok && a.ok.state;
  if (typeof h !== 'number') throw new Error(`no state made by call ${JSON.stringify(i)} of the batch`);
  return h;
}

function answer(request, earlier = null) {
  try {
    if (isRecord(request.kept)) request = unkept(request);
    if (earlier !== null && isRecord(request.s)) request = {...request, s: madeBy(earlier, request.s.made)};
    const op = Object.prototype.hasOwnProperty.call(OPS, request.op) ? OPS[request.op] : null;
    if (!op) throw new Error(`unknown op ${JSON.stringify(request.op)}`);
    const result = op(request);
    if (typeof request.expect === 'string' && digest(JSON.stringify(result)) === request.expect) return {same: true};
    return {ok: result === undefined ? null : result};
  } catch (err) {
    return {error: `${err && err.message}\n${err && err.stack}`};
  }
}

const lines = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
lines.on('line', (line) => {
  let request;
  try { request = JSON.parse(line); } catch (err) { request = {op: null}; }
  process.stdout.write(JSON.stringify(answer(request)) + '\n');
});
