"""The debug-bridge backend: an in-page SDK connects to pairdbg's relay; each app is a Hub session (PROTOCOL.md)."""
