// Unit tests of the RN adapter's pure parts, plus the core against an in-memory socket.
// Run: node --test tests/rn/      (tests/test_rn_adapter_js.py runs it under pytest)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyPatch,
  createAdapter,
  diff,
  encode,
  parsePath,
  planResume,
  reduxCollector,
  navigationCollector,
  mmkvCollector,
  resolvePath,
  RingBuffer,
  utf8Length,
  adapterUrl,
} from '../../backends/rn/adapter/index.js';
import { changedKeys, escapePointer } from '../../backends/rn/adapter/patch.js';
import { FakeMMKV, FakeNavigationRef } from './fake-app.mjs';

// ----- encode ------------------------------------------------------------------------------------------------------

test('encode: JSON values pass through unchanged', () => {
  const v = { a: 1, b: 'x', c: [true, null, { d: -0.5 }] };
  assert.deepEqual(encode(v), v);
});

test('encode: non-JSON values become $t tags', () => {
  class Decimal {
    constructor() {
      this.v = '1.5';
    }
  }
  const e = encode({
    u: undefined,
    nan: NaN,
    inf: Infinity,
    ninf: -Infinity,
    big: 100000000000000000000n,
    d: new Date(0),
    bad: new Date(NaN),
    m: new Map([['k', 1]]),
    s: new Set(['a', 'b']),
    f: function onPress() {},
    sym: Symbol('x'),
    re: /a+/g,
    buf: new Uint8Array(16),
    ab: new ArrayBuffer(8),
    inst: new Decimal(),
  });
  assert.deepEqual(e.u, { $t: 'undefined' });
  assert.deepEqual(e.nan, { $t: 'number', v: 'NaN' });
  assert.deepEqual(e.inf, { $t: 'number', v: 'Infinity' });
  assert.deepEqual(e.ninf, { $t: 'number', v: '-Infinity' });
  assert.deepEqual(e.big, { $t: 'bigint', v: '100000000000000000000' });
  assert.deepEqual(e.d, { $t: 'date', v: '1970-01-01T00:00:00.000Z' });
  assert.deepEqual(e.bad, { $t: 'date', v: 'Invalid Date' });
  assert.deepEqual(e.m, { $t: 'map', size: 1, v: [['k', 1]] });
  assert.deepEqual(e.s, { $t: 'set', size: 2, v: ['a', 'b'] });
  assert.deepEqual(e.f, { $t: 'function', name: 'onPress' });
  assert.deepEqual(e.sym, { $t: 'symbol', v: 'Symbol(x)' });
  assert.deepEqual(e.re, { $t: 'regexp', v: '/a+/g' });
  assert.deepEqual(e.buf, { $t: 'bytes', len: 16 });
  assert.deepEqual(e.ab, { $t: 'bytes', len: 8 });
  assert.deepEqual(e.inst, { $t: 'instance', cls: 'Decimal', v: { v: '1.5' } });
  JSON.parse(JSON.stringify(e)); // all plain JSON now
});

test('encode: errors keep name, message and the first stack lines', () => {
  const err = new TypeError('nope');
  const e = encode(err, { limits: { stackLines: 2 } });
  assert.equal(e.$t, 'error');
  assert.equal(e.name, 'TypeError');
  assert.equal(e.message, 'nope');
  assert.equal(e.stack.split('\n').length, 2);
});

test('encode: an object with its own $t / $trunc key is wrapped', () => {
  assert.deepEqual(encode({ x: { $t: 'date', v: 1 } }), { x: { $t: 'object', v: { $t: 'date', v: 1 } } });
  assert.deepEqual(encode({ $trunc: 1 }), { $t: 'object', v: { $trunc: 1 } });
});

test('encode: circular references point at the ancestor path', () => {
  const a = { user: { name: 'x' }, list: [] };
  a.user.self = a.user;
  a.list.push(a);
  const e = encode(a);
  assert.deepEqual(e.user.self, { $t: 'circular', ref: '$.user' });
  assert.deepEqual(e.list[0], { $t: 'circular', ref: '$' });
  // A shared (not circular) object is encoded twice, not marked.
  const shared = { k: 1 };
  assert.deepEqual(encode({ a: shared, b: shared }), { a: { k: 1 }, b: { k: 1 } });
});

