// pairdbg React Native adapter: the in-app side of wire protocol v1 (backends/rn/PROTOCOL.md).
// Plain JavaScript, no imports outside this folder: the app passes its WebSocket constructor (RN's global one,
// the `ws` package in Node). Dev builds only — see the README's "React Native adapter" section.

import {
  DEFAULT_VALUE_LIMITS,
  encode,
  encodeError,
  eventTruncMarker,
  isPlainObject,
  keyMatcher,
  measure,
  utf8Length,
} from './encode.js';
import { DEFAULT_PATCH_LIMITS } from './patch.js';
import { AdapterError } from './errors.js';
import { parsePath, resolvePath } from './paths.js';
import { RingBuffer, planResume } from './ring.js';
import { buildSnapshot as snapshotOf, handleRequest as answerRequest } from './requests.js';

export { AdapterError, RingBuffer, planResume, parsePath, resolvePath };

export const PROTOCOL_VERSION = 1;
export const ADAPTER = Object.freeze({ name: 'pairdbg-rn-adapter', version: '1.0.0' });

export const DEFAULT_LIMITS = Object.freeze({
  ...DEFAULT_VALUE_LIMITS,
  ...DEFAULT_PATCH_LIMITS,
  maxMessageBytes: 1048576, // any frame the adapter sends (the smaller of this and welcome.limits wins)
  maxEventBytes: 65536, // one event item; above it `data` becomes a {"$trunc":"event"} marker
  maxSnapshotBytes: 524288, // one snapshot's `data`; above it the largest top-level slices are cut
  bufferSize: 500, // ring buffer per stream (replay on resume, events.query)
  batchMs: 30, // events are flushed 30 ms after the first pending one...
  batchMax: 64, // ...or at once when 64 are pending
  outboxMax: 2000, // pending items while the socket is backed up; above it they are dropped (and later resent)
  maxBufferedBytes: 4 * 1048576, // socket bufferedAmount above which the adapter stops handing it more
  snapshotEvery: 50, // a snapshot after this many events of one stream...
  snapshotIdleMs: 5000, // ...or this long after its last change
  welcomeTimeoutMs: 10000, // no welcome this long after the socket opened: close and retry
  backoffInitialMs: 250,
  backoffFactor: 2,
  backoffMaxMs: 5000,
  backoffJitter: 0.2, // each delay is stretched by up to this fraction, at random
  queryLimit: 100, // events.query default page
  queryMaxLimit: 500,
});

const NO_RECONNECT = new Set([4001, 4002]);
const OPEN = 1;

function randomId(random) {
  return Math.floor(random() * 2 ** 40).toString(36).padStart(8, '0');
}

function defaultNow() {
  return Date.now();
}

function monotonicMs() {
  return typeof performance !== 'undefined' && performance && typeof performance.now === 'function'
    ? performance.now()
    : Date.now();
}

/**
 * options:
 *   WebSocket   the constructor (RN: global WebSocket; Node 20: require('ws'))    [required]
 *   url         ws://host:19850/adapter                                             [required]
 *   token       the server's token (sent only in hello)                             [required by the server]
 *   app, device objects copied into hello (name/bundleId/version/rn/hermes... and platform/osVersion/model...)
 *   installId   persisted id of this install (the app stores it; a random one otherwise)
 *   sessionId   defaults to a new one per createAdapter call (= per JS runtime)
 *   limits      overrides of DEFAULT_LIMITS
 *   patch       false to leave patches out (capability not announced)
 *   redactKeys  extra key names / RegExps whose values never leave the app ({"$t":"redacted"})
 *   appState    RN's AppState: reconnect at once when the app comes back to the foreground
 *   protocols   WebSocket subprotocols to offer (none by default)
 *   onStatus(status, info), onWelcome(msg), onError(msg), log(level, ...args)   hooks
 */
