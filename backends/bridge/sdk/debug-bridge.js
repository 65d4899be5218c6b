// debug-bridge: the in-page SDK of pairdbg's web bridge. Wire contract: backends/bridge/PROTOCOL.md (version 1).
// One plain ES module without dependencies: import it from the bridge (GET /debug-bridge.js) or bundle it.
// It never throws into the page: every hook is guarded, and telemetry is dropped (not queued) while no
// connection is streaming. Its own output goes only to the socket, never through the hooked console.
//
//   import { createDebugBridge } from 'http://127.0.0.1:19851/debug-bridge.js';
//   const bridge = createDebugBridge({ token, appName: 'shop', getCustomState: () => ({ cart: store.cart }) });
//   bridge.connect();   // later: bridge.sendCustomState('cart', store.cart); bridge.disconnect();
//
// Options: url (default ws://<host this module came from>/debug?role=app&sessionId=…), sessionId (default
// tab-<random>, kept in sessionStorage), token, appName, appVersion, enableDomSnapshot / enableDomMutations /
// enableUiTree / enableConsole / enableErrors (true), enableEval (false), getCustomState, getUiTreeItems,
// maxSnapshotBytes (512 KiB), mutationBatchMs (75), uiTreeThrottleMs (500).

const SDK_INFO = { name: 'debug-bridge', version: '1.0.0' };
const STOP_CODES = [4000, 4001, 4002]; // session ended / unauthorized / unsupported version: do not reconnect
const REPLACED = 4004; // another connection took this sessionId
const ARG_MAX = 4096, ARGS_MAX = 32, NODE_HTML_MAX = 2048, NODE_TEXT_MAX = 1024, NODES_PER_RECORD = 20;
const EVAL_MAX = 65536, NAME_MAX = 80, VALUE_MAX = 1024, STATE_BUDGET = 256 * 1024, MSG_MAX_BYTES = 1000000;
const RECORDS_MAX = 200, BATCH_CHARS_MAX = 256 * 1024, TREE_MAX = 1000, BUFFERED_MAX = 8 * 1024 * 1024;
const MASK_SEL = '[data-debug-bridge-mask]';
const SECRET_SEL = 'input[type=password], input[autocomplete^="cc-"]';
const MASK_ANY = `${MASK_SEL}, input[type=password][value], input[autocomplete^="cc-"][value]`;
const CANDIDATES = 'a[href],area[href],button,input,select,textarea,summary,[contenteditable],[tabindex],' +
  '[onclick],[role],h1,h2,h3,h4,h5,h6,nav,main,form,header,footer,aside,section,dialog';
const FOCUSABLE = 'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,iframe,[tabindex],' +
  '[contenteditable]:not([contenteditable=false])';
const TEXT_TARGETS = 'button,a,[role=button],input[type=button],input[type=submit],input[type=reset],summary';
const NOT_TYPABLE = /^(checkbox|radio|file|submit|button|image|reset|hidden)$/;
const NO_VALUE = /^(checkbox|radio|button|submit|reset|image|file)$/; // inputs whose value says nothing
const words = (s) => new Set(s.split(' '));
const LISTED_ROLES = words('button link checkbox radio switch textbox searchbox combobox listbox option menu ' +
  'menubar menuitem menuitemcheckbox menuitemradio tab tablist slider spinbutton scrollbar tree treeitem grid ' +
  'gridcell heading navigation main form banner contentinfo complementary region search dialog alertdialog alert');
const NAME_FROM_CONTENT = words('button link checkbox radio switch option menuitem menuitemcheckbox menuitemradio ' +
  'tab treeitem gridcell heading generic');
const NO_TEXT_ROLES = words('textbox searchbox combobox listbox spinbutton slider navigation main form banner ' +
  'contentinfo complementary region search menu menubar tablist tree grid');
const LOAD_ID = randomHex(16); // one per page load (module instance)
const ENCODER = new TextEncoder();

// ---- small helpers ------------------------------------------------------------------------------------------

function randomHex(n) {
  const a = new Uint8Array(n);
  try { crypto.getRandomValues(a); } catch { for (let i = 0; i < n; i++) a[i] = Math.random() * 256; }
  return Array.from(a, (b) => b.toString(16).padStart(2, '0')).join('');
}

function cut(s, max) {
  if (s.length <= max) return s;
  let end = max - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // do not split a surrogate pair
  return s.slice(0, end) + '…';
}

const squash = (s) => String(s).replace(/\s+/g, ' ').trim();
const round1 = (x) => Math.round(x * 10) / 10;
const attempt = (fn, ...args) => { try { return fn(...args); } catch { return undefined; } };
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const num = (v, dflt) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : dflt);
const isNode = (v) => typeof Node === 'function' && v instanceof Node;

class CommandError extends Error { // a command that could not act: errorCode + message (+ extra reply fields)
  constructor(code, message, extra) { super(message); this.code = code; this.extra = extra; }
}
const fail = (code, message, extra) => { throw new CommandError(code, message, extra); };

// ---- values to text / JSON, bounded ---------------------------------------------------------------------------

function errorText(e) {
  const stack = typeof e.stack === 'string' ? e.stack : '';
  const head = `${e.name || 'Error'}: ${e.message}`;
  return stack.includes(e.message) ? stack : stack ? `${head}\n${stack}` : head;
}

function describeNode(n) {
  if (n.nodeType === 3) return `#text "${cut(n.data, 80)}"`;
  if (n.nodeType !== 1) return n.nodeName;
  const classes = typeof n.className === 'string' ? n.className.trim() : '';
  const cls = classes ? '.' + classes.split(/\s+/).join('.') : '';
  return `<${n.localName}${n.id ? '#' + n.id : ''}${cls}>`;
}

