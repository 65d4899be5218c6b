"""pydantic models built on first use: a model's validator and serializer are made when it first validates, dumps
or gives its JSON schema, not when its module is imported. Building them all at import put ~30 ms of pairdbg's own
start before the MCP `initialize` answer; the models of tool arguments, results and wire messages are first used
after it (tools/list, a tool call, an app connecting)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class LazyModel(BaseModel):
    model_config = ConfigDict(defer_build=True)