test('encode: strings, arrays, objects and depth are truncated with markers', () => {
  const e = encode(
    { s: 'y'.repeat(5000), arr: Array.from({ length: 250 }, (_, i) => i), obj: Object.fromEntries(Array.from({ length: 210 }, (_, i) => [`k${i}`, i])) },
    {},
  );
  assert.deepEqual(e.s, { $trunc: 'string', len: 5000, head: 'y'.repeat(256) });
  assert.equal(e.arr.length, 201);
  assert.deepEqual(e.arr[200], { $trunc: 'array', len: 250, kept: 200 });
  assert.equal(e.arr[199], 199);
  assert.deepEqual(e.obj.$trunc, { type: 'keys', len: 210, kept: 200 });
  assert.equal(Object.keys(e.obj).length, 201);
  let deep = { leaf: 1 };
  for (let i = 0; i < 20; i++) deep = { n: deep };
  let cur = encode(deep);
  let levels = 0;
  while (cur.n && !cur.n.$trunc) {
    cur = cur.n;
    levels++;
  }
  assert.deepEqual(cur.n, { $trunc: 'depth', type: 'object', size: 1 });
  assert.equal(levels, 11); // containers at depth 0..11 expanded, the one at depth 12 is a marker
  const small = encode({ a: [[1]] }, { limits: { maxDepth: 2 } });
  assert.deepEqual(small, { a: [{ $trunc: 'depth', type: 'array', size: 1 }] });
});

test('encode: redacted keys and throwing getters', () => {
  const o = { password: 'hunter2', nested: { Token: 'abc', ok: 1 } };
  Object.defineProperty(o, 'boom', {
    enumerable: true,
    get() {
      throw new Error('getter');
    },
  });
  const e = encode(o, { redact: (k) => /^(password|token)$/i.test(k) });
  assert.deepEqual(e.password, { $t: 'redacted' });
  assert.deepEqual(e.nested, { Token: { $t: 'redacted' }, ok: 1 });
  assert.equal(e.boom.$t, 'error');
  assert.equal(e.boom.message, 'getter');
});

test('utf8Length counts UTF-8 bytes', () => {
  assert.equal(utf8Length('abc'), 3);
  assert.equal(utf8Length('é'), 2);
  assert.equal(utf8Length('€'), 3);
  assert.equal(utf8Length('😀'), 4);
  assert.equal(utf8Length('a😀é'), Buffer.byteLength('a😀é'));
});

// ----- patch -------------------------------------------------------------------------------------------------------

/** The invariant the server relies on: encoded(a) + diff(a, b) == encoded(b). */
function roundTrip(a, b, opts = {}) {
  const ops = diff(a, b, opts);
  assert.ok(ops, 'patch within the cap');
  assert.deepEqual(applyPatch(encode(a, opts), ops), encode(b, opts));
  return ops;
}

test('patch: add / remove / replace on objects and arrays, with pointer escaping', () => {
  const a = { x: 1, gone: true, list: [1, 2, 3], 'a/b': { '~k': 1 } };
  const b = { x: 2, list: [1, 5], 'a/b': { '~k': 2 }, added: { n: [1] } };
  const ops = roundTrip(a, b);
  assert.deepEqual(
    ops.find((o) => o.path === '/a~1b/~0k'),
    { op: 'replace', path: '/a~1b/~0k', value: 2 },
  );
  assert.ok(ops.some((o) => o.op === 'remove' && o.path === '/gone'));
  assert.ok(ops.some((o) => o.op === 'remove' && o.path === '/list/2'));
  assert.ok(ops.some((o) => o.op === 'add' && o.path === '/added'));
  roundTrip([1, 2], [1, 2, 3, 4]);
  roundTrip({ a: 1 }, null);
  roundTrip(undefined, { a: 1 });
  assert.equal(escapePointer('a~/b'), 'a~0~1b');
});

