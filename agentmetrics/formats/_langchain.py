"""LangChain messages: objects' dumps, ``message_to_dict``, ``dumpd``, chunk streams.

An AI message holds its calls in ``tool_calls`` and ``invalid_tool_calls``;
``additional_kwargs["tool_calls"]`` (the provider's raw form), tool-call
content blocks and ``tool_call_chunks`` are other views of the same calls and
are read once. A stream of ``AIMessageChunk`` is merged as LangChain merges
it: ``tool_call_chunks`` with the same ``index`` (and no conflicting id) are
joined.
"""

from __future__ import annotations

from typing import Any

import attrs

from agentmetrics.formats._ledger import Ledger, as_dict, refuse, text
from agentmetrics.formats._openai_responses import hosted_arguments
from agentmetrics.formats._payload import Path

__all__ = ["message_view", "read_langchain"]

NAME = "langchain"

_AI = frozenset({"ai", "AIMessage", "AIMessageChunk"})
_CHUNK = "AIMessageChunk"
_BLOCK_CALLS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use", "tool_call",
                          "server_tool_call"})


def message_view(node: Any, path: Path) -> tuple[str, dict[str, Any], Path] | None:
    """``(type, fields, path of fields)`` for any serialized form of a message."""
    if not isinstance(node, dict):
        return None
    kwargs = node.get("kwargs")
    if node.get("lc") is not None and isinstance(kwargs, dict):  # dumpd
        ids = node.get("id")
        kind = ids[-1] if isinstance(ids, list) and ids and isinstance(ids[-1], str) else ""
        return kind or str(kwargs.get("type", "")), kwargs, path + ("kwargs",)
    data = node.get("data")
    if isinstance(data, dict) and isinstance(node.get("type"), str) and len(node) == 2:
        return node["type"], data, path + ("data",)  # message_to_dict
    if isinstance(node.get("type"), str):
        return node["type"], node, path
    return None


