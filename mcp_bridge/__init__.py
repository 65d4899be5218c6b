"""The MCP front end: one server built from the action registry, served over stdio or Streamable HTTP."""