test('patch: reference-equal sub-trees are skipped; no change is []', () => {
  const big = { items: Array.from({ length: 150 }, (_, i) => ({ id: i, text: `t${i}` })) };
  const a = { big, small: { n: 1 } };
  const b = { big, small: { n: 2 } };
  assert.deepEqual(diff(a, b), [{ op: 'replace', path: '/small/n', value: 2 }]);
  assert.deepEqual(diff(a, a), []);
  assert.deepEqual(diff({ d: new Date(5) }, { d: new Date(5) }), []); // equal encodings
});

test('patch: non-JSON values and truncated parts are replaced by their encoding', () => {
  roundTrip({ m: new Map([['a', 1]]) }, { m: new Map([['a', 2]]) });
  roundTrip({ s: 'short' }, { s: 'z'.repeat(6000) });
  roundTrip({ arr: Array.from({ length: 199 }, (_, i) => i) }, { arr: Array.from({ length: 205 }, (_, i) => i) }, { limits: { maxPatchBytes: 1e6 } });
  roundTrip({ o: { $t: 'x' } }, { o: { $t: 'y' } });
  let deepA = { v: 1 };
  let deepB = { v: 2 };
  for (let i = 0; i < 15; i++) {
    deepA = { n: deepA };
    deepB = { n: deepB };
  }
  roundTrip(deepA, deepB);
  const c = { name: 'c' };
  c.self = c;
  roundTrip({ c: { name: 'c' } }, { c });
});

test('patch: redacted keys never carry values', () => {
  const redact = (k) => k === 'password';
  const ops = roundTrip({ auth: { password: 'a' } }, { auth: { password: 'b', user: { password: 'c' } } }, { redact });
  assert.ok(!JSON.stringify(ops).includes('"c"'));
  assert.deepEqual(ops, [{ op: 'add', path: '/auth/user', value: { password: { $t: 'redacted' } } }]);
});

test('patch: over maxPatchBytes / maxPatchOps the patch is null', () => {
  const a = { s: '' };
  const b = { s: 'q'.repeat(3000) };
  assert.equal(diff(a, b, { limits: { maxPatchBytes: 1000 } }), null);
  const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
  assert.equal(diff({}, many, { limits: { maxPatchOps: 10 } }), null);
  assert.equal(diff({}, many).length, 50);
});

test('changedKeys: top-level keys that changed by reference', () => {
  const s = { a: { x: 1 }, b: { y: 2 } };
  assert.deepEqual(changedKeys(s, { ...s, b: { y: 2 } }), ['b']);
  assert.deepEqual(changedKeys(s, { a: s.a }), ['b']);
  assert.deepEqual(changedKeys(s, s), []);
});

// ----- ring buffer, resume planning, paths -----------------------------------------------------------------------

test('ring buffer: seq order, eviction, oldestSeq, since()', () => {
  const r = new RingBuffer(3);
  assert.equal(r.oldestSeq, 1);
  assert.equal(r.lastSeq, 0);
  for (let seq = 1; seq <= 5; seq++) r.push({ seq });
  assert.equal(r.size, 3);
  assert.equal(r.evicted, 2);
  assert.equal(r.oldestSeq, 3);
  assert.equal(r.lastSeq, 5);
  assert.deepEqual(r.since(0).map((e) => e.seq), [3, 4, 5]);
  assert.deepEqual(r.since(3).map((e) => e.seq), [4, 5]);
  assert.deepEqual(r.since(5), []);
  assert.equal(r.fill, 1);
  assert.throws(() => new RingBuffer(0));
});

test('planResume: nothing, replay only, gap + replay, everything evicted', () => {
  // server has everything
  assert.deepEqual(planResume({ oldestSeq: 1, lastSeq: 10 }, 10), { gap: null, replayFrom: null });
  assert.deepEqual(planResume({ oldestSeq: 1, lastSeq: 0 }, 0), { gap: null, replayFrom: null });
  // server is behind, the buffer still has what it lacks
  assert.deepEqual(planResume({ oldestSeq: 1, lastSeq: 10 }, 4), { gap: null, replayFrom: 5 });
  assert.deepEqual(planResume({ oldestSeq: 5, lastSeq: 10 }, 4), { gap: null, replayFrom: 5 });
  // part of it was evicted
  assert.deepEqual(planResume({ oldestSeq: 61, lastSeq: 100 }, 50), { gap: { from: 51, to: 60 }, replayFrom: 61 });
  // a new server session (resume 0) after eviction
  assert.deepEqual(planResume({ oldestSeq: 61, lastSeq: 100 }, 0), { gap: { from: 1, to: 60 }, replayFrom: 61 });
  // missing / bad cursor = 0; a cursor ahead of us = nothing to do
  assert.deepEqual(planResume({ oldestSeq: 1, lastSeq: 3 }, undefined), { gap: null, replayFrom: 1 });
  assert.deepEqual(planResume({ oldestSeq: 1, lastSeq: 3 }, 7), { gap: null, replayFrom: null });
});