def _id(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


@attrs.define(slots=True)
class _Found:
    path: Path
    name: object
    arguments: object
    id: str | None
    also: tuple[Path, ...] = ()


def _list(fields: dict[str, Any], key: str, path: Path) -> list[tuple[dict[str, Any], Path]]:
    items = fields.get(key)
    if items is None:
        return []
    if not isinstance(items, list):
        raise refuse(NAME, path + (key,), "a list", type(items).__name__,
                     "pass the message as LangChain serializes it.")
    out = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise refuse(NAME, path + (key, index), "a tool call object", type(item).__name__,
                         "pass the message as LangChain serializes it.")
        out.append((item, path + (key, index)))
    return out


def _raw_call(item: dict[str, Any], path: Path) -> _Found:
    """A call in the provider's raw OpenAI form (``additional_kwargs["tool_calls"]``)."""
    function = as_dict(item.get("function"))
    return _Found(path, function.get("name"), function.get("arguments"), _id(item.get("id")))


def _ai_message(fields: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    """The calls of one AI message, each once, in the order made."""
    found = [_Found(p, item.get("name"), item.get("args"), _id(item.get("id")))
             for item, p in _list(fields, "tool_calls", path)]
    found += [_Found(p, item.get("name"), item.get("args"), _id(item.get("id")))
              for item, p in _list(fields, "invalid_tool_calls", path)]
    extras = as_dict(fields.get("additional_kwargs"))
    raw_calls = _list(extras, "tool_calls", path + ("additional_kwargs",))
    if not found:  # an older message: the calls only in the provider's raw form
        found = [_raw_call(item, p) for item, p in raw_calls]
    else:
        # The raw list keeps the order the calls were made in; it is the same calls.
        order = {_id(item.get("id")): rank for rank, (item, _) in enumerate(raw_calls)}
        if all(f.id in order for f in found):
            found.sort(key=lambda f: order[f.id])
        known = {f.id for f in found if f.id}
        for item, p in raw_calls:
            if _id(item.get("id")) in known:
                ledger.mark(p, _id(item.get("id")))
    legacy = extras.get("function_call")
    if isinstance(legacy, dict) and not found:
        found.append(_Found(path + ("additional_kwargs", "function_call"), legacy.get("name"),
                            legacy.get("arguments"), None))
    known = {f.id for f in found if f.id}
    for item, p in _list(fields, "tool_call_chunks", path):
        if _id(item.get("id")) in known:
            ledger.mark(p, item.get("id"))
    _emit(found, fields, path, ledger, hosted_tools)


def _call_blocks(fields: dict[str, Any],
                 path: Path) -> list[tuple[dict[str, Any], Path, str | None]]:
    """The content blocks that are calls: ``(block, path, call id)``."""
    content = fields.get("content")
    out = []
    for index, block in enumerate(content if isinstance(content, list) else ()):
        kind = text(block.get("type")) if isinstance(block, dict) else None
        if kind in _BLOCK_CALLS or (isinstance(kind, str) and kind.endswith("_call")):
            block_id = _id(block.get("call_id")) or _id(block.get("id"))
            out.append((block, path + ("content", index), block_id))
    return out


def _content_call(block: dict[str, Any], path: Path, block_id: str | None, ledger: Ledger,
                  hosted_tools: bool) -> None:
    """A call only the content holds: a provider's built-in tool, mostly."""
    kind = block["type"]
    if kind in ("tool_use", "tool_call", "function_call"):
        ledger.add(path, block.get("name"),
                   block.get("input", block.get("args", block.get("arguments"))), block_id)
    elif not hosted_tools:
        ledger.skip(path, block_id)
    elif kind in ("server_tool_use", "mcp_tool_use", "server_tool_call"):
        ledger.add(path, block.get("name"), block.get("input", block.get("args")), block_id)
    else:  # a Responses built-in tool item kept as a content block
        ledger.add(path, kind.removesuffix("_call"), hosted_arguments(block), block_id)


def _emit(found: list[_Found], fields: dict[str, Any], path: Path, ledger: Ledger,
          hosted_tools: bool) -> None:
    """Add ``found`` in its order, with calls that only the content holds placed
    where the content puts them."""
    position = {f.id: index for index, f in enumerate(found) if f.id}
    emitted = 0
    for block, here, block_id in _call_blocks(fields, path):
        if block_id is not None and block_id in position:
            while emitted <= position[block_id]:
                _add(found[emitted], ledger)
                emitted += 1
            ledger.mark(here, block_id)  # the same call, as a content block
        else:
            _content_call(block, here, block_id, ledger, hosted_tools)
    for f in found[emitted:]:
        _add(f, ledger)


def _content_blocks(fields: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool,
                    known: set[str]) -> None:
    """A streamed chunk's call blocks: pieces of calls read from the merged chunks,
    or calls only the content holds."""
    for block, here, block_id in _call_blocks(fields, path):
        if block_id is not None and block_id in known:
            ledger.mark(here, block_id)
        else:
            _content_call(block, here, block_id, ledger, hosted_tools)


def _add(found: _Found, ledger: Ledger) -> None:
    ledger.add(found.path, found.name, found.arguments, found.id, also=found.also)


def _merge(chunks: list[tuple[dict[str, Any], Path]], ledger: Ledger, hosted_tools: bool) -> None:
    """One model call's stream of AIMessageChunks, merged as ``chunk + chunk + ...``
    merges it: ``tool_call_chunks`` with the same int ``index`` (and no conflicting
    id) are joined. A piece with no index, no id and no name goes on the previous
    call (LangChain would keep it as a nameless fragment)."""
    merged: list[dict[str, Any]] = []  # one per call: name, args, id, index, pieces
    legacy: dict[str, Any] | None = None
    raw: list[tuple[dict[str, Any], Path]] = []  # additional_kwargs' raw tool-call deltas
    for fields, path in chunks:
        for item, p in _list(fields, "tool_call_chunks", path):
            index = item.get("index")
            piece_id = _id(item.get("id"))
            target = None
            if isinstance(index, int) and not isinstance(index, bool):
                target = next((m for m in merged if m["index"] == index and (
                    m["id"] is None or piece_id is None or m["id"] == piece_id)), None)
            elif index is None and piece_id is None and not item.get("name") and merged:
                target = merged[-1]
            if target is None:
                target = {"index": index, "id": None, "name": "", "args": "", "pieces": []}
                merged.append(target)
            target["pieces"].append(p)
            target["id"] = target["id"] or piece_id
            for key in ("name", "args"):
                value = item.get(key)
                if isinstance(value, str):
                    target[key] += value
                elif value is not None:
                    raise refuse(NAME, p + (key,), "text", type(value).__name__,
                                 "pass the chunks as LangChain streams them.")
        extras = as_dict(fields.get("additional_kwargs"))
        piece = extras.get("function_call")
        if isinstance(piece, dict):  # a legacy function call, streamed in pieces
            here = path + ("additional_kwargs", "function_call")
            if legacy is None:
                legacy = {"name": "", "args": "", "pieces": []}
            legacy["pieces"].append(here)
            for key, source in (("name", "name"), ("args", "arguments")):
                if isinstance(piece.get(source), str):
                    legacy[key] += piece[source]
        # Each chunk's own tool_calls / invalid_tool_calls / raw deltas are partial views.
        for key in ("tool_calls", "invalid_tool_calls"):
            for item, p in _list(fields, key, path):
                ledger.mark(p, _id(item.get("id")))
        raw.extend(_list(extras, "tool_calls", path + ("additional_kwargs",)))
    # The provider's raw deltas are partial views of the merged calls only when they
    # name one: by its id or its stream index. Any other is left to the census (a
    # call the merge never saw must fail the read, not vanish from it).
    ids = {m["id"] for m in merged if m["id"]}
    indexes = {m["index"] for m in merged if isinstance(m["index"], int)}
    for item, p in raw:
        index = item.get("index")
        if _id(item.get("id")) in ids or (isinstance(index, int) and index in indexes):
            ledger.mark(p, _id(item.get("id")))
    found = [_Found(m["pieces"][0], m["name"], m["args"], m["id"], tuple(m["pieces"][1:]))
             for m in merged]
    if legacy is not None and not found:
        found.append(_Found(legacy["pieces"][0], legacy["name"], legacy["args"], None,
                            tuple(legacy["pieces"][1:])))
    for f in found:
        _add(f, ledger)
    known = {f.id for f in found if f.id}
    for fields, path in chunks:
        _content_blocks(fields, path, ledger, hosted_tools, known)


def _sequence(items: list[Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    run: list[tuple[dict[str, Any], Path]] = []
    for index, item in enumerate(items):
        here = path + (index,)
        view = message_view(item, here)
        if view is not None and view[0] == _CHUNK:
            run.append((view[1], view[2]))
            if view[1].get("chunk_position") == "last":  # the end of one model call
                _merge(run, ledger, hosted_tools)
                run = []
            continue
        if run:
            _merge(run, ledger, hosted_tools)
            run = []
        _one(item, here, ledger, hosted_tools)
    if run:
        _merge(run, ledger, hosted_tools)


def _one(item: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if isinstance(item, list):
        _sequence(item, path, ledger, hosted_tools)
        return
    view = message_view(item, path)
    if view is None:
        if isinstance(item, dict) and isinstance(item.get("messages"), list):
            _sequence(item["messages"], path + ("messages",), ledger, hosted_tools)
            return  # a LangGraph state
        raise refuse(NAME, path, "a LangChain message (a dump with 'type', message_to_dict "
                     "or dumpd) or a list of them", type(item).__name__,
                     "pass the message objects, or their model_dump()/message_to_dict().")
    kind, fields, where = view
    if kind == _CHUNK:
        _merge([(fields, where)], ledger, hosted_tools)
    elif kind in _AI:
        _ai_message(fields, where, ledger, hosted_tools)
    elif kind in ("tool_call", "invalid_tool_call"):  # an AI message's tool_calls on their own
        _add(_Found(where, fields.get("name"), fields.get("args"), _id(fields.get("id"))), ledger)
    elif kind == "tool_call_chunk":
        raise refuse(NAME, where, "whole tool calls (an AI message's tool_calls)",
                     "a tool_call_chunk, a piece of a streamed call",
                     "pass the AIMessageChunks of the stream, which are merged as LangChain "
                     "merges them.")


def read_langchain(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """LangChain: an AI message, a list of messages, a LangGraph state
    (``{"messages": [...]}``), a stream of AIMessageChunks, in any serialized form,
    or an AI message's ``tool_calls`` on their own."""
    _one(tree, (), ledger, hosted_tools)