// A JSON-safe copy of v within a character budget: cycles become "[Circular]", long strings and big
// containers are cut, Errors and DOM nodes are described.
function plain(v, budget, strMax, depth = 0, stack = []) {
  if (budget.left <= 0) return '[cut]';
  switch (typeof v) {
    case 'undefined': return null;
    case 'boolean': budget.left -= 5; return v;
    case 'number': budget.left -= 8; return Number.isFinite(v) ? v : String(v);
    case 'string': {
      const s = cut(v, Math.max(16, Math.min(strMax, budget.left)));
      budget.left -= s.length + 2;
      return s;
    }
    case 'bigint': return `${v}n`;
    case 'function': return `[Function ${v.name || 'anonymous'}]`;
    case 'symbol': return String(v);
  }
  if (v === null) return null;
  if (stack.includes(v)) return '[Circular]';
  if (v instanceof Error) return cut(errorText(v), strMax);
  if (isNode(v)) return describeNode(v);
  if (depth >= 12) return Array.isArray(v) ? '[Array]' : '[Object]';
  stack.push(v);
  try {
    if (typeof v.toJSON === 'function') return plain(v.toJSON(), budget, strMax, depth + 1, stack);
    if (v instanceof Map || v instanceof Set || ArrayBuffer.isView(v)) v = Array.from(v);
    const isArray = Array.isArray(v), out = isArray ? [] : {};
    const keys = isArray ? v.keys() : Object.keys(v);
    for (const k of keys) {
      if (budget.left <= 0) { if (isArray) out.push('[cut]'); else out['…'] = '[cut]'; break; }
      budget.left -= isArray ? 1 : k.length + 4;
      let item;
      try { item = v[k]; } catch { item = '[Thrown]'; }
      if (isArray) out.push(plain(item, budget, strMax, depth + 1, stack));
      else if (item !== undefined) out[k] = plain(item, budget, strMax, depth + 1, stack);
    }
    return out;
  } catch {
    return '[Unserializable]';
  } finally {
    stack.pop();
  }
}

// One console argument as text: cheap for the common cases (strings, numbers).
function argText(v) {
  if (typeof v === 'string') return v.length > ARG_MAX ? cut(v, ARG_MAX) : v;
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return String(v);
  if (typeof v === 'function') return `[Function ${v.name || 'anonymous'}]`;
  if (v instanceof Error) return cut(errorText(v), ARG_MAX);
  if (isNode(v)) return describeNode(v);
  return cut(JSON.stringify(plain(v, { left: ARG_MAX }, ARG_MAX)), ARG_MAX);
}

function evalText(v) {
  if (v === undefined) return 'undefined';
  let text;
  if (isNode(v)) text = JSON.stringify(describeNode(v));
  else if (v instanceof Error) text = JSON.stringify(errorText(v));
  else try { text = JSON.stringify(v); } catch { text = JSON.stringify(plain(v, { left: EVAL_MAX }, EVAL_MAX)); }
  return cut(text === undefined ? String(v) : text, EVAL_MAX);
}

// ---- elements: visibility, selectors, masking, snapshots ------------------------------------------------------

function isVisible(el) {
  const r = el.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
  const v = getComputedStyle(el).visibility;
  return v !== 'hidden' && v !== 'collapse';
}

const isDisabled = (el) => el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true';
const isMasked = (el) => el.matches(SECRET_SEL) || !!el.closest(MASK_SEL);

function cssPath(el) {
  const parts = [];
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    if (e.id && e.isConnected && document.getElementById(e.id) === e) { parts.unshift('#' + CSS.escape(e.id)); break; }
    const tag = e.localName;
    if (tag === 'html' || (tag === 'body' && e === document.body)) { parts.unshift(tag); break; }
    let n = 1, only = true;
    for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === tag) n++;
    if (n > 1) only = false;
    else for (let s = e.nextElementSibling; s && only; s = s.nextElementSibling) if (s.localName === tag) only = false;
    parts.unshift(only ? CSS.escape(tag) : `${CSS.escape(tag)}:nth-of-type(${n})`);
  }
  return parts.join(' > ');
}

let inertDoc = null;
// A copy of root in an inert document (no scripts, loads or custom-element upgrades) with secrets blanked:
// password / card-number value attributes, and all text and input values inside [data-debug-bridge-mask].
function maskedCopy(root) {
  inertDoc = inertDoc || document.implementation.createHTMLDocument('');
  const copy = inertDoc.importNode(root, true);
  for (const el of [copy, ...copy.querySelectorAll(MASK_ANY)]) {
    if (!el.matches(MASK_ANY)) continue;
    if (!el.matches(MASK_SEL)) { el.removeAttribute('value'); continue; }
    for (const input of [el, ...el.querySelectorAll('input')]) {
      if (input.localName === 'input') input.removeAttribute('value');
    }
    const walker = inertDoc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) t.data = '';
  }
  return copy;
}

function nodeText(n) { // one added/removed node of a mutation record
  if (n.nodeType === 1) {
    const secret = n.closest(MASK_SEL) || n.matches(MASK_ANY) || n.querySelector(MASK_ANY);
    return cut(secret ? maskedCopy(n).outerHTML : n.outerHTML, NODE_HTML_MAX);
  }
  if (n.nodeType === 3) return n.parentElement && n.parentElement.closest(MASK_SEL) ? '' : cut(n.data, NODE_TEXT_MAX);
  return n.nodeType === 8 ? cut(`<!--${n.data}-->`, NODE_TEXT_MAX) : n.nodeName;
}

// The longest start of s within max UTF-8 bytes (never half a surrogate pair).
const cutBytes = (s, max) => (s.length * 3 <= max ? s
  : s.slice(0, ENCODER.encodeInto(s, new Uint8Array(Math.max(0, max))).read));

function snapshot(maxBytes) {
  const root = document.documentElement;
  const full = document.querySelector(MASK_ANY) ? maskedCopy(root).outerHTML : root.outerHTML;
  const html = cutBytes(full, maxBytes);
  return { html, length: full.length, truncated: html.length < full.length };
}

// ---- UI tree: roles, names, values ----------------------------------------------------------------------------

function implicitRole(el) {
  const tag = el.localName;
  switch (tag) {
    case 'button': case 'summary': return 'button';
    case 'a': case 'area': return el.hasAttribute('href') ? 'link' : null;
    case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'textarea': return 'textbox';
    case 'nav': return 'navigation';
    case 'main': case 'form': case 'dialog': return tag;
    case 'aside': return 'complementary';
    case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
    case 'header': case 'footer':
      if (el.parentElement && el.parentElement.closest('article,aside,main,nav,section')) return null;
      return tag === 'header' ? 'banner' : 'contentinfo';
    case 'input': {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'hidden') return null;
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      if (/^(button|submit|reset|image|file|color)$/.test(type)) return 'button';
      return el.hasAttribute('list') ? 'combobox' : type === 'search' ? 'searchbox' : 'textbox';
    }
  }
  if (/^h[1-6]$/.test(tag)) return 'heading';
  return el.isContentEditable && el.getAttribute('contenteditable') !== null ? 'textbox' : null;
}

