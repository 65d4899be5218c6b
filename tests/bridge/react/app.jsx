// React 19 fixture for the debug-bridge SDK: a controlled input (the case where setting el.value is not enough,
// PROTOCOL.md §5 "type"). Query parameters: bridge (http://host:port of the bridge), token, sessionId, eval.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createDebugBridge } from '../../../backends/bridge/sdk/debug-bridge.js';

function Greeter() {
  const [name, setName] = useState('');
  const [greeting, setGreeting] = useState('');
  const onSubmit = (ev) => {
    ev.preventDefault();
    setGreeting(`Hello, ${name}!`);
    console.log(`greeted ${name}`);
  };
  return (
    <main>
      <h1>Greeter</h1>
      <form onSubmit={onSubmit}>
        <label htmlFor="name">Name</label>
        <input id="name" data-testid="name" value={name} onChange={(ev) => setName(ev.target.value)} />
        <button type="submit">Greet</button>
      </form>
      <p id="greeting">{greeting}</p>
      <p id="mirror">typed: {name}</p>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<Greeter />);

const params = new URLSearchParams(location.search);
const bridgeBase = params.get('bridge');
if (bridgeBase) {
  const sessionId = params.get('sessionId') || undefined;
  const wsBase = bridgeBase.replace(/^http/, 'ws');
  const bridge = createDebugBridge({
    url: `${wsBase}/debug?role=app${sessionId ? `&sessionId=${encodeURIComponent(sessionId)}` : ''}`,
    sessionId,
    token: params.get('token') || undefined,
    appName: 'react-greeter',
    enableEval: params.get('eval') === '1',
  });
  window.__bridge = bridge;
  bridge.connect();
}
