"""Every JSON-RPC frame gets an answer (issue 20): on stdio, a frame that is not JSON, not an object, a batch, or a
request the protocol does not accept is answered with a JSON-RPC error (with its id when it has a usable one), a
frame over the size limit too, and the server goes on serving."""

from __future__ import annotations

import json
import os
import select
import time

import pytest
from support.mcp import RawServer

from pairdbg.mcp_bridge.stdio import MAX_FRAME

pytestmark = pytest.mark.timeout(60)

FRAMES = [
    ("not json", None, -32700),
    ("[]", None, -32600),
    ('[{"jsonrpc":"2.0","id":5,"method":"ping"}]', None, -32600),
    ("42", None, -32600),
    ('{"jsonrpc":"2.0","id":6}', 6, -32600),
    ('{"id":8,"method":"ping"}', 8, -32600),
    ('{"jsonrpc":"1.0","id":9,"method":"ping"}', 9, -32600),
    ('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"x"}', 10, -32600),
    ('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', None, -32600),
    ('{"jsonrpc":"2.0","id":"s","method":"ping","params":[1]}', "s", -32600),
    ('{"jsonrpc":"2.0","id":11,"method":"' + "m" * (MAX_FRAME + 10) + '"}', None, -32600),
]


def next_line(server: RawServer, timeout: float = 5.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([server.proc.stdout], [], [], 0.1)
        if ready:
            line = server.proc.stdout.readline()
            assert line, "pairdbg closed its output"
            message = json.loads(line)
            if "method" not in message:  # skip notifications
                return message
    raise AssertionError("no answer within the time")


def test_every_raw_frame_is_answered(proc_guard) -> None:
    server = RawServer(env={**os.environ, "PAIRDBG_RN__WS_PORT": "0", "PAIRDBG_BRIDGE__PORT": "0"})
    try:
        for frame, frame_id, code in FRAMES:
            server.send_line(frame)
            answer = next_line(server)
            assert answer.get("id") == frame_id and answer["error"]["code"] == code, (frame[:80], answer)
            assert len(json.dumps(answer)) < 1000, answer  # the frame is never repeated back
        server.send_line('{"jsonrpc":"2.0","id":99,"method":"ping"}')
        assert next_line(server) == {"jsonrpc": "2.0", "id": 99, "result": {}}
    finally:
        server.kill()
