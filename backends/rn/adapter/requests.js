// The adapter's answers to the server's requests (streams.list, snapshot.get, state.getPath, events.query,
// ping.echo) and snapshot building, as pure functions over the adapter's state (`env`).

import { encode, isPlainObject, measure } from './encode.js';
import { AdapterError } from './errors.js';
import { parsePath, resolvePath } from './paths.js';

export function buildSnapshot(s, params, env) {
  const { now, lim, redact } = env;
  if (typeof s.spec.read !== 'function') throw new AdapterError('STREAM_UNAVAILABLE', `stream ${s.name} has no snapshot source`);
  let root = s.spec.read();
  const body = { stream: s.name, seq: s.seq, ts: now() };
  if (params.instance !== undefined) {
    const r = resolvePath(root, [String(params.instance)]);
    if (!r.found) throw new AdapterError('PATH_NOT_FOUND', `no instance ${JSON.stringify(params.instance)}`, { instance: params.instance });
    root = r.value;
    body.instance = params.instance;
  }
  if (params.scope !== undefined && params.scope !== null && params.scope !== '') {
    const r = resolvePath(root, parsePath(params.scope));
    if (!r.found) throw new AdapterError('PATH_NOT_FOUND', `no ${JSON.stringify(params.scope)} in ${s.name}`, { scope: params.scope, at: r.at, missing: r.missing });
    root = r.value;
    body.scope = params.scope;
  }
  let data = encode(root, { limits: lim, redact });
  let { bytes } = measure(data);
  const cap = Math.min(lim.maxSnapshotBytes, lim.maxMessageBytes - 1024);
  if (bytes > cap) {
    body.truncated = true;
    if (isPlainObject(data)) {
      // Cut the largest top-level slices until it fits; the agent fetches a `scope` for those.
      const sizes = Object.keys(data).map((k) => [k, measure(data[k]).bytes]);
      sizes.sort((x, y) => y[1] - x[1]);
      data = { ...data };
      for (const [k, n] of sizes) {
        if (bytes <= cap) break;
        data[k] = { $trunc: 'slice', bytes: n, limit: cap };
        bytes = measure(data).bytes;
      }
    }
    if (bytes > cap) data = { $trunc: 'snapshot', bytes, limit: cap };
    bytes = measure(data).bytes;
  }
  body.bytes = bytes;
  body.data = data;
  return body;
}

export function handleRequest(method, p, env) {
  const { streams, getStream, streamInfo, now, lim, redact } = env;
  switch (method) {
    case 'streams.list':
      return { streams: [...streams.values()].map(streamInfo) };
    case 'snapshot.get': {
      const s = getStream(p.stream);
      return buildSnapshot(s, { scope: p.scope, instance: p.instance }, env);
    }
    case 'state.getPath': {
      const s = getStream(p.stream);
      if (typeof p.path !== 'string' && !Array.isArray(p.path)) throw new AdapterError('BAD_REQUEST', 'params.path must be a string');
      if (typeof s.spec.read !== 'function') throw new AdapterError('STREAM_UNAVAILABLE', `stream ${s.name} has no state`);
      const r = resolvePath(s.spec.read(), parsePath(p.path));
      if (!r.found) {
        throw new AdapterError('PATH_NOT_FOUND', `no ${JSON.stringify(p.path)} in ${s.name}`, { path: p.path, at: r.at, missing: r.missing });
      }
      return { stream: s.name, seq: s.seq, path: p.path, exists: true, value: encode(r.value, { limits: lim, redact }) };
    }
    case 'events.query':
      return queryEvents(getStream(p.stream), p, env);
    case 'ping.echo':
      return { now: now(), ...(p.payload !== undefined ? { payload: p.payload } : {}) };
    default:
      throw new AdapterError('UNKNOWN_METHOD', `unknown method ${JSON.stringify(method)}`);
  }
}

export function queryEvents(s, p, env) {
  const { lim } = env;
  const since = p.sinceSeq === undefined || p.sinceSeq === null ? 0 : Number(p.sinceSeq);
  if (!Number.isInteger(since) || since < 0) throw new AdapterError('BAD_REQUEST', 'sinceSeq must be an integer >= 0');
  let limit = p.limit === undefined || p.limit === null ? lim.queryLimit : Number(p.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new AdapterError('BAD_REQUEST', 'limit must be an integer >= 1');
  limit = Math.min(limit, lim.queryMaxLimit);
  const oldestSeq = s.ring.oldestSeq;
  if (since + 1 < oldestSeq) throw new AdapterError('SEQ_EVICTED', 'requested events were evicted', { oldestSeq });
  const type = p.type === undefined || p.type === null ? null : String(p.type);
  const budget = lim.maxMessageBytes - 4096;
  const events = [];
  let bytes = 0;
  let hasMore = false;
  for (const e of s.ring.since(since)) {
    if (type && e.type !== type) continue;
    if (events.length >= limit || bytes + e.json.length * 3 > budget) {
      hasMore = true;
      break;
    }
    events.push(e.item);
    bytes += e.json.length * 3;
  }
  const out = { stream: s.name, events, hasMore, oldestSeq, latestSeq: s.seq };
  if (hasMore) out.nextSinceSeq = events.length ? events[events.length - 1].seq : since;
  return out;
}
