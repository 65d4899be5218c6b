// Redux collector: every plain action becomes an `action` event on the `redux` stream with the top-level keys it
// changed, the reducer time and (capability `patch`) an RFC 6902 patch from the previous recorded state; a reducer
// that throws becomes an `error` event. The store's state is the stream's snapshot source.
//
//   const redux = reduxCollector(adapter);
//   configureStore({reducer, middleware: (gDM) => gDM().concat(redux.middleware)})      // or
//   configureStore({reducer, enhancers: (gDE) => gDE().concat(redux.enhancer)})
//
// The enhancer sits under every middleware, so it records exactly what reaches the reducers; the middleware sees
// what passes its place in the chain (put it last). Use one of the two per store.

import { changedKeys, diff } from './patch.js';

const clock = () =>
  typeof performance !== 'undefined' && performance && typeof performance.now === 'function' ? performance.now() : Date.now();

function isPlainAction(a) {
  return a !== null && typeof a === 'object' && !Array.isArray(a) && 'type' in a;
}

export function reduxCollector(adapter, options = {}) {
  const stream = options.stream || 'redux';
  const withPatch = options.patch !== false;
  let getState = null;
  let last; // the state as of the last recorded event: snapshots and patches both start from it

  adapter.registerStream(stream, {
    kinds: ['action', 'error'],
    read() {
      if (!getState) throw Object.assign(new Error('no store attached yet'), { code: 'STREAM_UNAVAILABLE' });
      return last;
    },
  });

  function attach(gs) {
    if (getState && getState !== gs) throw new Error(`reduxCollector(${stream}) is already attached to a store`);
    getState = gs;
    last = gs();
  }

  function record(type, fields, started) {
    const state = getState();
    const data = { ...fields, changedKeys: changedKeys(last, state), ms: Math.round((clock() - started) * 1000) / 1000 };
    const patch = withPatch ? diff(last, state, adapter.encodingOptions()) : undefined;
    last = state;
    adapter.emit(stream, type, data, { patch });
  }

  function run(action, next) {
    if (!getState || !isPlainAction(action)) return next(action);
    const started = clock();
    let result;
    try {
      result = next(action);
    } catch (error) {
      record('error', { action, error }, started);
      throw error;
    }
    record('action', { action }, started);
    return result;
  }

  const middleware = (api) => {
    attach(api.getState);
    return (next) => (action) => run(action, next);
  };

  const enhancer = (createStore) => (...args) => {
    const store = createStore(...args);
    attach(store.getState);
    const base = store.dispatch;
    const replaceReducer = store.replaceReducer;
    return {
      ...store,
      dispatch: (action) => run(action, base),
      replaceReducer(nextReducer) {
        const started = clock();
        const r = replaceReducer.call(store, nextReducer);
        record('action', { action: { type: '@@pairdbg/replaceReducer' } }, started);
        return r;
      },
    };
  };

  return { stream, middleware, enhancer };
}
