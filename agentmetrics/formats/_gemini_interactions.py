"""Google's Interactions API (``/v1beta/interactions``): interactions and their streams.

An interaction is ``{"object": "interaction", "id", "status", "steps": [...]}``
(``outputs`` in the first beta). A step of ``type: "function_call"`` (``id``,
``name``, ``arguments`` as an object) calls the developer's function; a step
whose type ends in ``_call`` (``google_search_call``, ``code_execution_call``,
``url_context_call``, ...) calls a tool Google runs (hosted), named by its type
without ``_call``, with its ``arguments``; an ``mcp_server_tool_call`` is named by
its ``name`` (the MCP server's tool); ``*_result`` steps are results.

A stream sends ``event_type`` events: ``step.start`` (``index``, the ``step``),
``step.delta`` (``arguments_delta`` pieces of a function call's argument JSON,
or a hosted call's fields), ``step.stop``, and ``interaction.completed``; the
pieces of a step are joined by ``index``.
"""

from __future__ import annotations

from typing import Any

from agentmetrics.formats._ledger import Ledger, Streamed, refuse, text
from agentmetrics.formats._payload import Path

__all__ = ["read_gemini_interactions"]

NAME = "gemini_interactions"
_FIX = "pass the interaction as the API returns it."
#: Step fields that are bookkeeping, not a hosted call's arguments.
_BOOKKEEPING = frozenset({"type", "id", "signature", "status", "call_id"})


def _is_call(kind: object) -> bool:
    return isinstance(kind, str) and kind.endswith("_call")


def _step(step: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool,
          arguments: object = None, also: tuple[Path, ...] = ()) -> None:
    kind = step.get("type")
    if kind == "function_call":
        ledger.add(path, step.get("name"), step.get("arguments") if arguments is None
                   else arguments, step.get("id"), also=also)
    elif _is_call(kind):
        if not hosted_tools:
            ledger.skip(path, step.get("id"))
            for other in also:
                ledger.skip(other, step.get("id"))
            return
        fields = step["arguments"] if "arguments" in step else {
            key: value for key, value in step.items()
            if key not in _BOOKKEEPING and value is not None}
        name = step.get("name") if kind == "mcp_server_tool_call" else None
        ledger.add(path, name if isinstance(name, str) and name else str(kind).removesuffix(
            "_call"), fields, step.get("id"), also=also)  # an MCP tool: named by its name


def _interaction(item: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    key = "steps" if "steps" in item else "outputs"
    steps = item.get(key)
    if steps is None:
        return
    if not isinstance(steps, list):
        raise refuse(NAME, path + (key,), "a list of steps", type(steps).__name__, _FIX)
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            raise refuse(NAME, path + (key, index), "a step object", type(step).__name__, _FIX)
        _step(step, path + (key, index), ledger, hosted_tools)


def _events(events: list[tuple[Any, Path]], ledger: Ledger, hosted_tools: bool) -> None:
    steps: dict[object, Streamed] = {}
    order: list[Streamed] = []
    finals: list[tuple[dict[str, Any], Path]] = []
    for event, path in events:
        if not isinstance(event, dict):
            raise refuse(NAME, path, "a stream event object", type(event).__name__, _FIX)
        kind = text(event.get("event_type"))
        index = event.get("index")
        if kind in ("step.start", "step.delta") and (
                not isinstance(index, int) or isinstance(index, bool)):
            raise refuse(NAME, path + ("index",), "the step's integer index", repr(index)[:40],
                         "pass the events as the API sends them.")
        if kind == "step.start":
            step = event.get("step")
            if isinstance(step, dict) and _is_call(step.get("type")):
                opened = Streamed(dict(step), path + ("step",))
                steps[event.get("index")] = opened
                order.append(opened)
        elif kind == "step.delta":
            delta = event.get("delta")
            found = steps.get(event.get("index"))
            if not isinstance(delta, dict) or found is None:
                continue
            opened = found
            if delta.get("type") == "arguments_delta":
                piece = delta.get("arguments")
                if not isinstance(piece, str):
                    raise refuse(NAME, path + ("delta", "arguments"), "argument text",
                                 type(piece).__name__, "pass the events as the API sends them.")
                opened.text += piece
                opened.pieces.append(path + ("delta",))
            elif _is_call(delta.get("type")):
                opened.head.update((key, value) for key, value in delta.items() if key != "type")
                opened.pieces.append(path + ("delta",))
        elif kind is not None and kind.startswith("interaction.") and isinstance(
                event.get("interaction"), dict):
            finals.append((event["interaction"], path + ("interaction",)))
    for opened in order:
        arguments = opened.text if opened.text else None
        _step(opened.head, opened.path, ledger, hosted_tools, arguments, tuple(opened.pieces))
    for interaction, path in finals:  # the finished interaction repeats its steps
        key = "steps" if "steps" in interaction else "outputs"
        for index, step in enumerate(interaction.get(key) or ()):
            if isinstance(step, dict) and isinstance(step.get("id"), str) and (
                    step["id"] in ledger.ids):
                ledger.mark(path + (key, index), step.get("id"))
    if not order:
        for interaction, path in finals[-1:]:
            _interaction(interaction, path, ledger, hosted_tools)


def _one(tree: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if isinstance(tree, list):
        if any(isinstance(item, dict) and "event_type" in item for item in tree):
            _events([(item, path + (index,)) for index, item in enumerate(tree)], ledger,
                    hosted_tools)
            return
        for index, item in enumerate(tree):
            _one(item, path + (index,), ledger, hosted_tools)
    elif not isinstance(tree, dict):
        raise refuse(NAME, path, "an interaction, a list of them or stream events",
                     type(tree).__name__, _FIX)
    elif "event_type" in tree:
        _events([(tree, path)], ledger, hosted_tools)
    elif "steps" in tree or "outputs" in tree:
        _interaction(tree, path, ledger, hosted_tools)
    elif "type" in tree:
        _step(tree, path, ledger, hosted_tools)


def read_gemini_interactions(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Interactions API: an interaction (its ``steps``), a list of them (turns),
    a step, or stream events."""
    _one(tree, (), ledger, hosted_tools)
