"""A remote host of our own: a network namespace joined to this one by a veth pair, with a listener that records
every connection it gets. Tests of allow-lists aim "remote" traffic here, so nothing ever leaves this machine."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from .core import missing_target

LISTENER = r"""
import selectors, socket, sys
sel = selectors.DefaultSelector()
for port in map(int, sys.argv[2:]):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[1], port)); s.listen(); sel.register(s, selectors.EVENT_READ)
print("ready", flush=True)
while True:
    for key, _ in sel.select():
        conn, peer = key.fileobj.accept()
        print("connected", key.fileobj.getsockname()[1], flush=True)
        conn.close()
"""


@dataclass
class RemoteHost:
    address: str
    ports: tuple[int, ...]
    log: Path

    def connections(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line.startswith("connected")]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@pytest.fixture
def remote_host(tmp_path):
    """A host at 10.213.<n>.2 inside a namespace this test made, listening on 5678 and 9229."""
    if os.geteuid() != 0 or subprocess.run(["which", "ip"], capture_output=True).returncode != 0:
        msg = "network namespaces need root and iproute2 (ip)"
        missing_target(msg)
    tag = uuid.uuid4().hex[:6]
    ns, host_if, ns_if = f"pd{tag}", f"pdh{tag}", f"pdn{tag}"
    net = 100 + int(tag, 16) % 100
    local, remote = f"10.213.{net}.1", f"10.213.{net}.2"
    _ip("netns", "add", ns)
    proc = None
    try:
        _ip("link", "add", host_if, "type", "veth", "peer", "name", ns_if)
        _ip("link", "set", ns_if, "netns", ns)
        _ip("addr", "add", f"{local}/30", "dev", host_if)
        _ip("link", "set", host_if, "up")
        _ip("-n", ns, "addr", "add", f"{remote}/30", "dev", ns_if)
        _ip("-n", ns, "link", "set", ns_if, "up")
        _ip("-n", ns, "link", "set", "lo", "up")
        log = tmp_path / "remote.log"
        ports = (5678, 9229)
        with open(log, "w") as out:
            proc = subprocess.Popen(
                ["ip", "netns", "exec", ns, sys.executable, "-c", LISTENER, remote, *map(str, ports)],
                stdout=out,
                stderr=subprocess.STDOUT,
                # Not one of the test's debug processes: the leak guard must not count it (this fixture ends it).
                env={k: v for k, v in os.environ.items() if k != "PAIRDBG_TEST_RUN"},
            )
        deadline = time.monotonic() + 10
        while "ready" not in log.read_text():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.05)
        yield RemoteHost(remote, ports, log)
    finally:
        if proc is not None:
            proc.kill()
            proc.wait(5)
        subprocess.run(["ip", "link", "del", host_if], capture_output=True, timeout=10)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
