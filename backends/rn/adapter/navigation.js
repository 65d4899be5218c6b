// React Navigation collector over a NavigationContainerRef (createNavigationContainerRef() / useNavigationContainerRef()):
// a change of the focused route is a `route_change` event, any other state change (params, a tab's own stack...)
// a `state` event. Stream state = the root navigation state plus `currentRoute` {name, key, params}.
//
//   const navigationRef = createNavigationContainerRef();
//   navigationCollector(adapter, navigationRef);   <NavigationContainer ref={navigationRef}>

import { diff } from './patch.js';

function focusedDepth(state) {
  // Number of routes in the innermost navigator that holds the focused route.
  let depth = 0;
  let s = state;
  while (s && Array.isArray(s.routes) && s.routes.length) {
    depth = s.routes.length;
    const r = s.routes[typeof s.index === 'number' ? s.index : s.routes.length - 1];
    s = r && r.state;
  }
  return depth;
}

export function navigationCollector(adapter, ref, options = {}) {
  const stream = options.stream || 'navigation';
  const withPatch = options.patch !== false;
  let view; // the state as of the last recorded event
  let pendingAction = null;

  function ready() {
    return typeof ref.isReady !== 'function' || ref.isReady();
  }

  function build() {
    const root = ref.getRootState();
    if (!root) return undefined;
    const r = typeof ref.getCurrentRoute === 'function' ? ref.getCurrentRoute() : undefined;
    return { ...root, currentRoute: r ? { name: r.name, key: r.key, params: r.params } : null };
  }

  adapter.registerStream(stream, {
    kinds: ['route_change', 'state'],
    read() {
      if (view === undefined && ready()) view = build();
      if (view === undefined) throw Object.assign(new Error('navigation container not ready'), { code: 'STREAM_UNAVAILABLE' });
      return view;
    },
  });

  function onState() {
    const next = build();
    if (!next) return;
    const prev = view;
    const from = prev && prev.currentRoute;
    const to = next.currentRoute;
    const data = {
      action: pendingAction,
      stackDepth: focusedDepth(next),
    };
    pendingAction = null;
    let type;
    if (!from || !to || from.key !== to.key) {
      type = 'route_change';
      Object.assign(data, { from: from ? from.name : null, to: to ? to.name : null, params: to ? to.params : undefined });
    } else {
      type = 'state';
      Object.assign(data, { route: to.name, params: to.params });
    }
    const patch = withPatch ? diff(prev, next, adapter.encodingOptions()) : undefined;
    view = next;
    adapter.emit(stream, type, data, { patch });
  }

  const subs = [];
  // Not public API, but what the React Navigation devtools use to name the action behind a change.
  if (typeof ref.addListener === 'function') {
    try {
      subs.push(
        ref.addListener('__unsafe_action__', (e) => {
          const a = e && e.data && e.data.action;
          pendingAction = a && a.type ? a.type : null;
        }),
      );
    } catch (_) {
      /* a ref without that event */
    }
    subs.push(ref.addListener('state', onState));
  }
  if (ready()) view = build();

  return {
    stream,
    detach() {
      for (const off of subs) if (typeof off === 'function') off();
    },
  };
}
