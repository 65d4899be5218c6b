"""The Debug Adapter Protocol backend: a framed JSON client and adapter profiles (debugpy first)."""
