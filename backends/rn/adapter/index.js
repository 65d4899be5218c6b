// pairdbg React Native adapter (wire protocol v1). Dev builds only: import it behind `__DEV__` and an explicit flag.
export { createAdapter, AdapterError, RingBuffer, planResume, parsePath, resolvePath, ADAPTER, DEFAULT_LIMITS, PROTOCOL_VERSION } from './core.js';
export { encode, utf8Length, DEFAULT_VALUE_LIMITS } from './encode.js';
export { diff, changedKeys, applyPatch, escapePointer } from './patch.js';
export { reduxCollector } from './redux.js';
export { navigationCollector } from './navigation.js';
export { mmkvCollector } from './mmkv.js';

/**
 * The adapter URL. `host` wins; else the host Metro serves the bundle from (pass
 * `NativeModules.SourceCode.scriptURL`), which is the dev machine as the device sees it; else 127.0.0.1
 * (iOS simulator, or an Android emulator/device after `adb reverse tcp:19850 tcp:19850`).
 */
export function adapterUrl({ host, port = 19850, scriptURL } = {}) {
  let h = host;
  if (!h && typeof scriptURL === 'string') {
    const m = /^[a-z]+:\/\/(\[[^\]]+\]|[^/:?#]+)/i.exec(scriptURL);
    if (m) h = m[1];
  }
  return `ws://${h || '127.0.0.1'}:${port}/adapter`;
}
