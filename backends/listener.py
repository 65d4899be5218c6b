"""The shell both listeners share (the React Native adapter's WebSocket, rn/, and the debug-bridge relay, bridge/).

- `ListenerConfig`: a listener's settings, read by pydantic-settings from the listener's own environment names, below
  the values pairdbg.settings collected (command line, PAIRDBG_<SECTION>__*, the settings file). A bad value does not
  stop pairdbg: the service keeps the message naming the variable, `start()` raises it and the health check says it.
- `ListenerServer`: the WebSocket server's options, its socket, the door checks written once (token, loopback
  Origin, frame size), the refusal counts and the log budget.
- `ListenerService`: start and stop, both errors reported one way, the generated-token warning, keyed timers.

Each listener adds only what differs: its paths, its Origin policy, its protocol and its tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self
from urllib.parse import urlsplit

from pydantic import AliasChoices, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from .logbudget import limit
from .services import ConfigError

if TYPE_CHECKING:
    from websockets.asyncio.server import Server, ServerConnection

    from .hub import Hub

LOOPBACK = {"localhost", "127.0.0.1", "::1"}
PING_S = 20  # WebSocket ping interval and timeout: a vanished peer is noticed within 40 s


class ListenerConfig(BaseSettings):
    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        env_ignore_empty=True,  # an empty variable counts as unset
        str_strip_whitespace=True,
        validate_by_name=True,
        validate_by_alias=True,
    )

    WHAT: ClassVar[str]  # "React Native listener": names the listener in messages
    TOKEN_FIELD: ClassVar[str]  # the field holding the token apps must present

    @classmethod
    def load(cls, values: Mapping[str, Any] | None = None) -> Self:
        """Validate `values` (field names in any case) over the environment. Raises ConfigError naming the
        variable and its value (never a token's)."""
        names = {name.lower(): name for name in cls.model_fields}
        given = {names.get(str(key).lower(), key): value for key, value in (values or {}).items()}
        try:
            return cls(**given)
        except ValidationError as exc:
            problems = "; ".join(cls._problem(err) for err in exc.errors())
            raise ConfigError(f"invalid {cls.WHAT} setting: {problems}") from None

    @classmethod
    def _problem(cls, err: Any) -> str:
        field = str(err["loc"][0]) if err["loc"] else ""
        field = next((f for f in cls.model_fields if field in (f, *cls._names(f))), field)
        shown = "<hidden>" if field == cls.TOKEN_FIELD else repr(err.get("input", ""))
        return f"{cls.env_name(field)}={shown}: {err['msg']}"

    @classmethod
    def _names(cls, field: str) -> tuple[str, ...]:
        alias = cls.model_fields[field].validation_alias
        if isinstance(alias, AliasChoices):
            return tuple(a for a in alias.choices if isinstance(a, str))
        return (alias,) if isinstance(alias, str) else ()

    @classmethod
    def env_name(cls, field: str) -> str:
        """The environment variable that sets `field`."""
        if field not in cls.model_fields:
            return field
        aliases = cls._names(field)
        return aliases[0] if aliases else f"{cls.model_config.get('env_prefix', '')}{field}".upper()

    def door_token(self) -> str:
        """The token apps must present."""
        return getattr(self, self.TOKEN_FIELD)

    @property
    def token_generated(self) -> bool:
        """The token was generated for this run (no setting gave one): the person must pass it to the app."""
        return self.TOKEN_FIELD not in self.model_fields_set

    def address(self) -> tuple[str, int]:
        """(host, port) to listen on."""
        raise NotImplementedError

    def max_frame(self) -> int:
        """The largest frame an app may send, in bytes (the server measures it; the socket allows 4x)."""
        raise NotImplementedError


class ListenerServer:
    """A WebSocket server on the config's address. Subclasses give `_handle` (one connection) and
    `_check_request` (the HTTP upgrade: paths, Origin, bearer token)."""

    #: extra options of websockets' `serve` for this listener
    SERVE_OPTIONS: ClassVar[dict[str, Any]] = {}

    def __init__(self, config: ListenerConfig, logger: logging.Logger) -> None:
        self.config = config
        self.log = logger
        self.port: int | None = None
        self.rejected: dict[str, int] = {}
        self._server: Server | None = None
        limit(logger.name, "websockets.server")  # what an app sends cannot flood pairdbg's log

    async def start(self) -> None:
        # websockets' server (~3 ms to import) is loaded when a listener opens: after the MCP initialize answer
        from websockets.asyncio.server import serve

        host, port = self.config.address()
        self._server = await serve(
            self._handle,
            host,
            port,
            process_request=self._check_request,
            max_size=4 * self.config.max_frame(),  # measured exactly by `too_large`, so the close says why
            ping_interval=PING_S,
            ping_timeout=PING_S,
            server_header=None,
            **self.SERVE_OPTIONS,
        )
        self.port = next(iter(self._server.sockets)).getsockname()[1]

    async def stop(self) -> None:
        """Close the socket and every connection (1001, going away); safe to call twice."""
        if self._server is None:
            return
        server, self._server = self._server, None
        server.close(close_connections=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 5)

    async def _handle(self, ws: ServerConnection) -> None:
        raise NotImplementedError

    def _check_request(self, ws: ServerConnection, request: Any) -> Any:
        raise NotImplementedError

    # ----- door checks ----------------------------------------------------------------------------------------------

    def count(self, why: str) -> None:
        """One more refusal of this kind (health checks and get_bridge_info show the counts)."""
        self.rejected[why] = self.rejected.get(why, 0) + 1

    def token_ok(self, token: Any) -> bool:
        return isinstance(token, str) and hmac.compare_digest(token.encode(), self.config.door_token().encode())

    def too_large(self, frame: str | bytes) -> bool:
        return len(frame) > self.config.max_frame()


def loopback_origin(origin: str, schemes: tuple[str, ...] | None = None) -> bool:
    """An Origin on this machine (localhost, 127.0.0.1, [::1]; any port), with one of `schemes` when given."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.hostname in LOOPBACK and (schemes is None or parts.scheme in schemes)


class ListenerService:
    """A Hub service around a ListenerServer. `config` is the listener's settings, or the values to read them
    from (pairdbg.settings' section; None: the defaults over the environment)."""

    name: ClassVar[str]
    CONFIG: ClassVar[type[ListenerConfig]]
    TOKEN_LABEL: ClassVar[str]  # "React Native adapter": how the generated-token warning names the token
    server: ListenerServer

    def __init__(self, hub: Hub | None, config: ListenerConfig | Mapping[str, Any] | None) -> None:
        self.hub = hub
        self.config_error: str | None = None
        self.start_error: str | None = None
        #: when the listener began accepting (epoch seconds); None until then
        self.listening_since: float | None = None
        if not isinstance(config, ListenerConfig):
            try:
                config = self.CONFIG.load(config)
            except ConfigError as exc:
                self.config_error = str(exc)
                config = self.CONFIG.model_construct()  # defaults, so reads still answer; never started
        self.config = config
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def bind(self, hub: Hub) -> None:
        self.hub = hub

    @property
    def error(self) -> str | None:
        """Why the listener is not listening (a bad setting, the port taken), for the health check."""
        return self.start_error or self.config_error

    async def start(self) -> None:
        if self.config_error:
            self.start_error = self.config_error
            raise ConfigError(self.config_error)
        try:
            await self.server.start()
        except OSError as exc:
            host, port = self.config.address()
            self.start_error = f"cannot listen on {host}:{port}: {exc.strerror or exc}"
            raise
        self.listening_since = time.time()
        if self.config.token_generated:
            # The cli's log filters hide the token in the log file and keep this line off `pairdbg --mcp`'s stderr.
            logging.getLogger(type(self).__module__).warning(
                "%s token for this run: %s (set %s to fix it)",
                self.TOKEN_LABEL,
                self.config.door_token(),
                self.CONFIG.env_name(self.CONFIG.TOKEN_FIELD),
            )

    async def stop(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        await self.server.stop()

    # ----- timers -------------------------------------------------------------------------------------------------

    def later(self, key: str, delay: float, callback: Callable[..., None], *args: Any) -> bool:
        """Run `callback(*args)` after `delay` seconds unless cancelled (stop() cancels all). One timer per key: a
        key already waiting is left as it is (False). False outside a running loop."""
        if key in self._timers:
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False

        def fire() -> None:
            self._timers.pop(key, None)
            callback(*args)

        self._timers[key] = loop.call_later(delay, fire)
        return True

    def cancel(self, key: str) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def waiting(self, key: str) -> bool:
        return key in self._timers