// The element's role if it belongs in the UI tree, else null.
function listedRole(el) {
  const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
  const implicit = implicitRole(el);
  const tabindex = el.getAttribute('tabindex');
  const actionable = (tabindex !== null && +tabindex >= 0) || el.hasAttribute('onclick');
  if (explicit && explicit !== 'presentation' && explicit !== 'none') {
    return LISTED_ROLES.has(explicit) || implicit || actionable ? explicit : null;
  }
  return implicit || (actionable ? 'generic' : null);
}

function labelText(label) { // a <label>'s own text, without the options / value of controls inside it
  let s = '';
  const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!t.parentElement.closest('select,textarea,option,script,style')) s += t.data;
  }
  return s;
}

const contentText = (el) => squash(el.innerText !== undefined ? el.innerText : el.textContent || '');

// Accessible name: aria-labelledby > aria-label > <label> > button value > placeholder > alt > content (roles
// named from content, never a field's value) > title. Whitespace-collapsed, cut to 80 characters.
function nameOf(el, role, masked) {
  const by = el.getAttribute('aria-labelledby');
  const first = (...texts) => {
    for (const t of texts) { const s = squash(t() || ''); if (s) return cut(s, NAME_MAX); }
    return '';
  };
  const type = el.localName === 'input' ? el.type : '';
  return first(
    () => by && by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean)
      .map((n) => n.innerText || n.textContent || '').join(' '),
    () => el.getAttribute('aria-label'),
    () => el.labels && Array.from(el.labels, labelText).join(' '),
    () => (/^(submit|reset|button)$/.test(type) ? el.value || { submit: 'Submit', reset: 'Reset' }[type] : ''),
    () => el.getAttribute('placeholder'),
    () => el.getAttribute('alt'),
    () => (!masked && NAME_FROM_CONTENT.has(role) ? contentText(el) || (el.querySelector('img[alt]') || {}).alt : ''),
    () => el.getAttribute('title'),
  );
}

function valueOf(el, masked) {
  if (masked) return null;
  const tag = el.localName;
  if (tag === 'input') return NO_VALUE.test(el.type) ? null : cut(el.value, VALUE_MAX);
  if (tag === 'textarea') return cut(el.value, VALUE_MAX);
  if (tag === 'select') return cut(Array.from(el.selectedOptions, (o) => squash(o.text)).join(', '), VALUE_MAX);
  return el.isContentEditable ? cut(el.innerText || '', VALUE_MAX) : null;
}

function ariaState(el, name) {
  const v = el.getAttribute(name);
  return v === 'true' ? true : v === 'false' ? false : v === 'mixed' ? 'mixed' : null;
}

function describeItem(el, role, ref, depth) {
  const masked = isMasked(el), tag = el.localName;
  const isCheck = tag === 'input' && (el.type === 'checkbox' || el.type === 'radio');
  const field = tag === 'input' || tag === 'select' || tag === 'textarea';
  return {
    ref, id: el.getAttribute('data-testid') || el.id || null, selector: cssPath(el), role,
    text: masked || field || NO_TEXT_ROLES.has(role) ? null : cut(contentText(el), NAME_MAX) || null,
    name: nameOf(el, role, masked), depth, disabled: isDisabled(el), visible: isVisible(el), value: valueOf(el, masked),
    states: {
      checked: isCheck ? (el.indeterminate ? 'mixed' : el.checked) : ariaState(el, 'aria-checked'),
      expanded: tag === 'summary' && el.parentElement && el.parentElement.localName === 'details'
        ? el.parentElement.open : ariaState(el, 'aria-expanded'),
      focused: document.activeElement === el,
      required: el.required === true || el.getAttribute('aria-required') === 'true',
    },
    href: (tag === 'a' || tag === 'area') && el.hasAttribute('href') ? el.href : null,
    level: role === 'heading' ? +el.getAttribute('aria-level') || +(/^h([1-6])$/.exec(tag) || [])[1] || null : null,
    meta: {
      'aria-label': el.getAttribute('aria-label'), type: el.getAttribute('type'), name: el.getAttribute('name'),
      placeholder: el.getAttribute('placeholder'), testid: el.getAttribute('data-testid'), tag,
      ...(masked ? { masked: true } : {}),
    },
  };
}

// ---- the bridge -------------------------------------------------------------------------------------------------

