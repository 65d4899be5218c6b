"""pairdbg's headless core: the Hub, sessions, the action registry and the protocol backends (never imports Textual)."""
