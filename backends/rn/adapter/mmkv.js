// MMKV collector (react-native-mmkv style storages): `key_set`, `key_delete` and `clear` events on the `mmkv`
// stream. Stream state (PROTOCOL.md §5):
//   {"<instance>": {"secure": false, "totalSize": 123, "keys": {"<key>": {"type": "string", "bytes": 4, "value": "dark"}}}}
// `value` is left out above `valueMaxBytes` and always for secure instances, whose values never leave the app.
//
//   mmkvCollector(adapter, {instances: {default: storage, secure: {storage: secureStorage, secure: true}}});
//
// Writes made through the instance's own set/delete/clearAll are wrapped (exact value types, `clear` as one
// event); addOnValueChangedListener catches the rest (other code holding the same MMKV id). MMKV stores bytes
// without a type, so for a key first seen through the listener the type is guessed from the typed getters.

import { utf8Length } from './encode.js';
import { diff } from './patch.js';

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

function keyFilter(list) {
  if (!list || !list.length) return () => false;
  return (k) => list.some((d) => (d instanceof RegExp ? ((d.lastIndex = 0), d.test(k)) : d === k));
}

function sameEntry(a, b) {
  return !!a && !!b && a.type === b.type && a.bytes === b.bytes && a.value === b.value && hasOwn(a, 'value') === hasOwn(b, 'value');
}

export function mmkvCollector(adapter, options = {}) {
  const stream = options.stream || 'mmkv';
  const withPatch = options.patch !== false;
  const valueMaxBytes = options.valueMaxBytes === undefined ? 1024 : options.valueMaxBytes;
  const denied = keyFilter(options.denyKeys);
  const secureNames = new Set(options.secureInstances || []);
  const insts = new Map(); // name -> {storage, secure, hints: Map<key, type>, writing}
  for (const [name, v] of Object.entries(options.instances || {})) {
    const storage = v && v.storage ? v.storage : v;
    insts.set(name, { name, storage, secure: !!(v && v.storage && v.secure) || secureNames.has(name), hints: new Map(), writing: 0 });
  }

  function readEntry(inst, key) {
    const st = inst.storage;
    let type = inst.hints.get(key);
    let value;
    const get = {
      string: () => (typeof st.getString === 'function' ? st.getString(key) : undefined),
      number: () => (typeof st.getNumber === 'function' ? st.getNumber(key) : undefined),
      boolean: () => (typeof st.getBoolean === 'function' ? st.getBoolean(key) : undefined),
      buffer: () => (typeof st.getBuffer === 'function' ? st.getBuffer(key) : undefined),
    };
    if (type) value = get[type]();
    if (value === undefined) {
      type = undefined;
      for (const t of ['string', 'number', 'boolean', 'buffer']) {
        value = get[t]();
        if (value !== undefined && value !== null) {
          type = t;
          break;
        }
      }
    }
    if (!type) return { type: 'unknown', bytes: 0 };
    const bytes =
      type === 'string' ? utf8Length(value) : type === 'number' ? 8 : type === 'boolean' ? 1 : value && value.byteLength !== undefined ? value.byteLength : 0;
    const entry = { type, bytes };
    if (!inst.secure && type !== 'buffer' && bytes <= valueMaxBytes) entry.value = value;
    return entry;
  }

  function readInstance(inst) {
    const keys = {};
    let totalSize = 0;
    const all = typeof inst.storage.getAllKeys === 'function' ? inst.storage.getAllKeys() : [];
    for (const k of all) {
      if (denied(k)) continue;
      keys[k] = readEntry(inst, k);
      totalSize += keys[k].bytes;
    }
    return { secure: inst.secure, totalSize, keys };
  }

  let view = {};
  for (const inst of insts.values()) view[inst.name] = readInstance(inst);

  adapter.registerStream(stream, {
    kinds: ['key_set', 'key_delete', 'clear'],
    instances: () => [...insts.keys()],
    read: () => view,
  });

  function commit(inst, nextInst, type, data) {
    const next = { ...view, [inst.name]: nextInst };
    const patch = withPatch ? diff(view, next, adapter.encodingOptions()) : undefined;
    view = next;
    adapter.emit(stream, type, data, { patch });
  }

  function onKey(inst, key, fromListener) {
    if (denied(key)) return;
    const cur = view[inst.name];
    const exists = typeof inst.storage.contains === 'function' ? inst.storage.contains(key) : (inst.storage.getAllKeys() || []).includes(key);
    if (!exists) {
      inst.hints.delete(key);
      if (fromListener && !hasOwn(cur.keys, key)) return;
      const keys = { ...cur.keys };
      const had = hasOwn(keys, key);
      const freed = had ? keys[key].bytes : 0;
      delete keys[key];
      commit(inst, { ...cur, totalSize: cur.totalSize - freed, keys }, 'key_delete', { instance: inst.name, key, existed: had });
      return;
    }
    const entry = readEntry(inst, key);
    if (fromListener && sameEntry(cur.keys[key], entry)) return; // the listener echoing a wrapped write
    const old = hasOwn(cur.keys, key) ? cur.keys[key].bytes : 0;
    const data = { instance: inst.name, key, valueType: entry.type, bytes: entry.bytes };
    if (inst.secure) data.secure = true;
    else if (hasOwn(entry, 'value')) data.value = entry.value;
    else data.valueOmitted = true;
    commit(inst, { ...cur, totalSize: cur.totalSize - old + entry.bytes, keys: { ...cur.keys, [key]: entry } }, 'key_set', data);
  }

  function typeOf(value) {
    if (typeof value === 'string') return 'string';
    if (typeof value === 'number') return 'number';
    if (typeof value === 'boolean') return 'boolean';
    return 'buffer';
  }

  const undo = [];
  for (const inst of insts.values()) {
    const st = inst.storage;
    if (options.wrap !== false) {
      const wrap = (method, after, before) => {
        const orig = st[method];
        if (typeof orig !== 'function') return;
        const wrapped = function (...args) {
          if (before) before(...args);
          inst.writing++;
          let r;
          try {
            r = orig.apply(this, args);
          } finally {
            inst.writing--;
          }
          after(...args);
          return r;
        };
        try {
          st[method] = wrapped;
          undo.push(() => {
            st[method] = orig;
          });
        } catch (_) {
          /* a frozen host object: the listener alone reports its changes */
        }
      };
      wrap(
        'set',
        (key) => onKey(inst, key, false),
        (key, value) => {
          if (!denied(key)) inst.hints.set(key, typeOf(value));
        },
      );
      wrap('delete', (key) => onKey(inst, key, false));
      wrap('clearAll', () => {
        const cur = view[inst.name];
        inst.hints.clear();
        const fresh = readInstance(inst); // denied keys or keys clearAll kept
        commit(inst, fresh, 'clear', { instance: inst.name, keys: Object.keys(cur.keys).length });
      });
    }
    if (typeof st.addOnValueChangedListener === 'function') {
      const sub = st.addOnValueChangedListener((key) => {
        if (inst.writing === 0) onKey(inst, key, true);
      });
      undo.push(() => sub && typeof sub.remove === 'function' && sub.remove());
    }
  }

  return {
    stream,
    detach() {
      for (const f of undo.reverse()) f();
    },
  };
}
