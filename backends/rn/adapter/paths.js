// Path parsing and lookup in raw (not yet encoded) app state, for state.getPath and snapshot scopes.

import { AdapterError } from './errors.js';

/** Split a path: "a.b[0]['c d'].e", "routes.0.name", or a JSON Pointer "/a/b/0". */
export function parsePath(path) {
  if (Array.isArray(path)) return path.map(String);
  if (typeof path !== 'string') throw new AdapterError('BAD_REQUEST', 'path must be a string');
  if (path === '' || path === '$') return [];
  if (path.startsWith('/')) {
    return path
      .slice(1)
      .split('/')
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  const segs = [];
  const re = /([^.[\]]+)|\[\s*(?:(\d+)|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*\]|(\.)|(.)/g;
  let m;
  const body = path.startsWith('$') ? path.slice(1) : path;
  while ((m = re.exec(body)) !== null) {
    if (m[1] !== undefined) segs.push(m[1]);
    else if (m[2] !== undefined) segs.push(m[2]);
    else if (m[3] !== undefined) segs.push(JSON.parse(`"${m[3]}"`));
    else if (m[4] !== undefined) segs.push(m[4].replace(/\\(.)/g, '$1'));
    else if (m[6] !== undefined) throw new AdapterError('BAD_REQUEST', `cannot parse path ${JSON.stringify(path)}`);
  }
  return segs;
}

/** Walk raw (not yet encoded) state: objects, arrays, Maps. Returns {found, value, at}. */
export function resolvePath(root, segs) {
  let cur = root;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    let next;
    let ok = false;
    if (cur !== null && typeof cur === 'object') {
      if (typeof Map !== 'undefined' && cur instanceof Map) {
        if (cur.has(s)) [ok, next] = [true, cur.get(s)];
        else if (/^-?\d+(\.\d+)?$/.test(s) && cur.has(Number(s))) [ok, next] = [true, cur.get(Number(s))];
      } else if (Array.isArray(cur)) {
        if (/^\d+$/.test(s) && Number(s) < cur.length) [ok, next] = [true, cur[Number(s)]];
      } else if (Object.prototype.hasOwnProperty.call(cur, s)) [ok, next] = [true, cur[s]];
    }
    if (!ok) return { found: false, at: segs.slice(0, i).join('.'), missing: s };
    cur = next;
  }
  return { found: true, value: cur };
}
