"""adapter_boot.py turns off Nagle and delayed ACKs by wrapping socket.SocketIO's readinto/write: that only works
while debugpy's messaging reads and writes through socket.SocketIO. This fails when a debugpy release stops doing so
(then adapter_boot must change with it)."""

from __future__ import annotations

import socket

from support import require_debugpy


def test_debugpys_messages_go_through_socket_io(monkeypatch) -> None:
    require_debugpy()
    from debugpy.common.messaging import JsonIOStream

    calls = {"write": 0, "readinto": 0}
    write, readinto = socket.SocketIO.write, socket.SocketIO.readinto

    def counted_write(self, data):
        calls["write"] += 1
        return write(self, data)

    def counted_readinto(self, buffer):
        calls["readinto"] += 1
        return readinto(self, buffer)

    monkeypatch.setattr(socket.SocketIO, "write", counted_write)
    monkeypatch.setattr(socket.SocketIO, "readinto", counted_readinto)
    server = socket.create_server(("127.0.0.1", 0))
    a = socket.create_connection(server.getsockname())
    b, _ = server.accept()
    server.close()
    sender, receiver = JsonIOStream.from_socket(a, "a"), JsonIOStream.from_socket(b, "b")
    try:
        sender.write_json({"seq": 1, "type": "event", "event": "ping"})
        assert receiver.read_json() == {"seq": 1, "type": "event", "event": "ping"}
    finally:
        sender.close()
        receiver.close()
    assert calls["write"] > 0 and calls["readinto"] > 0, calls
