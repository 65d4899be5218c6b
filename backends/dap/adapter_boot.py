"""Runs debugpy's adapter with quick ACKs and no Nagle delay on its sockets (a script, not imported).

The adapter talks to each debugged process over TCP, and both sides write a message's header and body in two
separate sends. With Nagle's algorithm on, the body waits for the peer's ACK of the header, which Linux delays by
~40 ms: every request to a child process (whose pydevd pairdbg cannot reach before it connects, unlike the first
process's: see pydevd_boot.py) paid that several times. Acknowledging every read at once and sending without delay
removes the stall from the adapter's side. It skips debugpy's unlogged environment description (pairdbg_quietlog.py)
and then runs `debugpy.adapter`; standard library and debugpy only. (No launcher process runs: pairdbg plays that
part itself, debugpy_launcher.py.)
"""

import os
import runpy
import socket
import sys

QUICKACK = getattr(socket, "TCP_QUICKACK", None)  # Linux only


def main() -> None:
    import pairdbg_quietlog  # (from this script's folder, first on sys.path)

    # Python put this script's folder first on sys.path; the adapter must not import pairdbg's modules from it.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]

    pairdbg_quietlog.skip_unlogged_descriptions()
    original_read, original_write = socket.SocketIO.readinto, socket.SocketIO.write

    def readinto(self, buffer):
        n = original_read(self, buffer)
        if QUICKACK is not None and self._sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                self._sock.setsockopt(socket.IPPROTO_TCP, QUICKACK, 1)
            except OSError:
                pass
        return n

    def write(self, data):
        if self._sock.family in (socket.AF_INET, socket.AF_INET6):
            try:
                self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                pass
        return original_write(self, data)

    socket.SocketIO.readinto = readinto
    socket.SocketIO.write = write
    runpy.run_module("debugpy.adapter", run_name="__main__", alter_sys=True)


main()
