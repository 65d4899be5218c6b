"""Adapter profiles as data: one JSON file per debug adapter (command, transport, launch/attach arguments)."""
