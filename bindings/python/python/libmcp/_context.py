"""The context a handler gets besides its arguments."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Type, Union

from . import _libmcp
from ._pending import Pending
from ._schema import _inline, schema_for, to_jsonable
from .auth import AccessToken
from .types import (
    CreateMessageResult,
    ElicitResult,
    Implementation,
    LoggingLevel,
    Model,
    ModelPreferences,
    Root,
    SamplingMessage,
)

__all__ = ["Context"]


class Context:
    """What a handler gets besides its arguments, when it declares a
    parameter annotated ``Context``: the request, the client, and ways to
    talk back to it.

    The methods that talk to the client return a :class:`~libmcp.Pending`:
    ``await`` it in a coroutine handler, call ``.result()`` in a sync one
    (or drop it, for notifications).
    """

    __slots__ = ("_core",)

    def __init__(self, core: _libmcp.ServerContext) -> None:
        self._core = core

    @property
    def request_id(self) -> Union[str, int, None]:
        """The id of the request being handled."""
        return self._core.request_id

    @property
    def auth(self) -> Optional[AccessToken]:
        """Who the bearer token of the request speaks for, on a server run
        with ``auth=`` (:class:`libmcp.auth.ProtectedResource`); else
        ``None``. Over HTTP sessions, it is the token of the session's
        latest request (a session keeps one subject)."""
        info = self._core.auth
        return AccessToken.from_dict(info) if info else None

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled the request (or the session ended);
        long-running sync handlers should check it."""
        return self._core.cancelled

    @property
    def client_info(self) -> Optional[Implementation]:
        """The client's name and version."""
        info = self._core.client_info
        return Implementation.from_dict(info) if info else None

    @property
    def client_capabilities(self) -> Optional[Dict[str, Any]]:
        """What the client declared it supports (wire form)."""
        return self._core.client_capabilities

    @property
    def protocol_version(self) -> Optional[str]:
        """The negotiated protocol revision."""
        return self._core.protocol_version

    @property
    def progress_token(self) -> Union[str, int, None]:
        """The progress token the client sent, if it asked for progress."""
        return self._core.progress_token

    def report_progress(
        self, progress: float, total: Optional[float] = None, message: Optional[str] = None
    ) -> Pending[None]:
        """Reports progress (sent only if the client asked for it)."""
        return Pending(self._core.progress(float(progress), None if total is None else float(total), message))

    def log(self, level: LoggingLevel, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Sends a log message (if ``level`` passes the level the client
        set); ``data`` is any JSON-compatible value."""
        return Pending(self._core.log(level, to_jsonable(data), logger))

    def debug(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``debug``."""
        return self.log("debug", data, logger=logger)

    def info(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``info``."""
        return self.log("info", data, logger=logger)

    def notice(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``notice``."""
        return self.log("notice", data, logger=logger)

    def warning(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``warning``."""
        return self.log("warning", data, logger=logger)

    def error(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``error``."""
        return self.log("error", data, logger=logger)

    def sample(
        self,
        messages: Union[str, Sequence[Union[str, SamplingMessage, Mapping[str, Any]]]],
        *,
        max_tokens: int = 1000,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        stop_sequences: Optional[Sequence[str]] = None,
        model_preferences: Union[ModelPreferences, Mapping[str, Any], None] = None,
        include_context: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
    ) -> Pending[CreateMessageResult]:
        """Asks the client's model for a completion (``sampling/createMessage``).

        ``messages`` is a string (one user message) or a list of strings
        (user messages), :class:`~libmcp.types.SamplingMessage` objects or
        wire-form dicts. Raises :class:`~libmcp.CapabilityNotSupported` if
        the client did not declare sampling.
        """
        if isinstance(messages, str):
            messages = [messages]
        wire: List[Any] = []
        for m in messages:
            if isinstance(m, str):
                wire.append({"role": "user", "content": {"type": "text", "text": m}})
            elif isinstance(m, Model):
                wire.append(m.to_dict())
            else:
                wire.append(dict(m))
        params: Dict[str, Any] = {"messages": wire, "maxTokens": max_tokens}
        if system_prompt is not None:
            params["systemPrompt"] = system_prompt
        if temperature is not None:
            params["temperature"] = temperature
        if stop_sequences is not None:
            params["stopSequences"] = list(stop_sequences)
        if model_preferences is not None:
            params["modelPreferences"] = to_jsonable(model_preferences)
        if include_context is not None:
            params["includeContext"] = include_context
        if metadata is not None:
            params["metadata"] = to_jsonable(metadata)
        return Pending(self._core.create_message(params), CreateMessageResult.from_dict)

    def elicit(self, message: str, schema: Union[Type[Any], Mapping[str, Any]]) -> Pending[ElicitResult]:
        """Asks the user for input through the client (form mode).

        ``schema`` is a flat JSON object schema, or a dataclass, TypedDict or
        pydantic model whose fields are primitives. Raises
        :class:`~libmcp.CapabilityNotSupported` if the client did not declare
        elicitation.
        """
        if isinstance(schema, Mapping):
            requested = dict(schema)
        else:
            requested = _inline(schema_for(schema))
            requested.pop("title", None)
        params = {"mode": "form", "message": message, "requestedSchema": requested}
        return Pending(self._core.elicit(params), ElicitResult.from_dict)

    def elicit_url(self, message: str, url: str, elicitation_id: str) -> Pending[ElicitResult]:
        """Asks the user to open ``url`` (URL-mode elicitation)."""
        params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        return Pending(self._core.elicit(params), ElicitResult.from_dict)

    def list_roots(self) -> Pending[List[Root]]:
        """The client's roots (``roots/list``). Raises
        :class:`~libmcp.CapabilityNotSupported` if it did not declare roots."""
        return Pending(self._core.list_roots(), lambda r: [Root.from_dict(x) for x in r.get("roots", [])])

    def wait_cancelled(self) -> Pending[None]:
        """Finishes when the request is cancelled (or the session ends)."""
        return Pending(self._core.wait_cancelled())

    def __repr__(self) -> str:
        return f"<Context request_id={self.request_id!r}>"
