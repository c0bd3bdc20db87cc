"""OpenAI Responses: output items, input-item conversations and stream events.

Every item whose type ends in ``_call`` is a tool call. ``function_call``,
``custom_tool_call`` and ``mcp_call`` call the developer's tools; the others
(``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
``computer_call``, ``image_generation_call``, ``local_shell_call``,
``shell_call``, ``apply_patch_call``, ...) call built-in tools: their name is
the type without ``_call`` and their arguments are the item's request fields.
"""

from __future__ import annotations

from typing import Any

from agentmetrics.formats._ledger import Ledger, refuse, text
from agentmetrics.formats._payload import Path

__all__ = ["HOSTED_RESULT_FIELDS", "hosted_arguments", "read_openai_responses"]

NAME = "openai_responses"

#: Fields of a built-in tool's item that are bookkeeping or results, not arguments.
HOSTED_RESULT_FIELDS = frozenset({"type", "id", "call_id", "status", "output", "outputs",
                                  "result", "results", "error"})
_TERMINAL_EVENTS = ("response.completed", "response.incomplete", "response.failed",
                    "response.done")


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


def hosted_arguments(item: dict[str, Any]) -> dict[str, Any]:
    """A built-in tool call's request fields: what it was asked to do.

    Null fields are left out at every depth: an SDK's ``model_dump`` writes
    unset optional fields as null where the API's JSON leaves them out, and
    the same call must read the same either way."""
    return {key: _without_nulls(value) for key, value in item.items()
            if key not in HOSTED_RESULT_FIELDS and value is not None}


def _is_call(kind: object) -> bool:
    return isinstance(kind, str) and kind.endswith("_call") and "." not in kind


def _items(items: list[Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    for index, item in enumerate(items):
        _item(item, path + (index,), ledger, hosted_tools)


def _item(item: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if isinstance(item, list):
        _items(item, path, ledger, hosted_tools)
        return
    if not isinstance(item, dict):
        raise refuse(NAME, path, "an item object", type(item).__name__,
                     "pass the items as the API returns them.")
    kind = item.get("type")
    if kind is None and isinstance(item.get("output"), list):
        _response(item, path, ledger, hosted_tools)  # a response among the items
    elif not _is_call(kind):
        return  # messages, reasoning, *_output items, mcp_list_tools, approval requests
    elif kind == "function_call":
        ledger.add(path, item.get("name"), item.get("arguments"),
                   item.get("call_id") or item.get("id"))
    elif kind == "custom_tool_call":
        ledger.add(path, item.get("name"), item.get("input"),
                   item.get("call_id") or item.get("id"), free_text=True)
    elif kind == "mcp_call":
        ledger.add(path, item.get("name"), item.get("arguments"), item.get("id"))
    elif hosted_tools:
        ledger.add(path, str(kind).removesuffix("_call"), hosted_arguments(item),
                   item.get("call_id") or item.get("id"))
    else:
        ledger.skip(path, item.get("call_id") or item.get("id"))  # excluded on request


def _response(response: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    output = response.get("output")
    if output is None:
        return
    if not isinstance(output, list):
        raise refuse(NAME, path + ("output",), "a list of output items", type(output).__name__,
                     "pass the response as the API returns it.")
    _items(output, path + ("output",), ledger, hosted_tools)


def _events(events: list[Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    """A stream: the finished response's calls; each item event is another view of one."""
    final = [index for index, event in enumerate(events)
             if isinstance(event, dict) and text(event.get("type")) in _TERMINAL_EVENTS
             and isinstance(event.get("response"), dict)]
    if final:
        for index in final:
            _response(events[index]["response"], path + (index, "response"), ledger,
                      hosted_tools)
    else:  # a stream cut short: the items that finished
        done = [(event["item"], path + (index, "item")) for index, event in enumerate(events)
                if isinstance(event, dict) and event.get("type") == "response.output_item.done"
                and isinstance(event.get("item"), dict)]
        for item, here in done:
            _item(item, here, ledger, hosted_tools)
    for index, event in enumerate(events):
        item = event.get("item") if isinstance(event, dict) else None
        if isinstance(item, dict) and _is_call(item.get("type")):
            call_id = item.get("id") if item.get("type") == "mcp_call" else (
                item.get("call_id") or item.get("id"))
            if call_id in ledger.ids:
                ledger.mark(path + (index, "item"), call_id)


def _one(tree: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if isinstance(tree, list):
        if any(isinstance(event, dict) and str(event.get("type", "")).startswith("response.")
               for event in tree):
            _events(tree, path, ledger, hosted_tools)
        else:
            _items(tree, path, ledger, hosted_tools)
    elif not isinstance(tree, dict):
        raise refuse(NAME, path, "a response, an item or a list of items",
                     type(tree).__name__, "pass JSON objects as the API returns them.")
    elif str(tree.get("type", "")).startswith("response."):
        _events([tree], path, ledger, hosted_tools)
    elif "output" in tree:
        _response(tree, path, ledger, hosted_tools)
    elif isinstance(tree.get("input"), list):
        _items(tree["input"], path + ("input",), ledger, hosted_tools)  # a request body
    else:
        _item(tree, path, ledger, hosted_tools)


def read_openai_responses(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Responses: a response's ``output`` items, a list of items (an input-item
    conversation, the Agents SDK's ``to_input_list()``), a list of responses
    (one per turn), or stream events (the finished response's calls)."""
    _one(tree, (), ledger, hosted_tools)