test('parsePath / resolvePath: dots, brackets, JSON Pointer, Maps, misses', () => {
  assert.deepEqual(parsePath('auth.user.role'), ['auth', 'user', 'role']);
  assert.deepEqual(parsePath('items[0].name'), ['items', '0', 'name']);
  assert.deepEqual(parsePath('a["b.c"].d'), ['a', 'b.c', 'd']);
  assert.deepEqual(parsePath('/a~1b/0'), ['a/b', '0']);
  assert.deepEqual(parsePath(''), []);
  const root = { items: [{ name: 'n' }], m: new Map([['k', { v: 1 }]]), u: undefined };
  assert.deepEqual(resolvePath(root, parsePath('items[0].name')), { found: true, value: 'n' });
  assert.deepEqual(resolvePath(root, parsePath('m.k.v')), { found: true, value: 1 });
  assert.deepEqual(resolvePath(root, parsePath('u')), { found: true, value: undefined });
  assert.deepEqual(resolvePath(root, parsePath('items.3')), { found: false, at: 'items', missing: '3' });
  assert.equal(resolvePath(root, ['items', 'length']).found, false);
});

test('adapterUrl: explicit host, Metro bundle host, default', () => {
  assert.equal(adapterUrl({}), 'ws://127.0.0.1:19850/adapter');
  assert.equal(adapterUrl({ scriptURL: 'http://192.168.1.20:8081/index.bundle?platform=ios' }), 'ws://192.168.1.20:19850/adapter');
  assert.equal(adapterUrl({ host: '10.0.2.2', port: 1 }), 'ws://10.0.2.2:1/adapter');
});

// ----- the core against an in-memory socket --------------------------------------------------------------------------

class MemSocket {
  static all = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.bufferedAmount = 0;
    MemSocket.all.push(this);
    queueMicrotask(() => {
      this.readyState = 1;
      this.onopen && this.onopen({});
    });
  }
  send(s) {
    this.sent.push(JSON.parse(s));
  }
  close(code = 1000, reason = '') {
    if (this.readyState === 3) return;
    this.readyState = 3;
    queueMicrotask(() => this.onclose && this.onclose({ code, reason }));
  }
  // server side
  deliver(msg) {
    this.onmessage && this.onmessage({ data: JSON.stringify({ v: 1, ...msg }) });
  }
  frames(t) {
    return this.sent.filter((m) => m.t === t);
  }
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function makeAdapter(extra = {}) {
  MemSocket.all = [];
  const statuses = [];
  const adapter = createAdapter({
    WebSocket: MemSocket,
    url: 'ws://127.0.0.1:1/adapter',
    token: 'T',
    app: { name: 'unit' },
    limits: { batchMs: 5, backoffInitialMs: 5, backoffMaxMs: 20, ...(extra.limits || {}) },
    onStatus: (s) => statuses.push(s),
    ...extra.options,
  });
  return { adapter, statuses };
}

