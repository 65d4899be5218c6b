"""pairdbg: a terminal debugger that a person and an AI agent share. The one installed import name.

The repository keeps the folders the project was specified with (backends/, tui/, mcp_bridge/, themes/); an
installed pairdbg carries them as pairdbg.backends, pairdbg.tui, pairdbg.mcp_bridge and pairdbg.themes, so it never
claims a generic top-level name in someone's environment.
"""

__version__ = "0.1.0"
