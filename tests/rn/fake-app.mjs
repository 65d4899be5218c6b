#!/usr/bin/env node
// A fake React Native app for pairdbg's RN backend tests: the real adapter (backends/rn/adapter) with a real Redux
// Toolkit store, a fake NavigationContainerRef and fake MMKV instances, driven by JSON commands on stdin.
//
//   node tests/rn/fake-app.mjs --url ws://127.0.0.1:19850/adapter --token T [--limits '{"bufferSize":40}']
//        [--session-id S] [--install-id I] [--no-patch] [--redact password,pin] [--app-name FakeApp]
//
// stdout, one JSON object a line: {"ready":true,...} after every welcome, {"ok":true,"cmd":...} for every command
// ({"ok":false,"cmd":...,"error":...} when it failed), {"status":...} on adapter status changes, {"stopped":true,...}
// when the server refused the adapter (4001/4002) — the process then exits 3. stdin commands: see COMMANDS below.

import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { configureStore, createSlice } from '@reduxjs/toolkit';
import WebSocket from 'ws';
import { createAdapter, mmkvCollector, navigationCollector, reduxCollector } from '../../backends/rn/adapter/index.js';

// ----- arguments ----------------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const a = { url: null, token: '', limits: {}, patch: true, redact: [], appName: 'FakeApp' };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--url') a.url = v();
    else if (k === '--port') a.url = `ws://127.0.0.1:${v()}/adapter`;
    else if (k === '--token') a.token = v();
    else if (k === '--limits') a.limits = JSON.parse(v());
    else if (k === '--session-id') a.sessionId = v();
    else if (k === '--install-id') a.installId = v();
    else if (k === '--no-patch') a.patch = false;
    else if (k === '--redact') a.redact = v().split(',').filter(Boolean);
    else if (k === '--app-name') a.appName = v();
    else if (k === '--verbose') a.verbose = true;
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.url) throw new Error('--url ws://127.0.0.1:<port>/adapter (or --port P) is required');
  return a;
}

const out = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

// ----- the app's state: a real Redux Toolkit store -------------------------------------------------------------------

const auth = createSlice({
  name: 'auth',
  initialState: { status: 'anonymous', user: null, password: null, token: null },
  reducers: {
    loginStart(s, a) {
      s.status = 'pending';
      s.password = a.payload && a.payload.password !== undefined ? a.payload.password : s.password;
    },
    loginOk(s, a) {
      s.status = 'ok';
      s.user = a.payload && a.payload.user ? a.payload.user : a.payload;
      if (a.payload && a.payload.token !== undefined) s.token = a.payload.token;
    },
    setPassword(s, a) {
      s.password = a.payload;
    },
    setRole(s, a) {
      if (s.user) s.user.role = a.payload;
    },
    logout() {
      return { status: 'anonymous', user: null, password: null, token: null };
    },
  },
});

let nextTodo = 1;
const todos = createSlice({
  name: 'todos',
  initialState: { items: [], filter: 'all' },
  reducers: {
    add: {
      reducer(s, a) {
        s.items.push(a.payload);
      },
      prepare(text) {
        return { payload: { id: nextTodo++, text: String(text), done: false } };
      },
    },
    toggle(s, a) {
      const t = s.items.find((x) => x.id === a.payload);
      if (t) t.done = !t.done;
    },
    remove(s, a) {
      s.items = s.items.filter((x) => x.id !== a.payload);
    },
    setFilter(s, a) {
      s.filter = a.payload;
    },
    clear(s) {
      s.items = [];
    },
  },
});

const misc = createSlice({
  name: 'misc',
  initialState: { big: null, counter: 0 },
  reducers: {
    setBig(s, a) {
      s.big = a.payload;
    },
    bump(s) {
      s.counter += 1;
    },
    boom() {
      throw new Error('reducer exploded on purpose');
    },
  },
});

// ----- fakes: NavigationContainerRef and MMKV -----------------------------------------------------------------------

let keySeq = 0;
const routeKey = (name) => `${name}-${++keySeq}`;

