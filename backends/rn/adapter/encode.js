// Value encoding for pairdbg's React Native wire protocol v1 (backends/rn/PROTOCOL.md §7).
// Turns any JS value into plain JSON: non-JSON values become `$t`-tagged objects, oversized parts become `$trunc`
// markers. Pure functions, no dependencies: runs the same in Hermes/JSC and in Node.

export const DEFAULT_VALUE_LIMITS = Object.freeze({
  maxString: 4096, // characters; longer strings become {"$trunc":"string",...}
  stringHead: 256, // characters kept in a truncated string's `head`
  maxArray: 200, // items kept (also Map/Set entries)
  maxKeys: 200, // own keys kept per object
  maxDepth: 12, // nesting levels below the root that are expanded
  stackLines: 8, // lines of an Error's stack
});

const objectProto = Object.prototype;
const hasOwn = (o, k) => objectProto.hasOwnProperty.call(o, k);

/** True for `{}`-style objects (prototype Object.prototype or null). */
export function isPlainObject(v) {
  if (v === null || typeof v !== 'object') return false;
  const p = Object.getPrototypeOf(v);
  return p === objectProto || p === null;
}

/** Objects whose own keys collide with the reserved tag/marker keys are wrapped, so they are not structural. */
export function hasReservedKey(o) {
  return hasOwn(o, '$t') || hasOwn(o, '$trunc');
}

/** Values whose encoding is their own structure (the patch computation recurses into these only). */
export function isStructural(v) {
  return Array.isArray(v) || (isPlainObject(v) && !hasReservedKey(v));
}

/** Byte length of a string once UTF-8 encoded (no TextEncoder needed). */
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** A key denylist (strings compared case-insensitively, or RegExps) as a predicate; null when empty. */
export function keyMatcher(list) {
  if (!list || list.length === 0) return null;
  const names = new Set();
  const res = [];
  for (const item of list) {
    if (item instanceof RegExp) res.push(item);
    else names.add(String(item).toLowerCase());
  }
  return (key) => {
    const k = String(key);
    if (names.has(k.toLowerCase())) return true;
    for (const re of res) {
      re.lastIndex = 0;
      if (re.test(k)) return true;
    }
    return false;
  };
}

function className(v) {
  try {
    const c = v.constructor;
    if (c && typeof c.name === 'string' && c.name) return c.name;
  } catch (_) {
    /* exotic object */
  }
  const tag = objectProto.toString.call(v); // "[object Foo]"
  return tag.slice(8, -1) || 'Object';
}

function isBytes(v) {
  if (typeof ArrayBuffer === 'undefined') return false;
  return v instanceof ArrayBuffer || ArrayBuffer.isView(v);
}

