"""The call census: one small walk that finds every call-like node in a payload.

It knows no format's grammar, only what tool calls look like anywhere:
items of ``tool_calls`` (and LangChain's ``invalid_tool_calls`` and
``tool_call_chunks``), blocks and items whose ``type`` names a call
(``tool_use``, ``server_tool_use``, ``mcp_tool_use``, ``tool_call``,
``function_call``, any ``*_call``), ``function_call``/``functionCall`` and
``executable_code`` parts, ``execute_tool`` spans and ``gen_ai.tool.name``
attributes, and the flattened tool-call attributes of Traceloop and
OpenInference. Tool definitions, tool results and the input messages a
telemetry span was given are context, not calls, and are not entered.

Readers are checked against it (:func:`check`): every site the census finds
must have been read or deliberately accounted for by the reader, or the read
fails. That makes "never fewer calls without an error" structural: a reader
that misses an item type, a detection that picks the wrong reader, a stream
merge that joins two calls, all end in an error naming the site.

The same walk notes the features detection decides on (keys, ``type``,
``object`` and ``role`` values), so a payload is walked once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import attrs

from agentmetrics.errors import InvalidCaseError
from agentmetrics.formats._ledger import Ledger, text
from agentmetrics.formats._payload import Path, render

__all__ = [
    "CAPTURE_HINT",
    "INPUT_EVENTS",
    "JSON_ATTRIBUTES",
    "MISSING_CALLS",
    "Scan",
    "Site",
    "check",
    "decoded_attribute",
    "mark_views",
    "scan",
]

#: Keys whose list items are calls (or pieces of one, in a stream).
_CALL_LISTS = frozenset({"tool_calls", "invalid_tool_calls", "tool_call_chunks"})
#: Keys whose mapping value is a call.
_CALL_PARTS = frozenset({"function_call", "functionCall", "executable_code", "executableCode",
                         "tool_call", "toolCall"})
#: ``type`` values of calls beyond the ``*_call`` suffix.
_CALL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
#: Keys never entered: tool definitions and settings, not calls.
_DEFINITIONS = frozenset({
    "tools", "functions", "tool_choice", "function_declarations", "functionDeclarations",
    "tool_config", "toolConfig", "input_schema", "parameters", "response_format",
    "gen_ai.tool.definitions", "gen_ai.tool.description", "gen_ai.request.tools",
})
#: Telemetry attributes holding what a span was given: context, not its calls.
_INPUT_ATTRIBUTES = frozenset({"gen_ai.input.messages", "gen_ai.system_instructions",
                               "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"})
_INPUT_PREFIXES = ("gen_ai.prompt.", "llm.input_messages.", "input.", "output.")
#: Telemetry events that carry what a model was given: context, not calls.
INPUT_EVENTS = frozenset({"gen_ai.user.message", "gen_ai.system.message",
                          "gen_ai.assistant.message", "gen_ai.tool.message"})
#: Message roles whose content is a tool's result.
_RESULT_ROLES = frozenset({"tool", "function", "ipython"})
_RESULT_KEYS = frozenset({"function_response", "functionResponse", "code_execution_result",
                          "codeExecutionResult", "tool_call_result"})
#: Attributes holding JSON text of messages, read as structure.
JSON_ATTRIBUTES = frozenset({"gen_ai.output.messages"})
#: Finish and stop reasons that say the model stopped to call tools.
_TOOL_REASONS = frozenset({"tool_calls", "tool_call", "function_call", "tool_use"})

_TRACELOOP = re.compile(r"^gen_ai\.completion\.(\d+)\.(?:tool_calls\.(\d+)\.name|function_call\.name)$")
_OPENINFERENCE = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.function\.name$")


@attrs.frozen(slots=True)
class Site:
    """One call-like node: where, its call id if it carries one, and what it is."""

    path: Path
    id: str | None
    kind: str


@attrs.define(slots=True)
class Scan:
    sites: list[Site] = attrs.Factory(list)
    #: Nodes that say the model stopped to call tools.
    promises: list[Path] = attrs.Factory(list)
    # What detection decides on, gathered cheaply: every key, the values of
    # ``type``, ``object`` and ``role``, attribute namespaces, and the keys
    # inside call items (``tool_calls.function``) and call parts.
    keys: set[str] = attrs.Factory(set)
    types: set[str] = attrs.Factory(set)
    objects: set[str] = attrs.Factory(set)
    roles: set[str] = attrs.Factory(set)
    attributes: set[str] = attrs.Factory(set)
    nested: set[str] = attrs.Factory(set)



def _is_call_type(kind: object) -> bool:
    return isinstance(kind, str) and (kind in _CALL_TYPES or (
        kind.endswith("_call") and "." not in kind))


def _is_result_type(kind: object) -> bool:
    return isinstance(kind, str) and kind.endswith(("_output", "_result", "_response"))


def _text_id(value: object) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _call_id(node: dict[str, Any]) -> str | None:
    return _text_id(node.get("call_id")) or _text_id(node.get("id"))


def _names_a_call(node: dict[str, Any]) -> bool:
    """A stream piece that starts a call (an id or a name), not a continuation."""
    if _call_id(node):
        return True
    name = node.get("name")
    function = node.get("function")
    if isinstance(function, dict):
        name = name or function.get("name")
    return isinstance(name, str) and bool(name)


def decoded_attribute(value: object) -> Any:
    """A JSON-text attribute (``gen_ai.output.messages``) as data; None when it
    is not JSON (the reader then says so)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value