/** The subset of React Navigation's NavigationContainerRef the collector uses; states are new frozen objects. */
export class FakeNavigationRef {
  constructor(initial = 'Home') {
    this.listeners = { state: new Set(), __unsafe_action__: new Set() };
    this.state = FakeNavigationRef.freeze({
      type: 'stack',
      key: 'stack-root',
      index: 0,
      stale: false,
      routeNames: ['Home', 'Profile', 'Settings', 'Todo'],
      routes: [{ key: routeKey(initial), name: initial, params: undefined }],
    });
  }
  static freeze(o) {
    if (o && typeof o === 'object' && !Object.isFrozen(o)) {
      Object.freeze(o);
      for (const v of Object.values(o)) FakeNavigationRef.freeze(v);
    }
    return o;
  }
  isReady() {
    return true;
  }
  getRootState() {
    return this.state;
  }
  getCurrentRoute() {
    const r = this.state.routes[this.state.index];
    return { key: r.key, name: r.name, params: r.params };
  }
  canGoBack() {
    return this.state.index > 0;
  }
  addListener(type, cb) {
    const set = this.listeners[type];
    if (!set) return () => {};
    set.add(cb);
    return () => set.delete(cb);
  }
  _emit(type, data) {
    for (const cb of [...this.listeners[type]]) cb({ data });
  }
  _set(action, state) {
    this._emit('__unsafe_action__', { action, noop: false });
    this.state = FakeNavigationRef.freeze(state);
    this._emit('state', { state: this.state });
  }
  navigate(name, params) {
    const s = this.state;
    const cur = s.routes[s.index];
    if (cur.name === name) {
      // Same screen: new params on the same route (a `state` event, not a route change).
      const routes = s.routes.slice();
      routes[s.index] = { ...cur, params: params === undefined ? cur.params : { ...(cur.params || {}), ...params } };
      this._set({ type: 'NAVIGATE', payload: { name, params } }, { ...s, routes });
      return;
    }
    const routes = [...s.routes.slice(0, s.index + 1), { key: routeKey(name), name, params }];
    this._set({ type: 'NAVIGATE', payload: { name, params } }, { ...s, index: routes.length - 1, routes });
  }
  setParams(params) {
    const s = this.state;
    const routes = s.routes.slice();
    routes[s.index] = { ...routes[s.index], params: { ...(routes[s.index].params || {}), ...params } };
    this._set({ type: 'SET_PARAMS', payload: { params } }, { ...s, routes });
  }
  goBack() {
    const s = this.state;
    if (s.index === 0) return false;
    const routes = s.routes.slice(0, s.index);
    this._set({ type: 'GO_BACK' }, { ...s, index: routes.length - 1, routes });
    return true;
  }
}

/** The subset of react-native-mmkv's MMKV instance the collector uses (typed values, synchronous listeners). */
export class FakeMMKV {
  constructor(id = 'mmkv.default') {
    this.id = id;
    this.values = new Map(); // key -> {type, value}
    this.listeners = new Set();
  }
  _changed(key) {
    for (const cb of [...this.listeners]) cb(key);
  }
  set(key, value) {
    let type;
    if (typeof value === 'string') type = 'string';
    else if (typeof value === 'number') type = 'number';
    else if (typeof value === 'boolean') type = 'boolean';
    else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) type = 'buffer';
    else throw new TypeError(`MMKV cannot store ${typeof value}`);
    this.values.set(key, { type, value });
    this._changed(key);
  }
  _get(key, type) {
    const e = this.values.get(key);
    return e && e.type === type ? e.value : undefined;
  }
  getString(key) {
    return this._get(key, 'string');
  }
  getNumber(key) {
    return this._get(key, 'number');
  }
  getBoolean(key) {
    return this._get(key, 'boolean');
  }
  getBuffer(key) {
    return this._get(key, 'buffer');
  }
  contains(key) {
    return this.values.has(key);
  }
  delete(key) {
    const had = this.values.delete(key);
    if (had) this._changed(key);
  }
  getAllKeys() {
    return [...this.values.keys()];
  }
  clearAll() {
    const keys = [...this.values.keys()];
    this.values.clear();
    for (const k of keys) this._changed(k);
  }
  addOnValueChangedListener(cb) {
    this.listeners.add(cb);
    return { remove: () => this.listeners.delete(cb) };
  }
}

// ----- wiring --------------------------------------------------------------------------------------------------------

