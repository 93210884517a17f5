"""Several servers at once: :class:`ClientGroup`, from an ``mcpServers``
file (the format of Claude Desktop, Cursor and VS Code)::

    async with libmcp.ClientGroup.from_config("mcp.json") as group:
        for status in group.status():
            print(status.name, status.state, status.error)
        print([tool.name for tool in group.tools()])   # "files__read_file", …
        result = await group.call_tool("files__read_file", {"path": "/tmp/x"})

Tool ``t`` of server ``s`` is ``s__t`` (kept to the spec's tool-name rules:
other characters become ``_``, long names are cut and end in a short hash,
collisions get ``_2``, …). A server that fails to start or dies stays in
:meth:`ClientGroup.status` without taking the group down; calling one of its
tools raises an error naming it, and a server that died is started again by
the next call that needs it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Tuple, Union, cast

from . import _libmcp
from ._pending import Pending
from ._schema import to_jsonable
from ._client_base import ClientOptions, _ClientBase
from .errors import ToolError
from .types import CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["ClientGroup", "ServerStatus"]


@dataclass(frozen=True)
class ServerStatus:
    """One server of a :class:`ClientGroup`, as it stands (the entry of
    :meth:`ClientGroup.status_json` for it, with snake_case names)."""

    #: Its name in the configuration.
    name: str
    #: ``"stdio"`` or ``"http"``.
    type: str
    #: ``"connecting"``, ``"connected"``, ``"failed"``, ``"disconnected"``
    #: or ``"closed"``.
    state: str
    #: Why it failed or went away.
    error: Optional[str]
    #: The revision spoken with it, once connected.
    protocol_version: Optional[str]
    #: Its ``serverInfo`` (wire form), once connected.
    server_info: Optional[Dict[str, Any]]
    #: How many tools it has in the merged list.
    tools: int
    #: How many times it was connected.
    connections: int
    #: What it is started as (the command line) or reached at (the URL).
    target: Optional[str] = None

    @classmethod
    def from_dict(cls, wire: Mapping[str, Any]) -> "ServerStatus":
        """From its JSON form (camelCase keys, as every face writes it)."""
        return cls(
            name=str(wire.get("name")),
            type=str(wire.get("type")),
            state=str(wire.get("state")),
            error=wire.get("error"),
            protocol_version=wire.get("protocolVersion"),
            server_info=wire.get("serverInfo"),
            tools=int(wire.get("tools") or 0),
            connections=int(wire.get("connections") or 0),
            target=wire.get("target"),
        )


class ClientGroup(_ClientBase):
    """Clients of every server of an ``mcpServers`` configuration, used as
    one (asyncio). Create it with :meth:`from_config` (a file) or
    :meth:`from_dict`, then connect with ``async with`` (or :meth:`connect`
    and :meth:`close`): every server is connected at once, and connecting
    returns when each has connected or failed.

    Keyword arguments: those of :class:`~libmcp.Client` (they apply to every
    server), and
        separator: What joins a server's name to its tools' (default ``__``).
        retry_interval: Seconds before a server that failed to connect is
            tried again by a call that needs it (default 5).
        on_event: Called with each event as a dict: ``{"kind": "status",
            "server", "status"}`` (``status`` is one entry of
            :meth:`status_json`), ``{"kind": "tools_changed", "server"}``
            (the merged list is already up to date), ``prompts_changed``,
            ``resources_changed``, ``{"kind": "notification", "server",
            "notification"}``.
        on_stderr: Called with a server's name and each line it writes to
            stderr (default: this process's stderr, prefixed with the name).
    """

    def __init__(
        self,
        config: Mapping[str, Any],
        *,
        separator: Optional[str] = None,
        retry_interval: Optional[float] = None,
        on_event: Optional[Callable[[Dict[str, Any]], Any]] = None,
        on_stderr: Optional[Callable[[str, str], Any]] = None,
        **options: "Unpack[ClientOptions]",
    ) -> None:
        text = json.dumps(to_jsonable(config))
        extra: Dict[str, Any] = {
            "separator": separator,
            "retry_interval": retry_interval,
            "on_stderr": on_stderr if on_stderr is not None else _write_stderr,
        }
        if on_event is not None:
            callback = on_event
            extra["on_event"] = lambda event: self._dispatch(callback, event)

        def connect(opts: Dict[str, Any]) -> _libmcp.Call:
            return _libmcp.connect_group(text, {**opts, **extra})

        super().__init__(connect, **options)

    @classmethod
    def from_config(cls, path: Union[str, "os.PathLike[str]"], **options: Any) -> "ClientGroup":
        """A group of the servers of the ``mcpServers`` (or VS Code
        ``servers``) file at ``path``. An invalid file raises
        :class:`ValueError` naming the entry and what is wrong."""
        with open(path, encoding="utf-8") as file:
            text = file.read()
        try:
            config = json.loads(text)
        except ValueError as e:
            raise ValueError(f"{os.fspath(path)}: not valid JSON: {e}") from None
        return cls(config, **options)

    @classmethod
    def from_dict(cls, config: Mapping[str, Any], **options: Any) -> "ClientGroup":
        """A group of the servers of ``config`` (``{"mcpServers": {…}}``)."""
        return cls(config, **options)

    async def connect(self) -> "ClientGroup":
        """Connects to every server at once (no-op if connected); returns
        when each has connected or failed (see :meth:`status`)."""
        if self._core is None:
            import asyncio

            self._loop = asyncio.get_running_loop()
            self._core = await self._open()
        return self

    async def close(self) -> None:
        """Closes every connection (idempotent)."""
        pending = self._close()
        if pending is not None:
            await pending

    async def __aenter__(self) -> "ClientGroup":
        return await self.connect()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # The group has no single server: these name the servers instead.

    @property
    def server_info(self) -> Any:
        raise AttributeError("a ClientGroup has several servers: see status()")

    @property
    def server_capabilities(self) -> Any:
        raise AttributeError("a ClientGroup has several servers: see status()")

    @property
    def instructions(self) -> Any:
        raise AttributeError("a ClientGroup has several servers: see status()")

    @property
    def protocol_version(self) -> Any:
        raise AttributeError("a ClientGroup has several servers: see status()")

    def _g(self) -> "_libmcp.GroupCore":
        # The core of a group is a GroupCore (see connect()).
        return cast("_libmcp.GroupCore", self._c())

    def status(self) -> List[ServerStatus]:
        """Every server's state, in configuration order."""
        servers = json.loads(self._g().status_json())["servers"]
        return [ServerStatus.from_dict(s) for s in servers]

    def status_json(self) -> str:
        """Every server's state as JSON text, ``{"servers": [{"name",
        "type", "target", "state", "error", "protocolVersion", "serverInfo",
        "tools", "connections"}, …]}``: the same text as C's
        ``mcp_group_status`` and ``mcp servers list --json``."""
        return self._g().status_json()

    def tools(self) -> List[Tool]:
        """The merged tool list, names ``server__tool``."""
        return [Tool.from_dict(t) for t in self._g().tools()]

    def prompts(self) -> List[Prompt]:
        """The merged prompt list, names ``server__prompt``."""
        return [Prompt.from_dict(p) for p in self._g().prompts()]

    def route_tool(self, name: str) -> Optional[Tuple[str, str]]:
        """``(server, tool)`` of merged tool ``name``, or ``None``."""
        return self._g().route_tool(name)

    async def list_tools(self) -> List[Tool]:
        """The merged tool list (no request: see :meth:`tools`)."""
        return self.tools()

    async def list_prompts(self) -> List[Prompt]:
        """The merged prompt list (no request: see :meth:`prompts`)."""
        return self.prompts()

    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        raise_on_error: bool = True,
    ) -> CallToolResult:
        """Calls merged tool ``name`` on its server.

        Raises:
            ToolError: The tool failed (with ``raise_on_error``).
            InvalidArgument: No server lists the tool.
            ConnectionClosed: Its server is not connected (the message
                names it).
        """
        args = to_jsonable(arguments) if arguments is not None else None

        def convert(wire: Dict[str, Any]) -> CallToolResult:
            result = CallToolResult.from_dict(wire)
            if raise_on_error and result.is_error:
                raise ToolError(result.text or f"the tool {name!r} failed", result=result)
            return result

        return await Pending(self._g().call_tool(name, args), convert)

    async def get_prompt(self, name: str, arguments: Optional[Mapping[str, Any]] = None) -> GetPromptResult:
        """Gets merged prompt ``name`` from its server."""
        return await self._get_prompt(name, arguments)

    async def list_resources_by_server(self) -> List[Tuple[str, Resource]]:
        """Every resource of every server, as ``(server, resource)``."""
        listed: List[Dict[str, Any]] = await Pending(self._g().list_resources())
        return [(r["server"], Resource.from_dict(r["resource"])) for r in listed]

    async def list_resources(self) -> List[Resource]:
        """Every resource of every server."""
        return [resource for _server, resource in await self.list_resources_by_server()]

    async def read_resource(self, uri: str) -> ReadResourceResult:
        """Reads ``uri`` from the server that lists it (or has a matching
        template)."""
        return await Pending(self._g().read_resource(str(uri)), ReadResourceResult.from_dict)

    async def refresh(self) -> None:
        """Connects every server that is not connected and lists again."""
        await Pending(self._g().refresh())

    def __repr__(self) -> str:
        if self._core is None:
            return "<ClientGroup (not connected)>"
        states = ", ".join(f"{s.name}: {s.state}" for s in self.status())
        return f"<ClientGroup {states}>"


def _write_stderr(server: str, line: str) -> None:
    import sys

    try:
        sys.stderr.write(f"[{server}] {line}\n")
    except (OSError, ValueError):
        pass
