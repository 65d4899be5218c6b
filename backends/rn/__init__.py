"""React Native backend, server side: the WebSocket listener apps connect to (wire protocol v1, PROTOCOL.md), the
mirror of what they send, redaction, and the `RnService` that turns it into actions and MCP resources."""