def _attribute_sites(attributes: dict[str, Any], span: Path, out: Scan) -> None:
    out.attributes.update(key.split(".", 1)[0] for key in attributes)
    if attributes.get("gen_ai.operation.name") == "execute_tool" or (
        "gen_ai.tool.name" in attributes
    ):
        out.sites.append(Site(span, _text_id(attributes.get("gen_ai.tool.call.id")),
                              "execute_tool span"))
    if attributes.get("openinference.span.kind") == "TOOL":
        out.sites.append(Site(span, _text_id(attributes.get("tool_call.id")),
                              "OpenInference TOOL span"))
    reasons = attributes.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, str):
        reasons = [reasons]
    if (isinstance(reasons, list) and _TOOL_REASONS.intersection(
            r for r in reasons if isinstance(r, str))) or (
            text(attributes.get("llm.finish_reason")) in _TOOL_REASONS):
        out.promises.append(span)
    for key, value in attributes.items():
        if key in _DEFINITIONS or key in _INPUT_ATTRIBUTES or key.startswith(_INPUT_PREFIXES):
            continue
        match = _TRACELOOP.match(key) or _OPENINFERENCE.match(key)
        if match:
            prefix = key.rsplit(".name", 1)[0]
            if match.re is _OPENINFERENCE:
                prefix = prefix.rsplit(".function", 1)[0]
            out.sites.append(Site(span + ("attributes", prefix),
                                  _text_id(attributes.get(prefix + ".id")),
                                  "flattened tool-call attributes"))
        elif key.startswith("gen_ai.completion.") and key.endswith(".finish_reason") and (
                text(value) in _TOOL_REASONS):
            out.promises.append(span + ("attributes", key))
        elif key in JSON_ATTRIBUTES:
            _walk(decoded_attribute(value), span + ("attributes", key), out)
        elif isinstance(value, (dict, list)):
            _walk(value, span + ("attributes", key), out)


_RESULT_SUFFIXES = ("_output", "_result", "_response")