test('core: hello lists streams, limits, capabilities; events wait for welcome, then batch', async () => {
  const { adapter } = makeAdapter({ limits: { batchMax: 4 } });
  adapter.registerStream('s', { kinds: ['k'], read: () => ({ n: 1 }) });
  adapter.emit('s', 'k', { i: 0 }); // before the connection exists
  adapter.start();
  await tick();
  const ws = MemSocket.all[0];
  const [hello] = ws.sent;
  assert.equal(hello.t, 'hello');
  assert.equal(hello.token, 'T');
  assert.deepEqual(hello.protocol, { min: 1, max: 1 });
  assert.deepEqual(hello.streams, [{ name: 's', lastSeq: 1, oldestSeq: 1, snapshot: true, kinds: ['k'] }]);
  assert.ok(hello.capabilities.includes('patch'));
  assert.equal(hello.limits.bufferSize, 500);
  assert.equal(typeof hello.startedAt, 'number');
  adapter.emit('s', 'k', { i: 1 }); // while handshaking: replayed after welcome
  assert.equal(ws.sent.length, 1);
  ws.deliver({ t: 'welcome', protocol: 1, resume: { s: 0 }, limits: { maxMessageBytes: 100000 } });
  assert.equal(adapter.status, 'live');
  assert.equal(adapter.limits.maxMessageBytes, 100000);
  const [ev, snap] = ws.sent.slice(1);
  assert.equal(ev.t, 'events');
  assert.equal(ev.replay, true);
  assert.deepEqual(ev.items.map((i) => [i.seq, i.g]), [[1, 1], [2, 2]]);
  assert.equal(snap.t, 'snapshot');
  assert.equal(snap.seq, 2);
  assert.deepEqual(snap.data, { n: 1 });
  for (let i = 0; i < 6; i++) adapter.emit('s', 'k', { i });
  const live = ws.frames('events').slice(1);
  assert.equal(live.length, 1, 'the first 4 go at once (batchMax)');
  assert.equal(live[0].items.length, 4);
  assert.equal(live[0].replay, false);
  await tick(20);
  const after = ws.frames('events').slice(1);
  assert.equal(after.length, 2, 'the rest after batchMs');
  assert.deepEqual(after[1].items.map((i) => i.seq), [7, 8]);
  adapter.close();
});

test('core: resume after reconnect sends gap, replay, then a fresh snapshot', async () => {
  const { adapter } = makeAdapter({ limits: { bufferSize: 5 } });
  let state = 0;
  adapter.registerStream('s', { read: () => ({ state }) });
  adapter.start();
  await tick();
  MemSocket.all[0].deliver({ t: 'welcome', resume: { s: 0 } });
  for (let i = 0; i < 3; i++) adapter.emit('s', 'k', { i }, { patch: [] });
  adapter.flush();
  MemSocket.all[0].close(4004, 'replaced');
  await tick();
  for (let i = 0; i < 7; i++) {
    state++;
    adapter.emit('s', 'k', { i }); // offline: only the ring buffer (size 5) keeps them
  }
  await tick(40);
  const ws = MemSocket.all[1];
  assert.ok(ws, 'reconnected');
  assert.equal(ws.sent[0].t, 'hello');
  assert.equal(ws.sent[0].streams[0].oldestSeq, 6);
  assert.equal(ws.sent[0].streams[0].lastSeq, 10);
  ws.deliver({ t: 'welcome', resume: { s: 3 } });
  const [gap, events, snap] = ws.sent.slice(1);
  assert.deepEqual(gap, { v: 1, t: 'gap', stream: 's', from: 4, to: 5, reason: 'evicted' });
  assert.equal(events.replay, true);
  assert.deepEqual(events.items.map((i) => i.seq), [6, 7, 8, 9, 10]);
  assert.equal(snap.t, 'snapshot');
  assert.equal(snap.seq, 10);
  assert.deepEqual(snap.data, { state: 7 });
  assert.ok(adapter.info().reconnects >= 1);
  adapter.close();
});

test('core: no reconnect after 4001 / 4002', async () => {
  for (const code of [4001, 4002]) {
    const { adapter, statuses } = makeAdapter();
    adapter.start();
    await tick();
    MemSocket.all[0].deliver({ t: 'error', code: 'UNAUTHORIZED', message: 'bad token' });
    MemSocket.all[0].close(code, 'no');
    await tick(60);
    assert.equal(MemSocket.all.length, 1);
    assert.equal(statuses.at(-1), 'stopped');
    assert.equal(adapter.info().lastError.code, 'UNAUTHORIZED');
  }
});

