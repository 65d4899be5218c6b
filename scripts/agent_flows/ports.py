"""Picks the port to listen on from TOML: the file says 8080, the server listens on the default 80."""

import tomli

CONFIG = """
title = "api"
server.port = 8080
server.host = "0.0.0.0"
"""


def listen_port(text):
    config = tomli.loads(text)
    return config.get("server.port", 80)


print("listening on", listen_port(CONFIG))