export function segment(path, key) {
  return typeof key === 'number' ? `${path}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

export function encodeError(e, stackLines = DEFAULT_VALUE_LIMITS.stackLines) {
  const out = { $t: 'error', name: 'Error', message: '' };
  try {
    out.name = String(e && e.name ? e.name : 'Error');
    out.message = String(e && e.message !== undefined ? e.message : e);
    if (e && typeof e.stack === 'string') out.stack = e.stack.split('\n').slice(0, stackLines).join('\n');
  } catch (_) {
    /* keep what we have */
  }
  return out;
}

/**
 * Encode `value` into a JSON-safe tree.
 * opts: {limits, redact (predicate on key names: matching values become {"$t":"redacted"}),
 *        and for a sub-tree of a larger state: depth (of `value` itself), path (its `$.a.b` path),
 *        ancestors ([[object, path], ...] from the root down, so circular refs point where a full encode would)}
 */
export function encode(value, opts = {}) {
  const lim = opts.limits ? { ...DEFAULT_VALUE_LIMITS, ...opts.limits } : DEFAULT_VALUE_LIMITS;
  const redact = opts.redact || null;
  // Ancestors being encoded (circular detection); `ancestors` seeds it when `value` is a sub-tree of a larger state.
  const stack = [];
  const paths = [];
  for (const [obj, p] of opts.ancestors || []) {
    stack.push(obj);
    paths.push(p);
  }

  function enc(v, depth, path) {
    switch (typeof v) {
      case 'string':
        return v.length > lim.maxString ? { $trunc: 'string', len: v.length, head: v.slice(0, lim.stringHead) } : v;
      case 'number':
        return Number.isFinite(v) ? v : { $t: 'number', v: String(v) };
      case 'boolean':
        return v;
      case 'undefined':
        return { $t: 'undefined' };
      case 'bigint':
        return { $t: 'bigint', v: v.toString() };
      case 'symbol':
        return { $t: 'symbol', v: v.toString() };
      case 'function':
        return { $t: 'function', name: v.name || '' };
      default:
        break;
    }
    if (v === null) return null;
    const at = stack.indexOf(v);
    if (at !== -1) return { $t: 'circular', ref: paths[at] };
    if (v instanceof Date) {
      const t = v.getTime();
      return { $t: 'date', v: Number.isNaN(t) ? 'Invalid Date' : v.toISOString() };
    }
    if (v instanceof RegExp) return { $t: 'regexp', v: String(v) };
    if (v instanceof Error) return encodeError(v, lim.stackLines);
    if (isBytes(v)) return { $t: 'bytes', len: v.byteLength };
    const isArr = Array.isArray(v);
    const isMap = typeof Map !== 'undefined' && v instanceof Map;
    const isSet = typeof Set !== 'undefined' && v instanceof Set;
    if (depth >= lim.maxDepth) {
      let size;
      try {
        size = isArr ? v.length : isMap || isSet ? v.size : Object.keys(v).length;
      } catch (_) {
        size = 0;
      }
      return { $trunc: 'depth', type: isArr ? 'array' : isMap ? 'map' : isSet ? 'set' : 'object', size };
    }
    stack.push(v);
    paths.push(path);
    try {
      if (isArr) {
        const n = Math.min(v.length, lim.maxArray);
        const out = new Array(n);
        for (let i = 0; i < n; i++) out[i] = enc(v[i], depth + 1, segment(path, i));
        if (v.length > n) out.push({ $trunc: 'array', len: v.length, kept: n });
        return out;
      }
      if (isMap || isSet) {
        const out = { $t: isMap ? 'map' : 'set', size: v.size, v: [] };
        let i = 0;
        for (const entry of v) {
          if (i >= lim.maxArray) {
            out.kept = i;
            break;
          }
          out.v.push(
            isMap
              ? [enc(entry[0], depth + 2, `${path}<key ${i}>`), enc(entry[1], depth + 2, `${path}<value ${i}>`)]
              : enc(entry, depth + 1, `${path}<${i}>`),
          );
          i++;
        }
        return out;
      }
      const obj = encodeProps(v, depth, path);
      if (!isPlainObject(v)) return { $t: 'instance', cls: className(v), v: obj };
      if (hasReservedKey(v)) return { $t: 'object', v: obj };
      return obj;
    } finally {
      stack.pop();
      paths.pop();
    }
  }

  function encodeProps(v, depth, path) {
    const out = {};
    let keys;
    try {
      keys = Object.keys(v);
    } catch (e) {
      return { $t: 'error', name: 'Unreadable', message: String(e && e.message) };
    }
    const n = Math.min(keys.length, lim.maxKeys);
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      if (redact && redact(k)) {
        out[k] = { $t: 'redacted' };
        continue;
      }
      let item;
      try {
        item = v[k];
      } catch (e) {
        out[k] = encodeError(e, lim.stackLines); // a throwing getter
        continue;
      }
      out[k] = enc(item, depth + 1, segment(path, k));
    }
    if (keys.length > n) out.$trunc = { type: 'keys', len: keys.length, kept: n };
    return out;
  }

  return enc(value, opts.depth || 0, opts.path || '$');
}

/** JSON text of an already-encoded value plus its UTF-8 size. */
export function measure(encoded) {
  const json = JSON.stringify(encoded);
  return { json, bytes: utf8Length(json) };
}

/** The marker that replaces an event's `data` when it exceeds `limit` bytes. */
export function eventTruncMarker(json, bytes, limit, previewChars = 512) {
  return { $trunc: 'event', bytes, limit, preview: json.slice(0, previewChars) };
}
