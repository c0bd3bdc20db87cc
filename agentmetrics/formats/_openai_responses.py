"""OpenAI Responses: output items, input-item conversations and stream events.

Every item whose type ends in ``_call`` is a tool call. ``function_call``,
``custom_tool_call`` and ``mcp_call`` call the developer's tools (an
``mcp_approval_request`` is an MCP call asked before it runs); the others
(``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
``computer_call``, ``image_generation_call``, ``local_shell_call``,
``shell_call``, ``apply_patch_call``, ``tool_search_call``, ...) call built-in
tools: their name is the type without ``_call`` and their arguments are the
item's ``arguments`` when it has them, else its request fields. A ``program``
item (programmatic tool calling: code the model wrote, run by the API, whose
tool calls follow as ``function_call`` items) is a call named ``program``.

Built-in tools the API runs itself are *hosted*; those the developer's code
executes are not: ``computer_call``, ``local_shell_call``, ``shell_call``,
``apply_patch_call``, and any item with ``execution: "client"`` (a
client-executed tool search).
"""

from __future__ import annotations

from typing import Any

from agentmetrics.formats._ledger import Ledger, arguments_in, refuse, text
from agentmetrics.formats._payload import Path

__all__ = ["CLIENT_EXECUTED", "HOSTED_RESULT_FIELDS", "hosted_arguments",
           "read_openai_responses"]

NAME = "openai_responses"

#: Fields of a built-in tool's item that are bookkeeping or results, not arguments.
HOSTED_RESULT_FIELDS = frozenset({"type", "id", "call_id", "status", "output", "outputs",
                                  "result", "results", "error", "execution", "fingerprint",
                                  "caller"})
#: Built-in tools the developer's code executes: calls, but not hosted ones.
CLIENT_EXECUTED = frozenset({"computer_call", "local_shell_call", "shell_call",
                             "apply_patch_call"})
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
    return isinstance(kind, str) and (kind == "program" or (
        kind.endswith("_call") and "." not in kind))


class _Approvals:
    """The ids of the approval requests that an ``mcp_call`` of the payload
    answers, found on first need (most payloads hold no approval request)."""

    __slots__ = ("ids", "tree")

    def __init__(self, tree: Any) -> None:
        self.tree = tree
        self.ids: set[str] | None = None

    def answered(self, request_id: object) -> bool:
        if self.ids is None:
            self.ids = set()
            stack = [self.tree]
            while stack:
                node = stack.pop()
                if isinstance(node, list):
                    stack.extend(node)
                elif isinstance(node, dict):
                    if node.get("type") == "mcp_call" and isinstance(
                            node.get("approval_request_id"), str):
                        self.ids.add(node["approval_request_id"])
                    stack.extend(value for value in node.values()
                                 if isinstance(value, (dict, list)))
        return isinstance(request_id, str) and request_id in self.ids


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
    elif kind == "mcp_approval_request":
        _approval(item, path, ledger)
    elif not _is_call(kind):
        return  # messages, reasoning, *_output items, mcp_list_tools
    elif kind == "function_call":
        ledger.add(path, item.get("name"), arguments_in(item, "arguments", NAME, path),
                   item.get("call_id") or item.get("id"))
        ledger.mark(path, item.get("id"))  # the item's own id, by which events name it
    elif kind == "custom_tool_call":
        ledger.add(path, item.get("name"), arguments_in(item, "input", NAME, path),
                   item.get("call_id") or item.get("id"), free_text=True)
        ledger.mark(path, item.get("id"))
    elif kind == "mcp_call":
        ledger.add(path, item.get("name"), arguments_in(item, "arguments", NAME, path),
                   item.get("id"))
    elif hosted_tools or kind in CLIENT_EXECUTED or item.get("execution") == "client":
        arguments = item["arguments"] if "arguments" in item else hosted_arguments(item)
        ledger.add(path, str(kind).removesuffix("_call"), arguments,
                   item.get("call_id") or item.get("id"))
        ledger.mark(path, item.get("id"))
    else:
        ledger.skip(path, item.get("call_id") or item.get("id"))  # excluded on request


def _approval(item: dict[str, Any], path: Path, ledger: Ledger) -> None:
    """An MCP approval request names the tool and the arguments the model chose:
    it is the agent's call, read as an ``mcp_call`` would be. Once approved, the
    ``mcp_call`` that carries its id as ``approval_request_id`` is that call, and
    the request is its earlier view."""
    approvals = ledger.context.get("approvals")
    if approvals is not None and approvals.answered(item.get("id")):
        ledger.mark(path, item.get("id"))
        return
    ledger.add(path, item.get("name"), item.get("arguments"), item.get("id"))


def _response(response: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    output = response.get("output")
    if output is None:
        return
    if not isinstance(output, list):
        raise refuse(NAME, path + ("output",), "a list of output items", type(output).__name__,
                     "pass the response as the API returns it.")
    _items(output, path + ("output",), ledger, hosted_tools)


def _events(events: list[Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    """A stream: each finished response's calls, in order (a stream may hold
    several turns); each item event is another view of one of them. A finished
    response whose ``output`` is null, missing or ``[]`` (some backends send it
    so) is read from the ``output_item.done`` events since the previous one; so
    is the tail of a stream cut short before its last response finished."""
    done: list[tuple[dict[str, Any], Path]] = []
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            continue
        kind = text(event.get("type"))
        if kind == "response.output_item.done" and isinstance(event.get("item"), dict):
            done.append((event["item"], path + (index, "item")))
        elif kind in _TERMINAL_EVENTS and isinstance(event.get("response"), dict):
            output = event["response"].get("output")
            if output is None or output == []:
                for item, here in done:
                    _item(item, here, ledger, hosted_tools)
            else:
                _response(event["response"], path + (index, "response"), ledger, hosted_tools)
            done = []
    for item, here in done:  # a stream cut short: the items that finished
        _item(item, here, ledger, hosted_tools)
    for index, event in enumerate(events):
        view = event.get("item") if isinstance(event, dict) else None
        if isinstance(view, dict) and (_is_call(view.get("type")) or view.get("type") == (
                "mcp_approval_request")):
            call_id = view.get("id") if view.get("type") == "mcp_call" else (
                view.get("call_id") or view.get("id"))
            item_id = view.get("id")
            if (isinstance(call_id, str) and call_id in ledger.ids) or (
                    isinstance(item_id, str) and item_id in ledger.ids):
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
    ledger.context["approvals"] = _Approvals(tree)
    _one(tree, (), ledger, hosted_tools)