export function createAdapter(options) {
  const o = options || {};
  if (typeof o.WebSocket !== 'function') throw new TypeError('createAdapter: options.WebSocket (a constructor) is required');
  if (typeof o.url !== 'string' || !/^wss?:\/\//.test(o.url)) throw new TypeError('createAdapter: options.url must be ws:// or wss://');
  const WS = o.WebSocket;
  const now = o.now || defaultNow;
  const random = o.random || Math.random;
  const setT = o.setTimeout || ((f, ms) => setTimeout(f, ms));
  const clearT = o.clearTimeout || ((h) => clearTimeout(h));
  const own = { ...DEFAULT_LIMITS, ...(o.limits || {}) };
  let lim = { ...own }; // effective: own limits narrowed by the server's welcome
  const patchEnabled = o.patch !== false;
  const redact = keyMatcher(o.redactKeys);
  const log = o.log || (() => {});
  const sessionId = o.sessionId || `s-${now().toString(36)}-${randomId(random)}`;
  const installId = o.installId || `i-${randomId(random)}${randomId(random)}`;
  const startedAt = now();

  const streams = new Map();
  let g = 0;
  let ws = null;
  let status = 'idle'; // idle | connecting | handshaking | live | waiting | stopped | closed
  let attempt = 0;
  let reconnects = 0;
  let welcomes = 0;
  let reconnectTimer = null;
  let welcomeTimer = null;
  let flushTimer = null;
  let watchdogTimer = null;
  let heartbeat = null;
  let lastRx = 0;
  let outbox = []; // {kind:'item', json, replay} | {kind:'frame', json}
  let resyncPending = false; // the outbox overflowed: resend from lastSent once the socket drains
  let dropped = 0;
  let paused = false; // test hook: a stalled JS thread
  const inbox = [];
  let lastError = null;
  let lastClose = null;
  let appStateSub = null;

  const setStatus = (s, info) => {
    status = s;
    if (o.onStatus) {
      try {
        o.onStatus(s, info || {});
      } catch (e) {
        log('warn', 'onStatus threw', e);
      }
    }
  };

  // ----- streams -------------------------------------------------------------------------------------------------

  /**
   * spec: {read(): raw state (snapshot source; omit for event-only streams), kinds?: [...], instances?: () => [...],
   *        patches?: bool (the collector supplies data.patch)}
   * Register before start(): hello lists the streams.
   */
  function registerStream(name, spec = {}) {
    if (streams.has(name)) throw new Error(`stream ${name} is already registered`);
    const s = {
      name,
      spec,
      ring: new RingBuffer(own.bufferSize),
      seq: 0,
      lastSent: 0,
      sinceSnapshot: 0,
      snapshotSeq: -1,
      wantSnapshot: false,
      idleTimer: null,
    };
    streams.set(name, s);
    if (status === 'live') log('warn', `stream ${name} registered after the handshake; the server learns of it on the next hello`);
    return name;
  }

  function streamInfo(s) {
    const info = { name: s.name, lastSeq: s.seq, oldestSeq: s.ring.oldestSeq, snapshot: typeof s.spec.read === 'function' };
    if (s.spec.kinds) info.kinds = s.spec.kinds.slice();
    if (s.spec.instances) info.instances = s.spec.instances();
    return info;
  }

  function getStream(name) {
    const s = typeof name === 'string' ? streams.get(name) : undefined;
    if (!s) throw new AdapterError('STREAM_UNAVAILABLE', `no stream ${JSON.stringify(name)}`, { streams: [...streams.keys()] });
    return s;
  }

  /**
   * Record one event. `data` is raw (encoded here); `extra.patch` is an already-encoded RFC 6902 patch, `null`
   * when it was too large (the event then goes without one and a snapshot follows), undefined for no patch support.
   */
  function emit(streamName, type, data, extra = {}) {
    const s = streams.get(streamName);
    if (!s) {
      log('warn', `event for unregistered stream ${streamName}`);
      return null;
    }
    const item = { stream: streamName, seq: s.seq + 1, g: g + 1, ts: now(), type, data: encode(data, { limits: lim, redact }) };
    let wantSnapshot = false;
    if (patchEnabled && extra.patch !== undefined) {
      if (extra.patch === null) wantSnapshot = true;
      else if (isPlainObject(item.data)) item.data.patch = extra.patch;
    }
    let { json, bytes } = measure(item);
    const cap = Math.min(lim.maxEventBytes, lim.maxMessageBytes - 256);
    if (bytes > cap && item.data && item.data.patch) {
      delete item.data.patch;
      wantSnapshot = true;
      ({ json, bytes } = measure(item));
    }
    if (bytes > cap) {
      item.data = eventTruncMarker(JSON.stringify(item.data), bytes, cap);
      wantSnapshot = wantSnapshot || extra.patch !== undefined;
      ({ json, bytes } = measure(item));
    }
    s.seq = item.seq;
    g = item.g;
    s.ring.push({ seq: item.seq, g: item.g, type, item, json });
    s.sinceSnapshot++;
    if (status === 'live') {
      outbox.push({ kind: 'item', json, replay: false, stream: s, seq: item.seq });
      if (outbox.length > lim.outboxMax) overflow();
    }
    if (s.spec.read) {
      if (wantSnapshot || s.sinceSnapshot >= lim.snapshotEvery) requestSnapshot(s);
      armIdleSnapshot(s);
    }
    scheduleFlush();
    return item;
  }

  function armIdleSnapshot(s) {
    if (s.idleTimer) clearT(s.idleTimer);
    s.idleTimer = setT(() => {
      s.idleTimer = null;
      if (s.snapshotSeq !== s.seq) requestSnapshot(s);
    }, lim.snapshotIdleMs);
  }

  function requestSnapshot(s) {
    if (status !== 'live') return; // a fresh one follows the next welcome anyway
    s.wantSnapshot = true;
    outbox.push({ kind: 'snapshot', stream: s });
    scheduleFlush();
  }

  /** The stream's current state as a snapshot body (scoped/instance-filtered for snapshot.get). */
  function buildSnapshot(s, params = {}) {
    return snapshotOf(s, params, env());
  }

  // ----- sending -------------------------------------------------------------------------------------------------

  function sendRaw(json) {
    if (!ws || ws.readyState !== OPEN) return false;
    try {
      ws.send(json);
      return true;
    } catch (e) {
      log('warn', 'send failed', e);
      return false;
    }
  }

  function send(msg) {
    return sendRaw(JSON.stringify({ v: PROTOCOL_VERSION, ...msg }));
  }

  function scheduleFlush() {
    if (status !== 'live' || paused) return;
    const pendingItems = outbox.length;
    if (pendingItems >= lim.batchMax) {
      flush();
      return;
    }
    if (!flushTimer && pendingItems > 0) flushTimer = setT(() => {
      flushTimer = null;
      flush();
    }, lim.batchMs);
  }

  function overflow() {
    // The socket is backed up: drop what is queued; the ring buffers still hold it and resync() resends it
    // (or announces a gap for what the buffers lost meanwhile).
    const n = outbox.filter((e) => e.kind === 'item').length;
    dropped += n;
    outbox = [];
    resyncPending = true;
    log('warn', `outbox overflow: ${n} events dropped from the outbox, resending from the buffers later`);
  }

  /** Send everything queued: gaps and events in order (events in batches), then the snapshots asked for. */
  function flush() {
    if (flushTimer) {
      clearT(flushTimer);
      flushTimer = null;
    }
    if (status !== 'live' || paused || !ws) return;
    if (ws.bufferedAmount > lim.maxBufferedBytes) {
      flushTimer = setT(() => {
        flushTimer = null;
        flush();
      }, 100);
      return;
    }
    if (resyncPending) {
      resyncPending = false;
      outbox = outbox.filter((e) => e.kind !== 'item'); // the replay below covers them
      const cursors = {};
      for (const s of streams.values()) cursors[s.name] = s.lastSent;
      queueResume(cursors, false);
    }
    const queue = outbox;
    outbox = [];
    const snaps = [];
    let batch = [];
    let batchBytes = 0;
    let batchReplay = false;
    const frameCap = lim.maxMessageBytes - 64;
    const sendBatch = () => {
      if (!batch.length) return;
      sendRaw(`{"v":${PROTOCOL_VERSION},"t":"events","replay":${batchReplay},"items":[${batch.map((e) => e.json).join(',')}]}`);
      for (const e of batch) if (e.seq > e.stream.lastSent) e.stream.lastSent = e.seq;
      batch = [];
      batchBytes = 0;
    };
    for (const e of queue) {
      if (e.kind === 'item') {
        const n = e.json.length + 1; // UTF-16 length is a lower bound of the bytes...
        if (batch.length && (e.replay !== batchReplay || batch.length >= lim.batchMax || batchBytes + n * 3 > frameCap)) sendBatch();
        batchReplay = e.replay;
        batch.push(e);
        batchBytes += n * 3; // ...and 3x an upper bound for the BMP: never over the frame cap
      } else if (e.kind === 'snapshot') {
        snaps.push(e.stream);
      } else {
        sendBatch();
        sendRaw(e.json);
      }
    }
    sendBatch();
    // Snapshots last: built now, they reflect every event just sent (seq = the stream's latest).
    for (const s of snaps) {
      if (!s.wantSnapshot) continue; // asked for twice
      s.wantSnapshot = false;
      sendSnapshot(s);
    }
  }

  function sendSnapshot(s) {
    let body;
    try {
      body = buildSnapshot(s);
    } catch (e) {
      log('warn', `snapshot of ${s.name} failed`, e);
      return;
    }
    s.snapshotSeq = body.seq;
    s.sinceSnapshot = 0;
    send({ t: 'snapshot', ...body });
  }

  /** Queue gap + replay for every stream from the given cursors, then a fresh snapshot of each. */
  function queueResume(cursors, withSnapshots) {
    const gaps = [];
    const replay = [];
    for (const s of streams.values()) {
      const plan = planResume({ oldestSeq: s.ring.oldestSeq, lastSeq: s.seq }, cursors[s.name]);
      if (plan.gap) {
        gaps.push({ kind: 'frame', json: JSON.stringify({ v: PROTOCOL_VERSION, t: 'gap', stream: s.name, ...plan.gap, reason: 'evicted' }) });
        s.lastSent = Math.max(s.lastSent, plan.gap.to);
      }
      if (plan.replayFrom !== null) {
        for (const e of s.ring.since(plan.replayFrom - 1)) replay.push({ kind: 'item', json: e.json, replay: true, stream: s, seq: e.seq, g: e.g });
      }
    }
    replay.sort((x, y) => x.g - y.g); // one timeline across streams
    const snaps = [];
    if (withSnapshots) {
      for (const s of streams.values()) {
        if (typeof s.spec.read === 'function') {
          s.wantSnapshot = true;
          snaps.push({ kind: 'snapshot', stream: s });
        }
      }
    }
    outbox = [...gaps, ...replay, ...snaps, ...outbox];
  }

  // ----- connection ----------------------------------------------------------------------------------------------

  function connect() {
    if (status === 'closed' || status === 'stopped') return;
    reconnectTimer = null;
    setStatus('connecting', { url: o.url, attempt });
    let sock;
    try {
      sock = o.protocols ? new WS(o.url, o.protocols) : new WS(o.url);
    } catch (e) {
      log('warn', 'WebSocket constructor threw', e);
      scheduleReconnect();
      return;
    }
    ws = sock;
    sock.onopen = () => {
      if (ws !== sock) return;
      setStatus('handshaking');
      lastRx = now();
      sendHello();
      welcomeTimer = setT(() => {
        welcomeTimer = null;
        if (ws === sock && status === 'handshaking') {
          log('warn', 'no welcome in time; reconnecting');
          sock.close(1000, 'no welcome');
        }
      }, lim.welcomeTimeoutMs);
    };
    sock.onmessage = (ev) => {
      if (ws !== sock) return;
      lastRx = now();
      if (paused) inbox.push(ev.data);
      else handleFrame(ev.data);
    };
    sock.onerror = (ev) => {
      if (ws === sock) log('debug', 'socket error', ev && ev.message);
    };
    sock.onclose = (ev) => {
      if (ws !== sock) return;
      onClosed(ev && ev.code, ev && ev.reason);
    };
  }

  function sendHello() {
    const hello = {
      t: 'hello',
      protocol: { min: PROTOCOL_VERSION, max: PROTOCOL_VERSION },
      token: o.token === undefined ? '' : String(o.token),
      sessionId,
      installId,
      adapter: { ...ADAPTER },
      app: o.app || {},
      device: o.device || {},
      streams: [...streams.values()].map(streamInfo),
      capabilities: ['snapshot.scope', 'state.getPath', 'events.query', 'ping.echo', ...(patchEnabled ? ['patch'] : [])],
      limits: {
        maxMessageBytes: own.maxMessageBytes,
        maxEventBytes: own.maxEventBytes,
        maxSnapshotBytes: own.maxSnapshotBytes,
        bufferSize: own.bufferSize,
        maxPatchBytes: own.maxPatchBytes,
        maxString: own.maxString,
        maxArray: own.maxArray,
        maxKeys: own.maxKeys,
        maxDepth: own.maxDepth,
        snapshotEvery: own.snapshotEvery,
      },
      clock: { now: now() },
      startedAt,
    };
    send(hello);
  }

  function onClosed(code, reason) {
    const wasLive = status === 'live';
    ws = null;
    lastClose = { code, reason: reason ? String(reason) : '', at: now() };
    for (const t of [welcomeTimer, flushTimer, watchdogTimer]) if (t) clearT(t);
    welcomeTimer = flushTimer = watchdogTimer = null;
    outbox = [];
    resyncPending = false;
    inbox.length = 0;
    if (status === 'closed') return;
    if (NO_RECONNECT.has(code)) {
      setStatus('stopped', { code, reason: lastClose.reason, error: lastError });
      log('warn', `server refused the adapter (close ${code}); not reconnecting`, lastError);
      return;
    }
    if (wasLive) attempt = 0;
    scheduleReconnect();
  }

  function backoffDelay(n) {
    const base = Math.min(lim.backoffMaxMs, lim.backoffInitialMs * lim.backoffFactor ** n);
    return Math.round(base * (1 + lim.backoffJitter * random()));
  }

  function scheduleReconnect() {
    if (status === 'closed' || status === 'stopped') return;
    const delay = backoffDelay(attempt);
    attempt++;
    setStatus('waiting', { delayMs: delay, close: lastClose });
    reconnectTimer = setT(() => {
      reconnects++;
      connect();
    }, delay);
  }

  /** Skip the backoff wait (app back in the foreground, or a manual retry). */
  function reconnectNow() {
    if (status !== 'waiting') return;
    if (reconnectTimer) clearT(reconnectTimer);
    attempt = 0;
    reconnects++;
    connect();
  }

  function armWatchdog() {
    if (!heartbeat || !(heartbeat.intervalMs > 0)) return;
    const silentMs = heartbeat.intervalMs + (heartbeat.timeoutMs || heartbeat.intervalMs * 3);
    const check = () => {
      watchdogTimer = null;
      if (status !== 'live' || !ws) return;
      if (!paused && now() - lastRx > silentMs) {
        log('warn', `nothing from the server for ${silentMs} ms; reconnecting`);
        const sock = ws;
        if (typeof sock.terminate === 'function') sock.terminate();
        else sock.close(1000, 'server silent');
        return;
      }
      watchdogTimer = setT(check, heartbeat.intervalMs);
    };
    watchdogTimer = setT(check, heartbeat.intervalMs);
  }

  // ----- incoming ------------------------------------------------------------------------------------------------

  function handleFrame(raw) {
    let msg;
    try {
      msg = JSON.parse(typeof raw === 'string' ? raw : String(raw));
    } catch (_) {
      log('warn', 'malformed frame from the server');
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    switch (msg.t) {
      case 'welcome':
        return onWelcome(msg);
      case 'error':
        lastError = { code: msg.code, message: msg.message };
        log('warn', 'server error', lastError);
        if (o.onError) o.onError(msg);
        return;
      case 'ping':
        return send({ t: 'pong', ts: msg.ts, now: now(), stats: stats() });
      case 'req':
        return onRequest(msg);
      case 'bye':
        log('info', 'server said bye', msg.reason);
        return;
      default:
        log('debug', `ignoring message type ${msg.t}`);
    }
  }

  function onWelcome(msg) {
    if (status !== 'handshaking') return;
    if (welcomeTimer) {
      clearT(welcomeTimer);
      welcomeTimer = null;
    }
    const sl = msg.limits || {};
    lim = { ...own };
    for (const k of ['maxMessageBytes', 'maxEventBytes', 'maxSnapshotBytes']) {
      if (typeof sl[k] === 'number' && sl[k] > 0) lim[k] = Math.min(own[k], sl[k]);
    }
    heartbeat = msg.heartbeat || null;
    attempt = 0;
    welcomes++;
    lastError = null;
    setStatus('live', { welcome: msg });
    const cursors = msg.resume || {};
    for (const s of streams.values()) s.lastSent = Math.max(0, Math.floor(Number(cursors[s.name]) || 0));
    outbox = [];
    queueResume(cursors, true);
    armWatchdog();
    if (o.onWelcome) o.onWelcome(msg);
    flush();
  }

  function onRequest(msg) {
    const id = msg.id;
    let result;
    try {
      result = handleRequest(String(msg.method), msg.params && typeof msg.params === 'object' ? msg.params : {});
    } catch (e) {
      return respondError(id, e);
    }
    const json = JSON.stringify({ v: PROTOCOL_VERSION, t: 'res', id, ok: true, result });
    const bytes = utf8Length(json);
    if (bytes > lim.maxMessageBytes) {
      return respondError(id, new AdapterError('PAYLOAD_TOO_LARGE', 'result too large even after truncation', { bytes, limit: lim.maxMessageBytes }));
    }
    sendRaw(json);
  }

  function respondError(id, e) {
    const coded = e instanceof AdapterError || (e && typeof e.code === 'string' && /^[A-Z][A-Z_]+$/.test(e.code));
    const error = coded
      ? { code: e.code, message: e.message, ...(e.details !== undefined ? { details: e.details } : {}) }
      : { code: 'INTERNAL', message: String((e && e.message) || e), details: { stack: encodeError(e).stack || '' } };
    send({ t: 'res', id, ok: false, error });
  }

  /** What request handlers and snapshots read of the adapter's state. */
  function env() {
    return { streams, getStream, streamInfo, now, lim, redact };
  }

  function handleRequest(method, p) {
    return answerRequest(method, p, env());
  }

  function stats() {
    const bufferFill = {};
    const evicted = {};
    for (const s of streams.values()) {
      bufferFill[s.name] = Math.round(s.ring.fill * 100) / 100;
      evicted[s.name] = s.ring.evicted;
    }
    return { dropped, outbox: outbox.length, reconnects, bufferFill, evicted };
  }

  // ----- public --------------------------------------------------------------------------------------------------

  return {
    sessionId,
    installId,
    registerStream,
    emit,
    /** Open the connection (register streams first). */
    start() {
      if (status !== 'idle') return;
      if (o.appState && typeof o.appState.addEventListener === 'function') {
        appStateSub = o.appState.addEventListener('change', (st) => {
          if (st === 'active') reconnectNow();
        });
      }
      connect();
    },
    /** Graceful stop: bye, close 1000, no reconnect. */
    close(reason = 'app closing') {
      const sock = ws;
      if (sock && sock.readyState === OPEN) send({ t: 'bye', reason });
      setStatus('closed');
      for (const t of [reconnectTimer, welcomeTimer, flushTimer, watchdogTimer]) if (t) clearT(t);
      reconnectTimer = welcomeTimer = flushTimer = watchdogTimer = null;
      for (const s of streams.values()) if (s.idleTimer) clearT(s.idleTimer);
      if (appStateSub && typeof appStateSub.remove === 'function') appStateSub.remove();
      ws = null;
      if (sock) {
        try {
          sock.close(1000, reason);
        } catch (_) {
          /* already closing */
        }
      }
    },
    reconnectNow,
    /** Send what is batched now instead of after batchMs. */
    flush,
    /** Kill the socket abruptly (tests, debugging): the adapter reconnects and resumes. */
    dropConnection() {
      if (!ws) return false;
      if (typeof ws.terminate === 'function') ws.terminate();
      else ws.close(4000, 'dropped by the app');
      return true;
    },
    /** Test hook: behave like a stalled JS thread (no pongs, no responses, no flushes) until resumed. */
    setPaused(on) {
      paused = !!on;
      if (!paused) {
        while (inbox.length && !paused) handleFrame(inbox.shift());
        scheduleFlush();
      }
    },
    get status() {
      return status;
    },
    get limits() {
      return { ...lim };
    },
    info() {
      const st = {};
      for (const s of streams.values()) st[s.name] = { lastSeq: s.seq, oldestSeq: s.ring.oldestSeq, lastSent: s.lastSent };
      return { status, sessionId, welcomes, reconnects, streams: st, stats: stats(), lastError, lastClose, g };
    },
    /** Internal access for collectors: effective limits and the redaction predicate. */
    encodingOptions() {
      return { limits: lim, redact };
    },
  };
}
