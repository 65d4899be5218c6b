// Data breakpoints in a Node program: pairdbg's helper, evaluated once in the program (Runtime.evaluate) under the
// sourceURL pairdbg-datawatch.js. pairdbg blackboxes all of it but the line of `pause` (so steps pass through it)
// and hides its frames from stacks.
//
// JavaScript has no hook on a plain write, so a watch makes the write run code:
// - a property of an object: its own data property becomes an accessor (same enumerability) holding the value; an
//   own accessor or an inherited setter is wrapped by an own accessor that calls it. The instance alone changes.
// - an entry of a Map (m.get(k)) or the membership of a Set value (s.has(v)): that instance's set/add, delete and
//   clear become own (non-enumerable) methods that call the original ones; Map.prototype and Set.prototype are
//   untouched.
// A change whose condition holds sends a pairdbgDataChange binding call naming it, then runs `debugger;`: pairdbg
// reports that pause from the writing frame. A log-only watch sends the call and goes on. While it is paused there,
// takeStop() gives the same change once (js-debug's path: its binding calls and pauses come on two sockets).
(() => {
  const KEY = Symbol.for("pairdbg.datawatch");
  if (globalThis[KEY]) return globalThis[KEY];
  // The binding pairdbg added (Runtime.addBinding). JavaScriptCore's inspector (Bun) has none: there the changes wait
  // in `unsent` until pairdbg takes them (takeLog): at every pause, by polling while the program idles, and at a
  // pause of the helper's own (flush) when they pile up in a busy program or as it exits.
  const binding = globalThis.pairdbgDataChange;
  delete globalThis.pairdbgDataChange;
  const unsent = [];
  let lastFlush = Date.now();
  const FLUSH_AFTER = 1000, FLUSH_MS = 500;
  const VALUE_CHARS = 120;
  const MAX_EVENTS = 10000; // per watch: later changes are neither sent nor stopped at
  const UNSET = "<unset>";
  const UNSET_MARK = Symbol("unset"); // no value (a missing Map entry, a getter that failed)
  // The one line pairdbg leaves out of the blackboxed ranges: V8 ignores `debugger;` in blackboxed code.
  const pause = () => { debugger; }; // pairdbg-datawatch: pause
  const flush = () => { debugger; }; // pairdbg-datawatch: flush
  const send = binding || ((text) => {
    unsent.push(text);
    if (unsent.length >= FLUSH_AFTER || Date.now() - lastFlush >= FLUSH_MS) flush();
  });
  if (!binding && typeof process === "object" && process && typeof process.on === "function") {
    process.on("exit", () => { if (unsent.length) flush(); }); // the last changes, before the inspector goes
  }

  let stopping = null; // the change the helper's `debugger;` is pausing for, until pairdbg takes it
  const watches = new Map(); // id -> watch
  const properties = new WeakMap(); // object -> Map(key -> {watches: [], restore})
  const collections = new WeakMap(); // Map/Set -> {watches: [], saved}
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, isExtensible, isFrozen, isSealed } = Object;
  const MapProto = Map.prototype;
  const SetProto = Set.prototype;
  const mapGet = MapProto.get, mapHas = MapProto.has, setHas = SetProto.has;
  const isMap = (o) => { try { mapHas.call(o, undefined); return true; } catch (e) { return false; } };
  const isSet = (o) => { try { setHas.call(o, undefined); return true; } catch (e) { return false; } };

  function show(v) {
    let text;
    try {
      if (typeof v === "string") text = JSON.stringify(v);
      else if (typeof v === "bigint") text = `${v}n`;
      else if (typeof v === "symbol") text = v.toString();
      else if (typeof v === "function") text = `[Function ${v.name || "(anonymous)"}]`;
      else if (v === null || typeof v !== "object") text = String(v);
      else if (Array.isArray(v)) text = `Array(${v.length})`;
      else text = `${(v.constructor && v.constructor.name) || "Object"} ${JSON.stringify(v)}`;
    } catch (e) {
      text = `${(v && v.constructor && v.constructor.name) || typeof v} {…}`;
    }
    return text.length > VALUE_CHARS ? text.slice(0, VALUE_CHARS - 1) + "…" : text;
  }

  function site(skip) {
    // The writing statement: the first frame below the helper's own (V8's structured call sites).
    const saved = Error.prepareStackTrace, limit = Error.stackTraceLimit;
    let sites = [];
    try {
      Error.stackTraceLimit = 12;
      Error.prepareStackTrace = (_, s) => s;
      const holder = {};
      Error.captureStackTrace(holder, skip);
      sites = holder.stack || [];
    } catch (e) {
      sites = [];
    } finally {
      Error.prepareStackTrace = saved;
      Error.stackTraceLimit = limit;
    }
    for (const s of sites) {
      const file = s.getFileName && s.getFileName();
      if (!file || file.includes("pairdbg-datawatch") || (s.isNative && s.isNative()) || file === "[native code]") continue;
      return { file, line: s.getLineNumber(), column: s.getColumnNumber(), function: s.getFunctionName() || "(anonymous)" };
    }
    return { file: "?", line: 0, column: 0, function: "?" };
  }

  // The hot path (every write to a watched property). A place has one enabled watch almost always: it is kept in
  // `entry.only`, so a write that changes the value costs a closure store, a compare and the condition, all of which
  // V8 inlines into the setter (a loop over the list and a call per watch made a write ~5x dearer). The change is
  // signalled to pairdbg only when the condition holds: nothing crosses the inspector's socket otherwise.
  function changed(entry, old, value, skip) {
    const w = entry.only;
    if (w === null) {
      if (entry.several) changedAll(entry.watches, old, value, skip);
      return;
    }
    const holds = w.test === null ? true : check(w, value, old);
    if (holds !== false) report(w, old, value, skip, holds);
  }

  function changedAll(list, old, value, skip) {
    for (let i = 0; i < list.length; i++) {
      const w = list[i];
      if (!w.enabled) continue;
      const holds = w.test === null ? true : check(w, value, old);
      if (holds !== false) report(w, old, value, skip, holds);
    }
  }

  // After the watches on a place or their enabled state change: the one enabled watch, or null and whether several.
  function refresh(entry) {
    let on = 0, last = null;
    for (const w of entry.watches) if (w.enabled) { on++; last = w; }
    entry.only = on === 1 ? last : null;
    entry.several = on > 1;
  }

  function check(w, value, old) {
    try {
      return !!w.test(value === UNSET_MARK ? undefined : value, old === UNSET_MARK ? undefined : old);
    } catch (e) {
      return `condition raised ${(e && e.name) || "error"}: ${(e && e.message) || e}`; // logged, never a stop
    }
  }

  function report(w, old, value, skip, holds) {
    if (w.sent >= MAX_EVENTS) return;
    w.sent++;
    const stop = holds === true && !w.logOnly;
    const where = site(skip);
    const body = {
      id: w.id, expression: w.expression, old: old === UNSET_MARK ? UNSET : show(old),
      new: value === UNSET_MARK ? UNSET : show(value), time: Date.now() / 1000, thread: "main", stop,
      file: where.file, line: where.line, column: where.column, function: where.function,
    };
    if (holds !== true) body.note = holds;
    else if (w.sent === MAX_EVENTS) body.note = `${MAX_EVENTS} changes logged; later ones are neither logged nor stopped at`;
    const text = JSON.stringify(body);
    if (!stop) {
      send(text);
      return;
    }
    if (binding) binding(text);
    else unsent.push(text); // taken at the pause that follows
    stopping = text;
    pause();
    stopping = null;
  }


  // ----- properties -------------------------------------------------------------------------------------------------

  // An own data property becomes this accessor: the value lives in its closure. A write through an object that
  // inherits from the watched one makes an own property there, as the data property would have.
  function dataAccessor(obj, key, own, entry) {
    let value = own.value;
    function set(v) {
      if (this !== obj) {
        defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true });
        return;
      }
      const old = value;
      value = v;
      if (Object.is(old, v)) return;
      // The usual case without a call but the condition's: one watch whose condition does not hold. (V8 inlines
      // changed() anyway; JavaScriptCore with a debugger attached runs far slower code, 1M plain writes in ~4 ms
      // instead of ~0.2, and pays for every call: 19x -> 9x the unwatched loop.)
      const w = entry.only;
      if (w !== null && w.test !== null) {
        let holds = true;
        try {
          holds = w.test(v, old);
        } catch (e) {
          // changed() evaluates it again and logs why
        }
        if (!holds) return;
      }
      changed(entry, old, v, set);
    }
    function get() {
      return value;
    }
    entry.restore = () => {
      if (getOwnPropertyDescriptor(obj, key)?.set !== set) return; // the program redefined it: left as it is
      defineProperty(obj, key, { value, writable: true, enumerable: own.enumerable, configurable: true });
    };
    // An array element an array method removed and put back (pop then push): the accessor again, with its value.
    entry.rearm = (v) => {
      value = v;
      defineProperty(obj, key, { get, set, enumerable: own.enumerable, configurable: true });
    };
    entry.current = () => value;
    entry.isArmed = () => getOwnPropertyDescriptor(obj, key)?.set === set;
    return { get, set, enumerable: own.enumerable };
  }

  // ----- array elements ---------------------------------------------------------------------------------------------
  // An element is a property of the array (an index), watched as one: made an accessor, which V8 honours in every
  // write, the array methods' included (sort, reverse, fill, copyWithin and the moves of shift/unshift/splice call its
  // setter). An accessor element keeps that one array's elements in V8's slow (dictionary) mode while it is watched.
  // What no setter sees: pop, shift and splice delete the last elements, and push, unshift and splice add new ones as
  // plain properties. So those five methods become own methods of the instance (Array.prototype is untouched) that,
  // after the original ran, see whether the watched index was removed (a change to <unset>) or added back (a change
  // to its value, and the accessor again). `arr.length = n` drops elements without running any code: not seen.
  const ARRAY_METHODS = ["pop", "shift", "splice", "push", "unshift"];
  const arrays = new WeakMap(); // array -> {entries: Set, saved}

  function guardArray(arr, entry) {
    let guard = arrays.get(arr);
    if (!guard) {
      guard = { entries: new Set(), saved: {} };
      for (const name of ARRAY_METHODS) guard.saved[name] = getOwnPropertyDescriptor(arr, name);
      for (const name of ARRAY_METHODS) {
        const original = arr[name];
        const wrapped = {
          [name](...args) {
            const result = original.apply(this, args);
            if (this === arr) for (const e of guard.entries) e.recheck(wrapped);
            return result;
          },
        }[name];
        defineProperty(arr, name, { value: wrapped, writable: true, enumerable: false, configurable: true });
      }
      arrays.set(arr, guard);
    }
    guard.entries.add(entry);
    entry.present = true;
    entry.recheck = (skip) => {
      if (entry.isArmed()) return;
      const d = getOwnPropertyDescriptor(arr, entry.key);
      if (!d) {
        if (entry.present) {
          entry.present = false;
          changed(entry, entry.current(), UNSET_MARK, skip);
        }
      } else if ("value" in d && d.writable && d.configurable) {
        const old = entry.present ? entry.current() : UNSET_MARK;
        entry.present = true;
        entry.rearm(d.value);
        if (!Object.is(old, d.value)) changed(entry, old, d.value, skip);
      }
    };
    return () => {
      guard.entries.delete(entry);
      if (guard.entries.size) return;
      for (const [name, own] of Object.entries(guard.saved)) {
        if (own) defineProperty(arr, name, own);
        else delete arr[name];
      }
      arrays.delete(arr);
    };
  }

  // An own accessor, or a setter the object inherits: called as before, the value read through its getter.
  function wrappedAccessor(obj, key, own, d, entry) {
    const getOld = d.get, setOld = d.set;
    function read() {
      try {
        return getOld ? getOld.call(obj) : UNSET_MARK;
      } catch (e) {
        return UNSET_MARK;
      }
    }
    function set(v) {
      if (this !== obj) return setOld.call(this, v);
      const old = read();
      setOld.call(this, v);
      const now = getOld ? read() : v;
      if (!Object.is(old, now)) changed(entry, old, now, set);
    }
    function get() {
      return getOld ? getOld.call(this) : undefined;
    }
    entry.restore = () => {
      if (getOwnPropertyDescriptor(obj, key)?.set !== set) return;
      if (own) defineProperty(obj, key, own);
      else delete obj[key];
    };
    return { get, set, enumerable: own ? own.enumerable : false };
  }

  // V8 keeps an object whose property changed kind (data to accessor) in dictionary mode: every write is then a
  // hash lookup and a call it cannot inline, ~10x slower. An object looked through as a prototype is made fast again;
  // the child used for that is dropped at once (only a Proxy in the object's prototype chain could see the lookups).
  function fastAgain(obj) {
    try {
      const child = Object.create(obj);
      for (let i = 0; i < 10; i++) probe(child);
    } catch (e) {
      // an optimization only
    }
  }

  function probe(o) {
    return o.pairdbgNoSuchProperty;
  }

  function inherited(obj, key) {
    for (let p = getPrototypeOf(obj); p !== null; p = getPrototypeOf(p)) {
      const d = getOwnPropertyDescriptor(p, key);
      if (d) return d;
    }
    return undefined;
  }

  function watchProperty(obj, key, w) {
    const have = properties.get(obj);
    if (have && have.has(key)) {
      const shared = have.get(key);
      shared.watches.push(w);
      refresh(shared);
      w.entry = shared;
      w.release = () => shared.release(w);
      return { value: show(obj[key]) };
    }
    const own = getOwnPropertyDescriptor(obj, key);
    const kind = `${(obj.constructor && obj.constructor.name) || "Object"}`;
    if (isFrozen(obj)) return { refused: `the ${kind} object is frozen (Object.freeze): its properties cannot change` };
    if (own && !own.configurable && obj === globalThis) {
      return { refused: `${String(key)} is a top-level var or function of a script: a non-configurable property of ` +
        "the global object, which cannot be turned into an accessor that sees its writes" };
    }
    if (own && !own.configurable) {
      const why = isSealed(obj) ? "the object is sealed (Object.seal)" : "the property is non-configurable";
      return { refused: `${why}: it cannot be turned into an accessor that sees its writes` };
    }
    const index = /^(0|[1-9]\d*)$/.test(String(key));
    if (index && ArrayBuffer.isView(obj)) {
      return { refused: "a typed array's elements live in its buffer: the engine writes them without running any " +
        "code, and they cannot become accessors" };
    }
    const element = index && Array.isArray(obj);
    if (element && !own) {
      return {
        refused: Number(key) >= obj.length ? `the array has no element ${key} (its length is ${obj.length})`
          : `element ${key} of the array is a hole (never set): watching it would make \`in\` see one`,
      };
    }
    const entry = { watches: [w], only: w, several: false, key };
    let accessor;
    if (own && "value" in own) {
      if (!own.writable) return { refused: "the property is read-only (writable: false): a write cannot change it" };
      accessor = dataAccessor(obj, key, own, entry);
    } else {
      const d = own || inherited(obj, key);
      if (!d) {
        return { refused: `the object has no property ${String(key)} yet: watching it would make \`in\` and ` +
          "hasOwnProperty see one" };
      }
      if (!d.set) {
        if ("value" in d) {
          return { refused: `${String(key)} is inherited from a prototype: a write adds an own property there, which ` +
            "would change what other objects read; watch it once the object has its own" };
        }
        return { refused: `${String(key)} is an accessor without a setter: a write cannot change it` };
      }
      accessor = wrappedAccessor(obj, key, own, d, entry);
    }
    if (!isExtensible(obj) && !own) return { refused: "the object is not extensible (Object.preventExtensions)" };
    defineProperty(obj, key, { get: accessor.get, set: accessor.set, enumerable: accessor.enumerable, configurable: true });
    const unguard = element ? guardArray(obj, entry) : null;
    if (!element) fastAgain(obj);
    const byKey = have || new Map();
    byKey.set(key, entry);
    properties.set(obj, byKey);
    entry.release = (x) => {
      entry.watches = entry.watches.filter((y) => y !== x);
      refresh(entry);
      if (entry.watches.length) return;
      if (unguard) unguard();
      entry.restore();
      if (!element) fastAgain(obj);
      byKey.delete(key);
    };
    w.entry = entry;
    w.release = () => entry.release(w);
    return { value: show(obj[key]) };
  }

  // ----- Map and Set entries ----------------------------------------------------------------------------------------

  function watchEntry(obj, kind, key, w) {
    const map = kind === "map";
    if (map ? !isMap(obj) : !isSet(obj)) return { refused: `the object is not a ${map ? "Map" : "Set"}` };
    if (!isExtensible(obj)) return { refused: `the ${map ? "Map" : "Set"} is not extensible: its methods cannot be wrapped` };
    const read = map ? () => (mapHas.call(obj, key) ? mapGet.call(obj, key) : UNSET_MARK) : () => setHas.call(obj, key);
    let entry = collections.get(obj);
    if (!entry) {
      const names = map ? ["set", "delete", "clear"] : ["add", "delete", "clear"];
      entry = { watches: [], saved: {} };
      for (const name of names) {
        const own = getOwnPropertyDescriptor(obj, name);
        if (own && !own.configurable) return { refused: `its own ${name} cannot be replaced (non-configurable)` };
        entry.saved[name] = own;
      }
      for (const name of names) {
        const original = obj[name];
        const wrapped = {
          [name](...args) {
            const before = entry.watches.map((x) => x.read());
            const result = original.apply(this, args);
            entry.watches.forEach((x, i) => {
              const after = x.read();
              if (!Object.is(before[i], after)) changedAll([x], before[i], after, wrapped);
            });
            return result;
          },
        }[name];
        defineProperty(obj, name, { value: wrapped, writable: true, enumerable: false, configurable: true });
      }
      collections.set(obj, entry);
    }
    w.read = read;
    entry.watches.push(w);
    w.release = () => {
      entry.watches = entry.watches.filter((x) => x !== w);
      if (entry.watches.length) return;
      for (const [name, own] of Object.entries(entry.saved)) {
        if (own) defineProperty(obj, name, own);
        else delete obj[name];
      }
      collections.delete(obj);
    };
    const now = read();
    return { value: now === UNSET_MARK ? UNSET : show(now) };
  }

  // ----- what pairdbg calls (Runtime.callFunctionOn) ----------------------------------------------------------------

  function describeTarget(obj) {
    const name = (obj && obj.constructor && obj.constructor.name) || "Object";
    return name;
  }

  const api = {
    watch(obj, id, kind, key, expression, test, logOnly) {
      if (obj === null || (typeof obj !== "object" && typeof obj !== "function")) {
        return { refused: `${expression} is not held by an object (a ${obj === null ? "null" : typeof obj} has no properties to watch)` };
      }
      if (watches.has(id)) api.unwatch(id);
      const w = { id, expression, test: test || null, logOnly: !!logOnly, enabled: true, sent: 0, entry: null };
      let answer;
      try {
        answer = kind === "property" ? watchProperty(obj, key, w) : watchEntry(obj, kind, key, w);
      } catch (e) {
        return { refused: `the watch could not be installed (${(e && e.message) || e})` };
      }
      if (answer.refused) return answer;
      watches.set(id, w);
      if (kind === "property" && Array.isArray(obj) && /^(0|[1-9]\d*)$/.test(String(key))) {
        answer.watching = `element ${key} of an Array (length ${obj.length})`;
        answer.missed = "`arr.length = n` dropping the element (seen at the next push, pop, shift, unshift or " +
          "splice on it), Array.prototype methods called on it directly (Array.prototype.pop.call(arr)), " +
          "Object.defineProperty on the index; while watched, hasOwnProperty('push'/'pop'/'shift'/'unshift'/" +
          "'splice') is true and the array's elements are in V8's slower dictionary mode";
        return answer;
      }
      const what = kind === "property" ? `property ${JSON.stringify(String(key))}` :
        kind === "map" ? `entry ${show(key)}` : `membership of ${show(key)}`;
      answer.watching = `${what} of a ${describeTarget(obj)} object`;
      answer.missed = kind === "property"
        ? "Object.defineProperty on the same key (it replaces the watch), writes by native code, " +
          "and Object.getOwnPropertyDescriptor sees an accessor while it is watched"
        : `${kind === "map" ? "Map" : "Set"}.prototype methods called on it directly (they bypass the instance's own ` +
          "wrapped methods), and hasOwnProperty('set'/'add'/'delete'/'clear') is true while it is watched";
      return answer;
    },
    unwatch(id) {
      const w = watches.get(id);
      if (!w) return { removed: false };
      watches.delete(id);
      if (w.release) w.release();
      return { removed: true };
    },
    update(id, enabled, test, hasTest) {
      const w = watches.get(id);
      if (!w) return { refused: "no such watch in the program" };
      if (enabled !== null && enabled !== undefined) w.enabled = !!enabled;
      if (w.entry) refresh(w.entry);
      if (hasTest) w.test = test || null;
      return { updated: true };
    },
    takeLog() {
      lastFlush = Date.now();
      return unsent.splice(0, unsent.length);
    },
    takeStop() {
      const text = stopping;
      stopping = null;
      return text;
    },
  };
  defineProperty(globalThis, KEY, { value: api, enumerable: false, configurable: true, writable: false });
  return api;
})()
