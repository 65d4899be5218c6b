// RFC 6902 patches between two states, as they look once encoded (encode.js): the server applies them to the
// encoded snapshot it holds, so the patch follows the same rules (tags, truncation, depth, redaction, circular
// refs). Reference-equal sub-trees are skipped without looking inside (immutable Redux / navigation states make
// that the common case). Size-capped: over the cap the result is null ("unknown change", PROTOCOL.md §5).

import { DEFAULT_VALUE_LIMITS, encode, isStructural, segment, utf8Length } from './encode.js';

export const DEFAULT_PATCH_LIMITS = Object.freeze({ maxPatchBytes: 8192, maxPatchOps: 512 });

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** One JSON Pointer reference token (RFC 6901). */
export function escapePointer(token) {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

class TooLarge extends Error {}

/**
 * Patch turning encode(a) into encode(b), or null when larger than maxPatchBytes / maxPatchOps.
 * opts: {limits (value + patch limits), redact (key predicate, as for encode)}
 */
export function diff(a, b, opts = {}) {
  const lim = { ...DEFAULT_VALUE_LIMITS, ...DEFAULT_PATCH_LIMITS, ...(opts.limits || {}) };
  const redact = opts.redact || null;
  const ops = [];
  let bytes = 2;
  // Ancestor chains of both sides, for circular references and for encoding replaced sub-trees in context.
  const ancA = [];
  const ancB = [];

  function push(op) {
    const json = JSON.stringify(op);
    bytes += utf8Length(json) + 1;
    ops.push(op);
    if (bytes > lim.maxPatchBytes || ops.length > lim.maxPatchOps) throw new TooLarge();
  }

  function encodedLeaf(v, depth, path) {
    return encode(v, { limits: lim, redact, depth, path, ancestors: ancB });
  }

  function expandable(v, depth) {
    if (!isStructural(v) || depth >= lim.maxDepth) return false;
    return Array.isArray(v) ? v.length <= lim.maxArray : Object.keys(v).length <= lim.maxKeys;
  }

  function walk(x, y, depth, ptr, path) {
    if (x === y) return;
    const cx = ancA.findIndex((e) => e[0] === x);
    const cy = ancB.findIndex((e) => e[0] === y);
    if (cx !== -1 || cy !== -1) {
      if (cx !== -1 && cx === cy) return; // the same circular reference on both sides
      push({ op: 'replace', path: ptr, value: encodedLeaf(y, depth, path) });
      return;
    }
    const arr = Array.isArray(x) && Array.isArray(y);
    const obj = !Array.isArray(x) && !Array.isArray(y);
    if (!(arr || obj) || !expandable(x, depth) || !expandable(y, depth)) {
      const ey = encodedLeaf(y, depth, path);
      if (!isStructural(x) && !isStructural(y)) {
        // Leaves of the same encoding (two equal Dates, NaN and NaN...) are no change.
        const ex = encode(x, { limits: lim, redact, depth, path, ancestors: ancA });
        if (JSON.stringify(ex) === JSON.stringify(ey)) return;
      }
      push({ op: 'replace', path: ptr, value: ey });
      return;
    }
    ancA.push([x, path]);
    ancB.push([y, path]);
    try {
      if (arr) {
        const common = Math.min(x.length, y.length);
        for (let i = 0; i < common; i++) walk(x[i], y[i], depth + 1, `${ptr}/${i}`, segment(path, i));
        for (let i = x.length - 1; i >= y.length; i--) push({ op: 'remove', path: `${ptr}/${i}` });
        for (let i = x.length; i < y.length; i++) {
          push({ op: 'add', path: `${ptr}/${i}`, value: encodedLeaf(y[i], depth + 1, segment(path, i)) });
        }
        return;
      }
      for (const k of Object.keys(x)) {
        if (!hasOwn(y, k)) push({ op: 'remove', path: `${ptr}/${escapePointer(k)}` });
      }
      for (const k of Object.keys(y)) {
        const p = `${ptr}/${escapePointer(k)}`;
        if (!hasOwn(x, k)) {
          push({ op: 'add', path: p, value: redact && redact(k) ? { $t: 'redacted' } : encodedLeaf(y[k], depth + 1, segment(path, k)) });
        } else if (!(redact && redact(k))) {
          walk(x[k], y[k], depth + 1, p, segment(path, k));
        }
      }
    } finally {
      ancA.pop();
      ancB.pop();
    }
  }

  try {
    walk(a, b, 0, '', '$');
  } catch (e) {
    if (e instanceof TooLarge) return null;
    throw e;
  }
  return ops;
}

/** Top-level keys whose values differ by reference (Redux slices that changed). */
export function changedKeys(a, b) {
  const out = [];
  if (a === b) return out;
  const ao = a !== null && typeof a === 'object' ? a : {};
  const bo = b !== null && typeof b === 'object' ? b : {};
  for (const k of Object.keys(bo)) if (!hasOwn(ao, k) || ao[k] !== bo[k]) out.push(k);
  for (const k of Object.keys(ao)) if (!hasOwn(bo, k)) out.push(k);
  return out;
}

/**
 * Apply an RFC 6902 patch (add/remove/replace only, the ops diff() produces) to a JSON value, returning the new
 * value. Used by the tests to check that snapshot + patches == next snapshot; mutates `doc`'s copies only.
 */
export function applyPatch(doc, ops) {
  let root = JSON.parse(JSON.stringify(doc === undefined ? null : doc));
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'remove') root = null;
      else root = JSON.parse(JSON.stringify(op.value));
      continue;
    }
    const tokens = op.path
      .slice(1)
      .split('/')
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    let parent = root;
    for (const t of tokens.slice(0, -1)) parent = parent[Array.isArray(parent) ? Number(t) : t];
    const last = tokens[tokens.length - 1];
    const value = op.value === undefined ? undefined : JSON.parse(JSON.stringify(op.value));
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(i, 0, value);
      else if (op.op === 'remove') parent.splice(i, 1);
      else parent[i] = value;
    } else if (op.op === 'remove') delete parent[last];
    else parent[last] = value;
  }
  return root;
}