def _walk(node: Any, path: Path, out: Scan) -> None:
    # Iterative; children are pushed in reverse, so nodes are visited in document order.
    # This runs on every payload read, so the common checks are inlined.
    stack: list[tuple[Any, Path, bool]] = [(node, path, False)]
    keys, types, objects, roles = out.keys, out.types, out.objects, out.roles
    sites, promises = out.sites, out.promises
    while stack:
        node, path, in_call_list = stack.pop()
        if type(node) is list:
            for index in range(len(node) - 1, -1, -1):
                item = node[index]
                if type(item) is dict or type(item) is list:
                    stack.append((item, path + (index,), in_call_list))
            continue
        if type(node) is not dict:
            continue
        keys.update(node)
        if in_call_list:
            out.nested.update(f"{path[-2]}.{key}" for key in node)
            if _names_a_call(node):
                sites.append(Site(path, _call_id(node), f"{path[-2]} item"))
            continue
        kind = node.get("type")
        if type(kind) is str:
            types.add(kind)
            if kind.endswith(_RESULT_SUFFIXES):
                continue  # a tool's result, not a call
            if kind in _CALL_TYPES or (kind.endswith("_call") and "." not in kind):
                sites.append(Site(path, _call_id(node), f"{kind} item"))
                continue
        role = node.get("role")
        if type(role) is str:
            roles.add(role)
            if role in _RESULT_ROLES:
                continue
        if "object" in node and type(node["object"]) is str:
            objects.add(node["object"])
        if ("eventName" in node or "event_name" in node) and text(
                node.get("eventName", node.get("event_name"))) in INPUT_EVENTS:
            continue
        reason = node.get("finish_reason", node.get("stop_reason"))
        if type(reason) is str and reason in _TOOL_REASONS:
            promises.append(path)
        for key, value in reversed(node.items()):
            if type(value) is list:
                if key not in _DEFINITIONS:
                    stack.append((value, path + (key,), key in _CALL_LISTS))
            elif type(value) is not dict or key in _DEFINITIONS or key in _RESULT_KEYS:
                continue
            elif key in _CALL_PARTS:
                out.nested.update(f"{key}.{k}" for k in value)
                if key.startswith("exec") or _names_a_call(value):
                    sites.append(Site(path + (key,), _text_id(value.get("id")), f"{key} part"))
            elif key == "attributes":
                _attribute_sites(value, path, out)
            else:
                stack.append((value, path + (key,), False))


def scan(tree: Any, base: Path = ()) -> Scan:
    """The call sites, tool-use promises and detection features of ``tree``
    (found at ``base`` in a larger payload)."""
    out = Scan()
    _walk(tree, base, out)
    return out


def mark_views(ledger: Ledger, node: Any, path: Path) -> None:
    """Account for copies of calls already read, found by their ids under
    ``node``: a stream's closing event repeating a block, a provider's raw copy
    beside a framework's parsed one. A copy without a read id stays unaccounted
    for, so the census still reports it."""
    for site in scan(node, path).sites:
        if site.id is not None and site.id in ledger.ids:
            ledger.mark(site.path, site.id)


def _missing(sites: list[Site], ledger: Ledger) -> Iterator[Site]:
    for site in sites:
        if site.path not in ledger.paths or (site.id is not None and site.id not in ledger.ids):
            yield site


def check(found: Scan, ledger: Ledger) -> None:
    """Raise unless the reader accounted for every call site the census found."""
    missing = list(_missing(found.sites, ledger))
    if missing:
        first = missing[0]
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        ident = f" with id {first.id!r}" if first.id else ""
        raise InvalidCaseError(
            f"{ledger.format}: the payload holds a call the reader did not read: a "
            f"{first.kind}{ident} at {render(first.path)}{more}; expected every call to come "
            f"back, got {len(ledger.calls)} call(s) from {len(found.sites)} call site(s). "
            f"Fix: pass format=... if this payload is another format; if it is this one, "
            f"this shape is not supported yet: report it with the payload."
        )
    if found.promises and not found.sites:
        raise InvalidCaseError(
            f"{ledger.format}: at {render(found.promises[0])}, {MISSING_CALLS}"
            + (CAPTURE_HINT if ledger.format == "otel" else "")
        )


#: What a payload that promises calls and holds none is told.
MISSING_CALLS = ("the model stopped to call tools, but the calls are missing from the payload; "
                 "expected the calls, got none. Fix: pass the complete payload, as the SDK or "
                 "API returned it.")
CAPTURE_HINT = (" For telemetry, turn on message content capture (e.g. "
                "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true) so spans record "
                "the calls.")
