"""The inspector backend: WebKit Inspector Protocol (JSC) and CDP (V8) over WebSocket."""