test('core: backoff 250 ms x2 capped at 5 s, jitter on top, reset by welcome', async () => {
  class RefusedSocket {
    constructor() {
      this.readyState = 0;
      queueMicrotask(() => this.onclose && this.onclose({ code: 1006, reason: '' }));
    }
  }
  const run = async (random) => {
    const delays = [];
    let adapter;
    adapter = createAdapter({
      WebSocket: RefusedSocket,
      url: 'ws://x/adapter',
      random,
      onStatus: (s, info) => {
        if (s === 'waiting') {
          delays.push(info.delayMs);
          if (delays.length === 8) adapter.close();
        }
      },
      setTimeout: (f) => setTimeout(f, 0), // do not really wait
    });
    adapter.start();
    await tick(50);
    return delays;
  };
  assert.deepEqual(await run(() => 0), [250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  assert.deepEqual(await run(() => 1), [300, 600, 1200, 2400, 4800, 6000, 6000, 6000]);
});

test('core: requests — streams.list, snapshot.get scope, state.getPath, events.query, errors', async () => {
  const { adapter } = makeAdapter({ limits: { bufferSize: 3 } });
  const state = { auth: { user: { role: 'admin' } }, when: new Date(0) };
  adapter.registerStream('redux', { read: () => state });
  adapter.registerStream('log', {});
  adapter.start();
  await tick();
  const ws = MemSocket.all[0];
  ws.deliver({ t: 'welcome', resume: {} });
  for (let i = 0; i < 5; i++) adapter.emit('redux', i % 2 ? 'odd' : 'even', { i });
  const ask = (method, params) => {
    const id = `r${ws.sent.length}`;
    ws.deliver({ t: 'req', id, method, params });
    return ws.sent.filter((m) => m.t === 'res' && m.id === id)[0];
  };
  assert.deepEqual(ask('streams.list', {}).result.streams.map((s) => [s.name, s.lastSeq, s.oldestSeq]), [
    ['redux', 5, 3],
    ['log', 0, 1],
  ]);
  const snap = ask('snapshot.get', { stream: 'redux', scope: 'auth.user' }).result;
  assert.deepEqual([snap.seq, snap.data, snap.scope], [5, { role: 'admin' }, 'auth.user']);
  assert.deepEqual(ask('state.getPath', { stream: 'redux', path: 'when' }).result, {
    stream: 'redux',
    seq: 5,
    path: 'when',
    exists: true,
    value: { $t: 'date', v: '1970-01-01T00:00:00.000Z' },
  });
  assert.equal(ask('state.getPath', { stream: 'redux', path: 'auth.nope' }).error.code, 'PATH_NOT_FOUND');
  assert.equal(ask('snapshot.get', { stream: 'redux', scope: 'x' }).error.code, 'PATH_NOT_FOUND');
  assert.equal(ask('snapshot.get', { stream: 'log' }).error.code, 'STREAM_UNAVAILABLE');
  assert.equal(ask('snapshot.get', { stream: 'zzz' }).error.code, 'STREAM_UNAVAILABLE');
  assert.equal(ask('state.getPath', { stream: 'redux' }).error.code, 'BAD_REQUEST');
  assert.equal(ask('redux.dispatch', {}).error.code, 'UNKNOWN_METHOD');
  const evicted = ask('events.query', { stream: 'redux', sinceSeq: 1 });
  assert.deepEqual(evicted.error, { code: 'SEQ_EVICTED', message: 'requested events were evicted', details: { oldestSeq: 3 } });
  const q = ask('events.query', { stream: 'redux', sinceSeq: 2, limit: 1 }).result;
  assert.deepEqual([q.events.map((e) => e.seq), q.hasMore, q.nextSinceSeq, q.oldestSeq, q.latestSeq], [[3], true, 3, 3, 5]);
  const even = ask('events.query', { stream: 'redux', sinceSeq: 2, type: 'even' }).result;
  assert.deepEqual(even.events.map((e) => e.seq), [3, 5]);
  assert.equal(typeof ask('ping.echo', {}).result.now, 'number');
  adapter.close();
});

test('core: a request handler that throws answers INTERNAL with the stack', async () => {
  const { adapter } = makeAdapter();
  adapter.registerStream('bad', {
    read() {
      throw new Error('kaput');
    },
  });
  adapter.start();
  await tick();
  const ws = MemSocket.all[0];
  ws.deliver({ t: 'welcome', resume: {} });
  ws.deliver({ t: 'req', id: 'x', method: 'snapshot.get', params: { stream: 'bad' } });
  const res = ws.frames('res')[0];
  assert.equal(res.error.code, 'INTERNAL');
  assert.equal(res.error.message, 'kaput');
  assert.match(res.error.details.stack, /kaput/);
  adapter.close();
});

test('core: oversized events become a $trunc event marker; pings get pongs with stats; pause holds them', async () => {
  const { adapter } = makeAdapter({ limits: { maxEventBytes: 2000, maxString: 100000 } });
  adapter.registerStream('s', {});
  adapter.start();
  await tick();
  const ws = MemSocket.all[0];
  ws.deliver({ t: 'welcome', resume: {} });
  adapter.emit('s', 'k', { blob: 'z'.repeat(5000) });
  adapter.flush();
  const item = ws.frames('events')[0].items[0];
  assert.equal(item.data.$trunc, 'event');
  assert.equal(item.data.limit, 2000);
  assert.ok(item.data.bytes > 5000);
  assert.equal(typeof item.data.preview, 'string');
  adapter.setPaused(true);
  ws.deliver({ t: 'ping', ts: 42 });
  assert.equal(ws.frames('pong').length, 0);
  adapter.setPaused(false);
  const [pong] = ws.frames('pong');
  assert.equal(pong.ts, 42);
  assert.deepEqual(Object.keys(pong.stats).sort(), ['bufferFill', 'dropped', 'evicted', 'outbox', 'reconnects']);
  adapter.close();
  assert.equal(ws.frames('bye').length, 1);
});

test('core: unknown message types and malformed frames are ignored', async () => {
  const { adapter } = makeAdapter();
  adapter.start();
  await tick();
  const ws = MemSocket.all[0];
  ws.onmessage({ data: 'not json' });
  ws.deliver({ t: 'future-thing', x: 1 });
  ws.deliver({ t: 'welcome', resume: {}, extra: 'ignored' });
  assert.equal(adapter.status, 'live');
  adapter.close();
});

// ----- collectors with the fakes, checked against the patch invariant -------------------------------------------------

/** Collect every frame, materialise each stream from its first snapshot with the patches, compare to later snapshots. */
function checkMaterialisation(frames) {
  const cur = {};
  const compared = new Set();
  for (const f of frames) {
    if (f.t === 'snapshot') {
      if (cur[f.stream] && cur[f.stream].seq === f.seq) {
        assert.deepEqual(cur[f.stream].data, f.data, `${f.stream} at seq ${f.seq}`);
        compared.add(f.stream);
      }
      cur[f.stream] = { seq: f.seq, data: f.data };
    } else if (f.t === 'events') {
      for (const it of f.items) {
        const c = cur[it.stream];
        if (c && c.seq === it.seq - 1 && it.data.patch) cur[it.stream] = { seq: it.seq, data: applyPatch(c.data, it.data.patch) };
        else delete cur[it.stream];
      }
    }
  }
  return compared;
}

test('collectors: redux (middleware and enhancer), navigation, mmkv — patches rebuild every snapshot', async () => {
  const { configureStore, createSlice } = await import('@reduxjs/toolkit');
  const { adapter } = makeAdapter({ limits: { snapshotEvery: 2 } });
  const slice = createSlice({
    name: 'todos',
    initialState: { items: [], password: 'p' },
    reducers: {
      add: (s, a) => void s.items.push({ text: a.payload, at: new Date(0) }),
      drop: (s) => void s.items.shift(),
      boom: () => {
        throw new Error('reducer threw');
      },
    },
  });
  const r1 = reduxCollector(adapter);
  const store = configureStore({ reducer: { todos: slice.reducer }, middleware: (g) => g({ serializableCheck: false }).concat(r1.middleware) });
  const r2 = reduxCollector(adapter, { stream: 'redux2' });
  const store2 = configureStore({
    reducer: { todos: slice.reducer },
    middleware: (g) => g({ serializableCheck: false }),
    enhancers: (g) => g().concat(r2.enhancer),
  });
  const nav = new FakeNavigationRef('Home');
  navigationCollector(adapter, nav);
  const def = new FakeMMKV();
  const sec = new FakeMMKV('sec');
  mmkvCollector(adapter, { instances: { default: def, secure: { storage: sec, secure: true } }, valueMaxBytes: 10 });
  adapter.start();
  await tick();
  const ws = MemSocket.all[0];
  ws.deliver({ t: 'welcome', resume: {} });

  store.dispatch(slice.actions.add('a'));
  store.dispatch(slice.actions.add('b'));
  store.dispatch(slice.actions.drop());
  assert.throws(() => store.dispatch(slice.actions.boom()));
  store.dispatch((dispatch) => dispatch(slice.actions.add('thunk'))); // the thunk itself is not an event
  store2.dispatch(slice.actions.add('x'));
  nav.navigate('Profile', { id: 7 });
  nav.setParams({ tab: 'posts' });
  nav.navigate('Settings');
  nav.goBack();
  def.set('theme', 'dark');
  def.set('count', 3);
  def.set('long', 'a long value over ten bytes');
  sec.set('pin', '1234');
  def.delete('count');
  def.clearAll();
  adapter.flush();
  await tick(10);

  const items = ws.frames('events').flatMap((f) => f.items);
  const byStream = (s) => items.filter((i) => i.stream === s);
  assert.deepEqual(byStream('redux').map((i) => [i.seq, i.type, i.data.action.type]), [
    [1, 'action', 'todos/add'],
    [2, 'action', 'todos/add'],
    [3, 'action', 'todos/drop'],
    [4, 'error', 'todos/boom'],
    [5, 'action', 'todos/add'],
  ]);
  const first = byStream('redux')[0].data;
  assert.deepEqual(first.changedKeys, ['todos']);
  assert.equal(typeof first.ms, 'number');
  assert.deepEqual(first.patch, [{ op: 'add', path: '/todos/items/0', value: { text: 'a', at: { $t: 'date', v: '1970-01-01T00:00:00.000Z' } } }]);
  assert.equal(byStream('redux')[3].data.error.message, 'reducer threw');
  assert.deepEqual(byStream('redux')[3].data.patch, []);
  assert.deepEqual(byStream('redux2').map((i) => i.data.action.type), ['todos/add']);
  assert.deepEqual(byStream('navigation').map((i) => [i.type, i.data.from || i.data.route, i.data.to, i.data.action, i.data.stackDepth]), [
    ['route_change', 'Home', 'Profile', 'NAVIGATE', 2],
    ['state', 'Profile', undefined, 'SET_PARAMS', 2],
    ['route_change', 'Profile', 'Settings', 'NAVIGATE', 3],
    ['route_change', 'Settings', 'Profile', 'GO_BACK', 2],
  ]);
  const mm = byStream('mmkv').map((i) => [i.type, i.data.instance, i.data.key, i.data.value, i.data.valueOmitted, i.data.secure]);
  assert.deepEqual(mm, [
    ['key_set', 'default', 'theme', 'dark', undefined, undefined],
    ['key_set', 'default', 'count', 3, undefined, undefined],
    ['key_set', 'default', 'long', undefined, true, undefined],
    ['key_set', 'secure', 'pin', undefined, undefined, true],
    ['key_delete', 'default', 'count', undefined, undefined, undefined],
    ['clear', 'default', undefined, undefined, undefined, undefined],
  ]);
  assert.ok(!JSON.stringify(ws.sent).includes('1234'), 'secure values never leave the app');
  // Every stream: the first snapshot + the patches equal each later snapshot.
  for (const s of ['redux', 'redux2', 'navigation', 'mmkv']) {
    ws.deliver({ t: 'req', id: `final-${s}`, method: 'snapshot.get', params: { stream: s } });
  }
  const finals = ws.frames('res').map((r) => ({ t: 'snapshot', ...r.result }));
  const compared = checkMaterialisation([...ws.sent.filter((m) => m.t !== 'res'), ...finals]);
  assert.deepEqual([...compared].sort(), ['mmkv', 'navigation', 'redux', 'redux2']);
  adapter.close();
});