function bigPayload() {
  const circular = { name: 'loop', child: { note: 'points back up' } };
  circular.child.parent = circular;
  return {
    text: 'x'.repeat(100 * 1024),
    when: new Date(0),
    tags: new Set(['a', 'b']),
    lookup: new Map([
      ['k1', 1],
      ['k2', { deep: true }],
    ]),
    huge: 100000000000000000000n,
    missing: undefined,
    notANumber: NaN,
    infinite: -Infinity,
    pattern: /a+/g,
    fn: function onPress() {},
    err: new TypeError('bad thing'),
    bytes: new Uint8Array(4096),
    reserved: { $t: 'not a tag', x: 1 },
    circular,
    long: Array.from({ length: 500 }, (_, i) => i),
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const verbose = !!args.verbose;
  let exiting = false;
  let frozen = false;

  const adapter = createAdapter({
    WebSocket,
    url: args.url,
    token: args.token,
    sessionId: args.sessionId,
    installId: args.installId,
    limits: args.limits,
    patch: args.patch,
    redactKeys: args.redact,
    app: { name: args.appName, bundleId: 'dev.pairdbg.fakeapp', version: '1.0.0', build: '1', env: 'development', rn: 'fake', hermes: false },
    device: { platform: 'node', osVersion: process.version, model: 'fake-app.mjs', simulator: true, name: 'Node fake app' },
    log: (level, ...rest) => {
      if (verbose || level === 'warn') process.stderr.write(`[adapter ${level}] ${rest.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ')}\n`);
    },
    onStatus: (status, info) => {
      if (status === 'stopped') {
        out({ stopped: true, code: info.code, reason: info.reason, error: info.error || null });
        process.exitCode = 3;
        setTimeout(() => process.exit(3), 20);
      } else if (verbose) out({ status });
    },
    onWelcome: (msg) => {
      const info = adapter.info();
      out({ ready: true, sessionId: adapter.sessionId, welcomes: info.welcomes, reconnects: info.reconnects, resume: msg.resume || {}, seqs: seqs() });
    },
  });

  const redux = reduxCollector(adapter);
  const store = configureStore({
    reducer: { auth: auth.reducer, todos: todos.reducer, misc: misc.reducer },
    // `big` puts Dates, Maps, a circular object... into the state on purpose; the dev checks would object.
    middleware: (gDM) => gDM({ serializableCheck: false, immutableCheck: false }).concat(redux.middleware),
  });
  const nav = new FakeNavigationRef('Home');
  navigationCollector(adapter, nav);
  const storages = { default: new FakeMMKV('mmkv.default'), secure: new FakeMMKV('mmkv.secure') };
  storages.default.set('theme', 'light');
  storages.secure.set('refreshToken', 'r-123-secret');
  mmkvCollector(adapter, { instances: { default: storages.default, secure: { storage: storages.secure, secure: true } } });

  function seqs() {
    const s = {};
    for (const [k, v] of Object.entries(adapter.info().streams)) s[k] = v.lastSeq;
    return s;
  }

  // ----- COMMANDS (one JSON object a line; `flood 200` style shorthand also works) -----
  const commands = {
    dispatch(c) {
      if (!c.action || typeof c.action.type !== 'string') throw new Error('dispatch needs {"action":{"type":...}}');
      try {
        store.dispatch(c.action);
      } catch (e) {
        return { threw: String(e.message) };
      }
      return {};
    },
    navigate(c) {
      nav.navigate(String(c.name), c.params);
      return { route: nav.getCurrentRoute().name };
    },
    setParams(c) {
      nav.setParams(c.params || {});
      return {};
    },
    back() {
      return { wentBack: nav.goBack(), route: nav.getCurrentRoute().name };
    },
    'mmkv.set'(c) {
      const st = storages[c.instance || 'default'];
      if (!st) throw new Error(`no MMKV instance ${c.instance}`);
      st.set(String(c.key), c.value);
      return {};
    },
    'mmkv.delete'(c) {
      const st = storages[c.instance || 'default'];
      if (!st) throw new Error(`no MMKV instance ${c.instance}`);
      st.delete(String(c.key));
      return {};
    },
    'mmkv.clear'(c) {
      const st = storages[c.instance || 'default'];
      if (!st) throw new Error(`no MMKV instance ${c.instance}`);
      st.clearAll();
      return {};
    },
    big() {
      const payload = bigPayload();
      store.dispatch(misc.actions.setBig(payload));
      return {};
    },
    flood(c) {
      const n = Number(c.n === undefined ? c.arg : c.n);
      if (!Number.isInteger(n) || n < 0) throw new Error('flood needs {"n": <count>}');
      for (let i = 0; i < n; i++) store.dispatch(todos.actions.add(`flood ${i}`));
      return { n };
    },
    drop() {
      return { dropped: adapter.dropConnection() };
    },
    freeze() {
      frozen = true;
      adapter.setPaused(true);
      return {};
    },
    unfreeze() {
      frozen = false;
      adapter.setPaused(false);
      return {};
    },
    flush() {
      adapter.flush();
      return {};
    },
    state() {
      return { state: JSON.parse(JSON.stringify(store.getState(), (k, v) => (typeof v === 'bigint' ? String(v) : v))) };
    },
    status() {
      return { info: adapter.info() };
    },
    exit() {
      exiting = true;
      return {};
    },
  };

  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const finish = (code) => {
    adapter.close('fake app exiting');
    setTimeout(() => process.exit(code), 50);
  };
  rl.on('line', (line) => {
    const text = line.trim();
    if (!text) return;
    let c;
    try {
      if (text.startsWith('{')) c = JSON.parse(text);
      else {
        const [cmd, arg] = text.split(/\s+/, 2);
        c = { cmd, arg };
      }
    } catch (e) {
      out({ ok: false, cmd: null, error: `bad JSON: ${e.message}` });
      return;
    }
    const name = c.cmd;
    const fn = Object.prototype.hasOwnProperty.call(commands, name) ? commands[name] : null;
    if (!fn) {
      out({ ok: false, cmd: name, error: `unknown command; known: ${Object.keys(commands).join(', ')}` });
      return;
    }
    try {
      const extra = fn(c) || {};
      out({ ok: true, cmd: name, ...(c.id !== undefined ? { id: c.id } : {}), ...extra, frozen, seqs: seqs() });
    } catch (e) {
      out({ ok: false, cmd: name, ...(c.id !== undefined ? { id: c.id } : {}), error: String(e && e.message) });
    }
    if (exiting) {
      rl.close();
    }
  });
  rl.on('close', () => finish(0)); // `exit` or stdin closed
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => finish(0));

  adapter.start();
}

// Run only as a program: the unit tests import the fakes from this file.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`fake-app: ${e && e.stack ? e.stack : e}\n`);
    process.exit(2);
  });
}