export function createDebugBridge(options = {}) {
  const opts = {
    enableDomSnapshot: true, enableDomMutations: true, enableUiTree: true, enableConsole: true, enableErrors: true,
    enableEval: false, maxSnapshotBytes: 512 * 1024, mutationBatchMs: 75, uiTreeThrottleMs: 500, ...options,
  };
  const nativeWarn = console.warn; // the SDK's only local output, never through the hooked console
  const warned = new Set();
  const warnOnce = (key, text) => {
    if (warned.has(key)) return;
    warned.add(key);
    attempt(() => nativeWarn.call(console, `[debug-bridge] ${text}`));
  };

  // ---- session id and socket URL
  const STORE_KEY = 'debugBridge.sessionId';
  const base = attempt(() => new URL(import.meta.url));
  const wsUrl = attempt(() => (opts.url ? new URL(opts.url, base || location.href)
    : new URL(`${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}/debug?role=app`)));
  let sessionId = opts.sessionId || (wsUrl && wsUrl.searchParams.get('sessionId')) || null;
  const autoId = !sessionId;
  const mintSessionId = () => {
    const id = `tab-${randomHex(6)}`;
    attempt(() => sessionStorage.setItem(STORE_KEY, id)); // without storage: one id per page load
    return id;
  };
  if (!sessionId) sessionId = attempt(() => sessionStorage.getItem(STORE_KEY)) || mintSessionId();

  // ---- connection
  let ws = null, ready = false, wanted = false, stopped = false, attempts = 0, retryTimer = 0, droppedTelemetry = 0;
  let server = { evalAllowed: false, settleMs: 100, maxWaitMs: 3000 }, msgMax = MSG_MAX_BYTES;
  const unhooks = [];

  const envelope = (type, fields) => Object.assign({ sessionId, timestamp: Date.now(), origin: 'app', type }, fields);
  // UTF-8 bytes of text beyond the message cap (<= 0: it fits); encodes only when its length cannot tell.
  const overBy = (text) => (text.length * 3 <= msgMax ? -1 : ENCODER.encode(text).length - msgMax);
  // shrink(obj, over) makes an oversized message smaller (false: it cannot); what still does not fit is dropped
  // and counted with the back-pressure drops (the next telemetry message's droppedBefore).
  function sendRaw(obj, text = JSON.stringify(obj), shrink = null) {
    if (!ws || ws.readyState !== 1) return false;
    for (let over; (over = overBy(text)) > 0; text = JSON.stringify(obj)) {
      if (shrink && shrink(obj, over)) continue;
      droppedTelemetry++;
      warnOnce(`big-${obj.type}`, `dropped an oversized ${obj.type} message`);
      return false;
    }
    try { ws.send(text); return true; } catch { return false; }
  }
  const send = (type, fields) => sendRaw(envelope(type, fields));
  function telemetry(obj, text, shrink) { // streamed data: only after welcome; dropped (counted) under back-pressure
    if (!ready || !ws) return;
    if (ws.bufferedAmount > BUFFERED_MAX) { droppedTelemetry++; return; }
    const before = droppedTelemetry;
    if (before) { obj.droppedBefore = before; droppedTelemetry = 0; text = undefined; }
    if (!sendRaw(obj, text, shrink)) droppedTelemetry += before;
  }

  function open() {
    clearTimeout(retryTimer);
    retryTimer = 0;
    if (!wanted || stopped || ws) return;
    if (!wsUrl) return warnOnce('url', 'no bridge URL: pass options.url');
    wsUrl.searchParams.set('role', wsUrl.searchParams.get('role') || 'app');
    wsUrl.searchParams.set('sessionId', sessionId);
    const sock = attempt(() => new WebSocket(wsUrl.href));
    if (!sock) return warnOnce('ws', `cannot open ${wsUrl.href}`);
    ws = sock;
    msgMax = MSG_MAX_BYTES; // until this connection's welcome says otherwise
    sock.onopen = () => ws === sock && send('hello', {
      protocolVersion: 1, token: opts.token, appName: opts.appName, appVersion: opts.appVersion, url: location.href,
      title: document.title, userAgent: navigator.userAgent, viewport: [innerWidth, innerHeight], sdk: SDK_INFO,
      evalAllowed: !!opts.enableEval, loadId: LOAD_ID, sessionIdAuto: autoId,
    });
    sock.onmessage = (ev) => { if (ws === sock) onMessage(ev.data); };
    sock.onclose = (ev) => {
      if (ws !== sock) return;
      ws = null;
      stopStreaming();
      if (!wanted) return;
      if (STOP_CODES.includes(ev.code) || (ev.code === REPLACED && !autoId)) {
        stopped = true;
        return warnOnce(`close-${ev.code}`, `the bridge closed the connection (${ev.code} ${ev.reason}); stopping`);
      }
      if (ev.code === REPLACED) sessionId = mintSessionId(); // a duplicated tab copies sessionStorage: split off
      const delay = Math.min(5000, 250 * 2 ** attempts++);
      retryTimer = setTimeout(open, delay / 2 + (Math.random() * delay) / 2);
    };
  }

  function onMessage(data) {
    const m = attempt(JSON.parse, data);
    if (!m || typeof m.type !== 'string') return;
    if (m.type === 'welcome') return onWelcome(m);
    if (m.type === 'error') return warnOnce(`err-${m.code}`, `bridge error ${m.code || ''}: ${m.message || ''}`);
    runCommand(m).catch(() => {}); // never an unhandled rejection of ours in the page
  }

  function onWelcome(m) {
    server = { evalAllowed: m.evalAllowed === true, settleMs: num(m.settleMs, 100), maxWaitMs: num(m.maxWaitMs, 3000) };
    msgMax = Math.min(MSG_MAX_BYTES, Math.floor(num(m.maxMessageBytes, 0)) || MSG_MAX_BYTES);
    if (Number.isFinite(m.refBase)) nextRef = Math.max(nextRef, Math.floor(m.refBase) + 1);
    ready = true;
    attempts = 0;
    const off = { dom_snapshot: !opts.enableDomSnapshot, dom_mutations: !opts.enableDomMutations,
      ui_tree: !opts.enableUiTree, console: !opts.enableConsole, errors: !opts.enableErrors,
      eval: !(opts.enableEval && server.evalAllowed) };
    const caps = ['dom_snapshot', 'dom_mutations', 'ui_tree', 'console', 'errors', 'state', 'eval', 'click', 'type',
      'navigate'].filter((c) => !off[c]);
    send('capabilities', { capabilities: caps, protocolVersion: 1 });
    if (opts.enableUiTree) attempt(sendTree);
    try { sendStates(); } catch (e) { warnOnce('state', `getCustomState failed: ${e && e.message}`); }
    if (opts.enableDomSnapshot) attempt(sendSnapshot, opts.maxSnapshotBytes);
    if (!observer && typeof MutationObserver === 'function') attempt(() => {
      observer = new MutationObserver(onMutations);
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    });
  }

  function stopStreaming() {
    ready = false;
    if (observer) observer.disconnect();
    observer = null;
    clearTimeout(batchTimer);
    clearTimeout(treeTimer);
    batchTimer = treeTimer = pendingChars = droppedRecords = 0;
    pending = [];
    for (const w of windows) w.finish(false);
  }

  // ---- custom state
  const sentStates = new Map(); // scope -> the last value given to sendCustomState
  function sendStates(requestId) {
    const all = typeof opts.getCustomState === 'function' ? opts.getCustomState() : null;
    if (all && typeof all === 'object') for (const scope of Object.keys(all)) sendState(scope, all[scope], requestId);
  }
  function sendState(scope, state, requestId) {
    if (!ready) return;
    let left = Math.min(STATE_BUDGET, msgMax >> 1); // a character budget; a quarter of it per retry
    const copy = () => plain(state, { left }, Math.min(ARG_MAX, left));
    sendRaw(envelope('state_update', { scope: String(scope), state: copy(), requestId }), undefined,
      (m) => left > 1024 && ((left >>= 2), (m.state = copy()), true));
  }

  // ---- refs and UI tree
  const refOf = new WeakMap(); // element -> ref, for as long as the element lives
  const elOf = new Map(); // ref -> WeakRef(element); refs below nextRef that no longer resolve are stale
  let nextRef = 1, lastTreeAt = -Infinity, treeDirty = false, treeTimer = 0;
  function refFor(el) {
    let ref = refOf.get(el);
    if (!ref) refOf.set(el, (ref = `e${nextRef++}`));
    if (!elOf.has(ref)) elOf.set(ref, new WeakRef(el));
    return ref;
  }
  function byRef(ref) {
    const w = elOf.get(ref), el = w && w.deref(), m = /^e(\d+)$/.exec(ref);
    if (el && el.isConnected) return el;
    if (m && +m[1] < nextRef) fail('STALE_REF', `element ${ref} is no longer in the page`);
    fail('NOT_FOUND', `no element has ref ${ref}`);
  }

  function buildTree(scopeEl) {
    if (typeof opts.getUiTreeItems === 'function' && !scopeEl) {
      const items = opts.getUiTreeItems() || [];
      return { items, total: items.length };
    }
    const found = Array.from((scopeEl || document).querySelectorAll(CANDIDATES));
    if (scopeEl && scopeEl.matches(CANDIDATES)) found.unshift(scopeEl);
    const items = [], stack = []; // stack: listed ancestors of the current element
    let total = 0;
    for (const el of found) {
      const role = listedRole(el);
      if (!role) continue;
      total++;
      if (items.length >= TREE_MAX) continue;
      while (stack.length && !stack[stack.length - 1].contains(el)) stack.pop();
      items.push(describeItem(el, role, refFor(el), stack.length));
      stack.push(el);
    }
    if (elOf.size > 2 * (TREE_MAX + items.length)) {
      for (const [ref, w] of elOf) { const el = w.deref(); if (!el || !el.isConnected) elOf.delete(ref); }
    }
    return { items, total };
  }

  function sendTree(requestId, scopeEl, scope) {
    const { items, total } = buildTree(scopeEl);
    const msg = envelope('ui_tree', { items, url: location.href, title: document.title, total, requestId, scope });
    sendRaw(msg, undefined, (m) => m.items.length > 1 && !!(m.items = m.items.slice(0, m.items.length >> 1)));
    if (!scopeEl) { lastTreeAt = performance.now(); treeDirty = false; }
  }
  function sendSnapshot(maxBytes, requestId) { // cut to maxBytes, then by what the message is over the cap
    sendRaw(envelope('dom_snapshot', { ...snapshot(Math.min(maxBytes, msgMax)), requestId }), undefined, (m, over) =>
      !!m.html && ((m.html = cutBytes(m.html, ENCODER.encode(m.html).length - over)), (m.truncated = true)));
  }

  function scheduleTree() { // automatic re-send after mutations, at most once per uiTreeThrottleMs
    treeDirty = true;
    if (treeTimer) return;
    treeTimer = setTimeout(() => {
      treeTimer = 0;
      if (treeDirty && ready) attempt(sendTree);
    }, Math.max(0, lastTreeAt + opts.uiTreeThrottleMs - performance.now()));
  }

  // ---- DOM mutations: batched; at most RECORDS_MAX records / BATCH_CHARS_MAX characters kept, the rest counted
  let observer = null, pending = [], pendingChars = 0, droppedRecords = 0, batchTimer = 0;
  function mutationRecord(r) {
    const target = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    const rec = { mutationType: r.type, targetSelector: target ? cssPath(target) : r.target.nodeName };
    let size = rec.targetSelector.length + 40;
    if (r.type === 'attributes') {
      rec.attributeName = r.attributeName;
      if (!((r.attributeName === 'value' && isMasked(target)) || target.closest(MASK_SEL))) {
        const v = target.getAttribute(r.attributeName);
        rec.attributeValue = v === null ? null : cut(v, NODE_TEXT_MAX);
        size += v ? rec.attributeValue.length : 0;
      }
    } else if (r.type === 'characterData') {
      rec.textContent = target && target.closest(MASK_SEL) ? '' : cut(r.target.data, NODE_TEXT_MAX);
      size += rec.textContent.length;
    } else {
      for (const key of ['addedNodes', 'removedNodes']) {
        const nodes = r[key];
        if (!nodes.length) continue;
        const list = (rec[key] = []);
        for (let i = 0; i < nodes.length && i < NODES_PER_RECORD; i++) {
          list.push(nodeText(nodes[i]));
          size += list[i].length;
        }
        if (nodes.length > NODES_PER_RECORD) list.push(`[+${nodes.length - NODES_PER_RECORD} more nodes]`);
      }
    }
    return [rec, size];
  }
  function onMutations(records) {
    try {
      const now = performance.now();
      for (const w of windows) { w.mutations += records.length; w.last = now; }
      if (opts.enableUiTree) scheduleTree();
      if (!opts.enableDomMutations) return;
      for (let i = 0; i < records.length; i++) {
        if (pending.length >= RECORDS_MAX || pendingChars >= BATCH_CHARS_MAX) {
          droppedRecords += records.length - i; // counted, not kept: memory stays bounded under a flood
          break;
        }
        const [rec, size] = mutationRecord(records[i]);
        pending.push(rec);
        pendingChars += size;
      }
      if (!batchTimer) batchTimer = setTimeout(flushMutations, opts.mutationBatchMs);
    } catch { /* never throw into the page */ }
  }
  function flushMutations() {
    clearTimeout(batchTimer);
    batchTimer = 0;
    if (!pending.length && !droppedRecords) return;
    const left = sendMutations(pending, droppedRecords);
    pending = [];
    pendingChars = droppedRecords = 0;
    if (left) sendMutations([], left); // records dropped at the end of the batch
  }
  // Records in one message, or in two halves (recursively) when it is over the cap; a lone record over it is
  // dropped. `dropped` rides on the first message sent; returns the drops not yet reported.
  function sendMutations(records, dropped) {
    const msg = envelope('dom_mutations', { mutations: records, dropped }), text = JSON.stringify(msg);
    if (!records.length || overBy(text) <= 0) return telemetry(msg, text), 0;
    if (records.length === 1) return dropped + 1;
    const half = records.length >> 1;
    return sendMutations(records.slice(half), sendMutations(records.slice(0, half), dropped));
  }

  // ---- effects windows: what happened after a command acted. A window ends when settleMs passed without a
  // mutation, after one macrotask for settleMs 0, at pagehide, or maxWaitMs after it opened (even while the
  // command still runs); its onDone then runs synchronously, so results go out before the page's unload message.
  const windows = new Set();
  let channel = null;
  const macroQueue = [];
  function macrotask(fn) {
    if (!channel) { channel = new MessageChannel(); channel.port1.onmessage = () => attempt(macroQueue.shift()); }
    macroQueue.push(fn);
    channel.port2.postMessage(0);
  }
  function effectsWindow(settleMs, maxWaitMs) {
    const start = performance.now();
    const w = { mutations: 0, console: [], consoleCount: 0, errors: [], navigated: null, navigations: [], last: start,
      navigationsDropped: 0, closed: false, settled: false, onDone: null, formControl: false, end: start };
    let timer = 0;
    const capTimer = setTimeout(() => w.finish(false), maxWaitMs);
    w.finish = (settled) => {
      if (w.closed) return;
      Object.assign(w, { closed: true, settled, end: performance.now() });
      clearTimeout(timer);
      clearTimeout(capTimer);
      windows.delete(w);
      if (w.onDone) w.onDone(settled);
    };
    w.start = (onDone) => {
      w.onDone = onDone;
      if (w.closed) return onDone(w.settled);
      w.last = performance.now();
      if (settleMs <= 0) return macrotask(() => w.finish(true));
      const tick = () => {
        const now = performance.now(), quiet = w.last + settleMs - now, cap = start + maxWaitMs - now;
        if (quiet <= 0 || cap <= 0) w.finish(quiet <= 0);
        else timer = setTimeout(tick, Math.min(quiet, cap));
      };
      tick();
    };
    w.effects = (settled) => Object.assign({ windowMs: round1(w.end - start), settled, mutations: w.mutations,
      console: w.console, consoleCount: w.consoleCount, errors: w.errors, navigated: w.navigated },
      w.navigations.length ? { navigations: w.navigations, navigationsDropped: w.navigationsDropped } : {});
    windows.add(w);
    return w;
  }

  // ---- console, errors, navigation hooks
  let inHook = false;
  const halveArgs = (m) => m.args.some((s) => s.length > 16) // a console message over the cap: args cut in half
    && !!(m.args = m.args.map((s) => (s.length > 16 ? cut(s, Math.max(16, s.length >> 1)) : s)));
  function onConsole(level, args) {
    if (!ready || inHook) return;
    inHook = true; // a toJSON that logs must not recurse
    try {
      const n = Math.min(args.length, ARGS_MAX), strs = new Array(n);
      for (let i = 0; i < n; i++) strs[i] = argText(args[i]);
      if (args.length > ARGS_MAX) strs.push(`[… ${args.length - ARGS_MAX} more arguments]`);
      for (const w of windows) {
        if (w.consoleCount++ < 20) w.console.push({ level, args: strs.slice(0, 10).map((s) => cut(s, 1024)) });
      }
      telemetry({ sessionId, timestamp: Date.now(), origin: 'app', type: 'console', level, args: strs }, undefined,
        halveArgs);
    } catch { /* never throw into the page */ } finally { inHook = false; }
  }
  function reportError(fields) { // fields double as the effects entry
    for (const w of windows) if (w.errors.length < 10) w.errors.push(fields);
    telemetry(envelope(fields.type, fields));
  }
  function onError(ev) {
    if (!ready) return;
    attempt(() => {
      if (ev instanceof ErrorEvent || ev.error) {
        reportError({ type: 'error', message: cut(String(ev.message || (ev.error && ev.error.message) || 'error'),
          ARG_MAX), stack: ev.error instanceof Error ? cut(errorText(ev.error), ARG_MAX) : undefined,
          filename: ev.filename && cut(String(ev.filename), ARG_MAX), lineno: ev.lineno, colno: ev.colno });
      } else if (ev.target && ev.target.nodeType === 1) { // a resource failed to load (seen in the capture phase)
        const t = ev.target, src = t.currentSrc || t.src || t.href || '';
        reportError({ type: 'error', message: cut(`failed to load ${describeNode(t)} ${src}`.trim(), ARG_MAX) });
      }
    });
  }
  function onRejection(ev) {
    if (!ready) return;
    attempt(() => {
      const r = ev.reason, isError = r instanceof Error;
      reportError({ type: 'unhandledrejection', reason: isError ? cut(`${r.name}: ${r.message}`, ARG_MAX) : argText(r),
        stack: isError ? cut(errorText(r), ARG_MAX) : undefined });
    });
  }
  function onNavigation(kind) {
    if (!ready) return;
    for (const w of windows) {
      if (w.navigations.length < 20) w.navigations.push({ kind, url: cut(location.href, ARG_MAX) });
      else w.navigationsDropped++;
    }
    telemetry(envelope('navigation', { url: location.href, kind }));
  }
  function onPageHide() { // answer open windows, say goodbye, and close (keeps the page bfcache-eligible)
    if (!ready) return;
    for (const w of windows) { w.navigated = location.href; w.finish(false); }
    attempt(flushMutations);
    onNavigation('unload');
    const sock = ws;
    ws = null;
    stopStreaming();
    attempt(() => sock.close(1000, 'pagehide')); // queued frames go out before the close frame
  }

  function listen(target, type, fn, capture) {
    target.addEventListener(type, fn, capture);
    unhooks.push(() => target.removeEventListener(type, fn, capture));
  }
  function wrapMethod(obj, key, make) { // restored on disconnect unless someone wrapped it after us
    const orig = obj[key];
    if (typeof orig !== 'function') return;
    const wrapped = (obj[key] = make(orig));
    unhooks.push(() => { if (obj[key] === wrapped) obj[key] = orig; });
  }
  function installHooks() {
    if (opts.enableConsole) {
      for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
        wrapMethod(console, level, (orig) => function (...args) {
          if (ready) onConsole(level, args);
          return orig.apply(this, args);
        });
      }
    }
    if (opts.enableErrors) {
      listen(window, 'error', onError, true);
      listen(window, 'unhandledrejection', onRejection);
    }
    for (const kind of ['pushState', 'replaceState']) {
      wrapMethod(history, kind, (orig) => function (...args) {
        const result = orig.apply(this, args);
        attempt(onNavigation, kind);
        return result;
      });
    }
    listen(window, 'popstate', () => onNavigation('popstate'));
    listen(window, 'hashchange', () => onNavigation('hashchange'));
    listen(window, 'pagehide', onPageHide);
    listen(window, 'pageshow', (ev) => ev.persisted && wanted && !ws && open()); // back from the bfcache
  }

  // ---- commands: targets and actionability
  function resolveTarget(t) {
    const bad = () => fail('BAD_REQUEST', 'target must be {ref}, {selector}, {id} or {text}');
    if (!t || typeof t !== 'object') bad();
    if (t.ref != null) return byRef(String(t.ref));
    let el = null, what;
    if (t.selector != null) {
      what = `selector ${t.selector}`;
      el = attempt(() => document.querySelector(String(t.selector)));
      if (el === undefined) fail('BAD_REQUEST', `bad selector ${t.selector}`);
    } else if (t.id != null) {
      what = `id ${t.id}`;
      const id = String(t.id);
      el = document.querySelector(`[data-testid="${CSS.escape(id)}"]`) || document.getElementById(id);
    } else if (t.text != null) {
      what = `text "${t.text}"`;
      const want = squash(t.text);
      for (const c of document.querySelectorAll(TEXT_TARGETS)) {
        if ((c.localName === 'input' ? squash(c.value) : contentText(c)) !== want) continue;
        if (isVisible(c)) { el = c; break; }
        el = el || c; // a hidden match only when no visible one exists
      }
    } else bad();
    if (!el) fail('NOT_FOUND', `no element matches ${what}`);
    return el;
  }
  const label = (el) => refOf.get(el) || describeNode(el);

  function checkUsable(el, { editable } = {}) { // then scrolls it into view
    const what = `element ${label(el)}`;
    if (!el.isConnected) fail('STALE_REF', `${what} is no longer in the page`);
    if (editable === false) fail('NOT_EDITABLE', `${what} (${describeNode(el)}) is not editable; click it instead`);
    if (!isVisible(el)) fail('NOT_VISIBLE', `${what} is not visible (no box, display:none or visibility:hidden)`);
    if (isDisabled(el)) fail('DISABLED', `${what} is disabled`);
    if (editable && el.readOnly) fail('NOT_EDITABLE', `${what} is read-only`);
    if (el.scrollIntoViewIfNeeded) return el.scrollIntoViewIfNeeded(true);
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
      el.scrollIntoView({ block: 'center', inline: 'center' });
    }
  }

  function checkNotCovered(el) { // returns the centre point
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
    if (hit && hit !== el && !el.contains(hit)) {
      const by = `${describeNode(hit)}${refOf.get(hit) ? ` (${refOf.get(hit)})` : ''} at ${cssPath(hit)}`;
      fail('OBSCURED', `element ${label(el)} is covered by ${by}`, { obscuredBy: by });
    }
    return [x, y];
  }

  // ---- commands: actions
  function click(m, w) {
    const el = resolveTarget(m.target);
    checkUsable(el);
    const [x, y] = checkNotCovered(el);
    w.formControl = /^(input|select|textarea|label|option)$/.test(el.localName); // state changes without mutations
    const mouse = { bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y,
      screenX: x + (window.screenX || 0), screenY: y + (window.screenY || 0), button: 0, buttons: 0 };
    const ptr = { ...mouse, pointerId: 1, pointerType: 'mouse', isPrimary: true, width: 1, height: 1 };
    const P = typeof PointerEvent === 'function' ? PointerEvent : MouseEvent;
    const fire = (Ctor, type, init) => el.dispatchEvent(new Ctor(type, init));
    const enter = { bubbles: false, cancelable: false }; // *enter events do not bubble natively
    fire(P, 'pointerover', ptr);
    fire(P, 'pointerenter', { ...ptr, ...enter });
    fire(MouseEvent, 'mouseover', mouse);
    fire(MouseEvent, 'mouseenter', { ...mouse, ...enter });
    const pointerOk = fire(P, 'pointerdown', { ...ptr, buttons: 1 }); // cancelled: no compatibility mouse events
    if (!pointerOk || fire(MouseEvent, 'mousedown', { ...mouse, buttons: 1, detail: 1 })) {
      const f = el.closest(FOCUSABLE), active = document.activeElement;
      if (f) { if (active !== f) f.focus({ preventScroll: true }); }
      else if (active && active !== document.body) active.blur();
    }
    fire(P, 'pointerup', ptr);
    if (pointerOk) fire(MouseEvent, 'mouseup', { ...mouse, detail: 1 });
    // A dispatched click runs the activation behaviour, as el.click() does (checkbox, link, submit button).
    if (el.isConnected) fire(MouseEvent, 'click', { ...mouse, detail: 1 });
    return JSON.stringify({ tag: el.localName });
  }

  function nativeSetValue(el, value) { // the prototype's setter, so React's value tracker sees the change
    const proto = { textarea: HTMLTextAreaElement, select: HTMLSelectElement }[el.localName] || HTMLInputElement;
    const desc = Object.getOwnPropertyDescriptor(proto.prototype, 'value');
    if (desc && desc.set) desc.set.call(el, value); else el.value = value;
  }

  function type(m) {
    let el = resolveTarget(m.target);
    if (el.localName === 'label' && el.control) el = el.control;
    if (typeof m.text !== 'string') fail('BAD_REQUEST', 'type needs a string "text"');
    const tag = el.localName, text = m.text, clear = m.clear !== false;
    const kind = tag === 'textarea' || tag === 'select' ? tag
      : tag === 'input' ? (NOT_TYPABLE.test(el.type) ? null : 'input') : el.isContentEditable ? 'rich' : null;
    checkUsable(el, { editable: !!kind });
    if (document.activeElement !== el) el.focus({ preventScroll: true });
    if (kind === 'rich') {
      const range = document.createRange(), sel = getSelection();
      range.selectNodeContents(el);
      if (!clear) range.collapse(false);
      sel.removeAllRanges();
      sel.addRange(range);
      const ok = text ? document.execCommand('insertText', false, text) : !clear || document.execCommand('delete');
      if (!ok) { range.deleteContents(); range.insertNode(document.createTextNode(text)); }
    } else {
      if (kind === 'select') {
        const choices = Array.from(el.options);
        const opt = choices.find((o) => o.value === text) || choices.find((o) => squash(o.text) === squash(text));
        if (!opt) fail('BAD_REQUEST', `no option "${text}" in ${label(el)}`);
        nativeSetValue(el, opt.value);
        opt.selected = true;
      } else nativeSetValue(el, clear ? text : el.value + text);
      const Input = typeof InputEvent === 'function' && kind !== 'select' ? InputEvent : Event;
      el.dispatchEvent(new Input('input', { bubbles: true, composed: true, inputType: 'insertText', data: text }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }
    const result = { value: isMasked(el) ? '[masked]' : cut(kind === 'rich' ? el.innerText : el.value, VALUE_MAX) };
    if (m.submit) {
      const form = el.form || el.closest('form');
      if (form) { if (form.requestSubmit) form.requestSubmit(); else form.submit(); }
      result.submitted = !!form;
    }
    return JSON.stringify(result);
  }

  function navigate(m) {
    const url = typeof m.url === 'string' && m.url ? attempt(() => new URL(m.url, location.href)) : null;
    if (!url) fail('BAD_REQUEST', 'navigate needs a valid "url"');
    if (!/^https?:$/.test(url.protocol) && url.protocol !== location.protocol) {
      fail('BAD_REQUEST', `refusing to navigate to a ${url.protocol} URL`);
    }
    let waited = 0; // the reply goes out first; leave once it has left the socket's buffer (at most 200 ms)
    const go = () => {
      if (ws && ws.bufferedAmount > 0 && waited++ < 40) setTimeout(go, 5);
      else location.href = url.href;
    };
    setTimeout(go, 0);
    // Only a change of fragment (the target has one, the rest is equal) keeps the document; anything else unloads.
    const sameDocument = url.href.includes('#') && url.href.split('#')[0] === location.href.split('#')[0];
    return JSON.stringify({ url: url.href, sameDocument });
  }

  async function evaluate(m) {
    if (!opts.enableEval) fail('EVAL_DISABLED', 'this app did not enable evaluate (enableEval)');
    if (!server.evalAllowed) fail('EVAL_DISABLED', 'the bridge did not allow evaluate');
    if (typeof m.code !== 'string') fail('BAD_REQUEST', 'evaluate needs a string "code"');
    let v = (0, eval)(m.code); // indirect: global scope, not the SDK's
    if (v && typeof v.then === 'function') v = await v;
    return evalText(v);
  }

  const COMMANDS = {
    click, type, navigate, evaluate,
    request_ui_tree(m) {
      if (!opts.enableUiTree) fail('FEATURE_DISABLED', 'the app created the bridge with enableUiTree: false');
      const scopeEl = m.scope != null ? byRef(String(m.scope)) : null;
      sendTree(m.requestId, scopeEl, scopeEl ? String(m.scope) : undefined);
    },
    request_dom_snapshot(m) {
      if (!opts.enableDomSnapshot) fail('FEATURE_DISABLED', 'the app created the bridge with enableDomSnapshot: false');
      sendSnapshot(num(m.maxBytes, 0) || opts.maxSnapshotBytes, m.requestId);
    },
    request_state(m) {
      if (typeof opts.getCustomState === 'function') return sendStates(m.requestId);
      if (!sentStates.size) fail('FEATURE_DISABLED', 'the app gave no getCustomState and never called sendCustomState');
      for (const [scope, state] of sentStates) sendState(scope, state, m.requestId);
    },
  };
  const ACTING = new Set(['click', 'type', 'evaluate']); // these get an effects window

  async function runCommand(m) {
    const t0 = performance.now();
    const reply = { requestType: m.type, requestId: m.requestId };
    const handler = hasOwn(COMMANDS, m.type) ? COMMANDS[m.type] : null;
    const w = handler && ACTING.has(m.type)
      ? effectsWindow(num(m.settleMs, server.settleMs), num(m.maxWaitMs, server.maxWaitMs)) : null;
    let watch = !!w; // a failed precondition (any code but EXCEPTION) acted on nothing: reply at once
    try {
      if (!handler) fail('UNKNOWN_COMMAND', `unknown command type ${m.type}`);
      const result = await handler(m, w);
      reply.success = true;
      if (result !== undefined) reply.result = result;
    } catch (e) {
      const known = e instanceof CommandError;
      Object.assign(reply, { success: false, errorCode: known ? e.code : 'EXCEPTION' }, known ? e.extra : null);
      reply.error = known ? e.message : cut(e instanceof Error ? `${e.name}: ${e.message}` : String(e), ARG_MAX);
      if (known) watch = false;
    }
    reply.durationMs = round1(performance.now() - t0);
    if (!watch) {
      if (w) w.finish(false);
      return sendResult(reply);
    }
    w.start((settled) => {
      attempt(() => { reply.effects = w.effects(settled); });
      attempt(flushMutations);
      if (opts.enableUiTree && ready && (w.mutations > 0 || w.formControl || m.type === 'type')) attempt(sendTree);
      sendResult(reply);
    });
  }
  function shrinkResult(obj, over) { // effects' lists go first (their counts stay), then the result's tail
    const e = obj.effects;
    if (e && (e.console?.length || e.errors?.length || e.navigations?.length)) {
      Object.assign(e, { console: [], errors: (e.errors || []).slice(0, 1), navigations: [], trimmed: true });
      if (e.errors[0]) e.errors[0] = { message: cut(String(e.errors[0].message || e.errors[0].reason || ''), 300) };
      return true;
    }
    for (const key of ['result', 'error']) {
      const v = obj[key];
      if (typeof v === 'string' && v.length > 64) { obj[key] = cut(v, Math.max(64, v.length - over - 16)); return true; }
    }
    return false;
  }
  function sendResult(reply) {
    if (sendRaw(envelope('command_result', reply), undefined, shrinkResult) || !ws || ws.readyState !== 1) return;
    send('command_result', { ...reply, result: undefined, effects: undefined, success: false, errorCode: 'EXCEPTION',
      error: 'the result is too large to send' });
  }

  // ---- public API
  return {
    connect() {
      if (wanted) return;
      wanted = true;
      stopped = false;
      attempts = 0;
      try { installHooks(); } catch (e) { warnOnce('hooks', `could not install hooks: ${e && e.message}`); }
      open();
    },
    disconnect() {
      wanted = false;
      clearTimeout(retryTimer);
      const sock = ws;
      ws = null;
      stopStreaming();
      if (sock) attempt(() => sock.close(1000, 'disconnect'));
      while (unhooks.length) attempt(unhooks.pop());
    },
    sendCustomState(scope, state) { sentStates.set(String(scope), state); attempt(sendState, scope, state); },
    get sessionId() { return sessionId; },
    get connected() { return !!(ws && ws.readyState === 1 && ready); },
  };
}

export default createDebugBridge;
