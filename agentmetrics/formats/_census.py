"""The call census: one small walk that finds every call-like node in a payload.

It knows no format's grammar, only what tool calls look like anywhere, in
any spelling (:mod:`agentmetrics.formats._keys` compares keys and ``type``
values case-insensitively with ``_``, ``-`` and spaces removed):

- every call-shaped mapping under a key that names calls (``tool_calls``,
  ``toolCalls``, ``tool_use``, ``toolUse``, ``function_call``, ``functionCall``,
  ``tool_call_chunks``, ``executable_code``, ...), as the value or as an item of
  a list: a mapping is call-shaped when it carries a name, an id, arguments or
  input (``{"web_search_requests": 1}`` under Anthropic's ``usage.server_tool_use``
  is not);
- every mapping whose ``type`` names a call (``tool_use``, ``server_tool_use``,
  ``function_call``, ``tool-call``, any ``*_call``, ``mcp_approval_request``), and
  every typed mapping that carries a ``call_id`` (an item of a type no reader
  knows yet is reported, not passed over);
- a call-shaped mapping at the top of the payload or as an item of a top-level
  list, with a name and arguments (``{"name": ..., "args": ...}``, the SDK's
  ``FunctionCall``), or a tool-call object there (``message.tool_calls``' items
  as an SDK dumps them: ``{"id", "type": "function", "function": {"name",
  "arguments"}}``);
- ``execute_tool`` spans and ``gen_ai.tool.name`` attributes, and the flattened
  tool-call attributes of Traceloop and OpenInference.

Stop and finish reasons in any spelling that say tools were used
(``finish_reason: "tool_calls"``, ``stopReason: "tool_use"``, ``TOOL_CALL``)
are *promises*: a payload with promises and no call site is refused.

Context is not entered: tool definitions and settings (``tools``,
``tool_choice``, ``toolConfig``), keys that only refer to a call (a tool
result's ``tool_call_id``), tool results (``role: "tool"`` messages,
``tool_result`` blocks, ``toolResult``, ``functionResponse``), and the input
messages a telemetry span was given.

**Zero-valued placeholders are not calls.** A mapping whose every value is
empty (``""``, ``null``, ``0``, ``false``, ``{}``, ``[]``, at any depth), such as
the ``"function_call": {"name": "", "arguments": ""}`` or the ``"custom":
{"name": "", "input": ""}`` that servers with Go-style zero values send beside
the branch they use, carries nothing: it is neither read as a call nor
reported. A mapping with anything in it is a site; a call whose name is empty
while other fields are set is refused by the reader.

Readers are checked against it (:func:`check`): every site the census finds
must have been read or deliberately accounted for by the reader, or the read
fails. That makes "never fewer calls without an error" structural: a reader
that misses an item type, a detection that picks the wrong reader, a stream
merge that joins two calls, a spelling no reader knows, all end in an error
naming the site.

The same walk notes the features detection decides on (keys, ``type``,
``object`` and ``role`` values), so a payload is walked once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NamedTuple

import attrs

from agentmetrics.errors import InvalidCaseError
from agentmetrics.formats._keys import (
    CALL_KEY,
    CONTEXT_KEY,
    KEY_KINDS,
    PLAIN_KEY,
    REASON_KEY,
    RESULT_KEY,
    TYPE_KINDS,
    cached,
    key_kind,
    norm,
    says_tools,
    type_kind,
)
from agentmetrics.formats._ledger import MISSING_CALLS, Ledger, text
from agentmetrics.formats._payload import Path, render

__all__ = [
    "CAPTURE_HINT",
    "FUNCTION_CALL_FIELDS",
    "INPUT_EVENTS",
    "JSON_ATTRIBUTES",
    "Scan",
    "Site",
    "check",
    "decoded_attribute",
    "is_zero",
    "mark_views",
    "scan",
]

#: Telemetry attributes holding what a span was given: context, not its calls.
_INPUT_ATTRIBUTES = frozenset({"gen_ai.input.messages", "gen_ai.system_instructions",
                               "gen_ai.tool.call.arguments", "gen_ai.tool.call.result",
                               "gen_ai.tool.definitions", "gen_ai.tool.description",
                               "gen_ai.request.tools"})
_INPUT_PREFIXES = ("gen_ai.prompt.", "llm.input_messages.", "input.", "output.", "llm.tools.")
#: Telemetry events that carry what a model was given: context, not calls.
INPUT_EVENTS = frozenset({"gen_ai.user.message", "gen_ai.system.message",
                          "gen_ai.assistant.message", "gen_ai.tool.message"})
#: Message roles (in lower case) whose content is a tool's result.
_RESULT_ROLES = frozenset({"tool", "function", "ipython", "tool_result", "tool_response"})
#: Attributes holding JSON text of messages, read as structure.
JSON_ATTRIBUTES = frozenset({"gen_ai.output.messages"})
#: Fields (normalized) that make a mapping call-shaped: a name, an id, arguments.
_CALL_FIELDS = frozenset({
    "name", "id", "callid", "arguments", "args", "argument", "input", "inputs", "parameters",
    "params", "function", "partialargs", "partialjson", "code", "toolname", "functionname",
    "tooluseid", "toolcallid", "toolid", "custom",
})
#: Of those, the ones that hold what a call was given.
_ARGUMENT_FIELDS = frozenset({"arguments", "args", "argument", "input", "inputs", "parameters",
                              "params"})

_TRACELOOP = re.compile(r"^gen_ai\.completion\.(\d+)\.(?:tool_calls\.(\d+)\.name|function_call\.name)$")
_OPENINFERENCE = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.function\.name$")


class Site(NamedTuple):
    """One call-like node: where, its call id if it carries one, and what it is.
    (A tuple: a payload's census makes one for every call it holds.)"""

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
    #: Values of ``event_type`` (Cohere v1 and Interactions API stream events).
    events: set[str] = attrs.Factory(set)



def _text_id(value: object) -> str | None:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


_ID_KEYS = ("call_id", "id", "toolUseId", "tool_use_id")


def _call_id(node: dict[str, Any]) -> str | None:
    """The first of ``call_id``, ``id``, ``toolUseId``, ``tool_use_id`` that is
    a non-empty string or an integer (as text)."""
    for key in _ID_KEYS:
        value = node.get(key)
        if value is not None:
            found = _text_id(value)
            if found is not None:
                return found
    return None


def is_zero(value: object) -> bool:
    """An empty value at every depth: ``""``, ``None``, ``0``, ``False``, ``{}``,
    ``[]``, or containers of only those. A placeholder, not content."""
    if isinstance(value, str):
        return not value
    if isinstance(value, (dict, list)):
        # A loop, not all(): this runs on every call item of every payload.
        for item in value.values() if isinstance(value, dict) else value:  # noqa: SIM110
            if not is_zero(item):
                return False
        return True
    return value is None or value is False or (type(value) in (int, float) and value == 0)


def _call_shaped(node: dict[str, Any]) -> bool:
    """A mapping that carries a name, an id, arguments or input: what a call
    (or a streamed piece of one) carries. Not a placeholder."""
    for key, value in node.items():
        if type(key) is str:
            field = _FIELDS.get(key)
            if field is None:
                field = _is_call_field(key)
            if field and (value if type(value) is str else not is_zero(value)):
                return True
    return False


#: Whether a key, in any spelling, is one of :data:`_CALL_FIELDS`.
_FIELDS, _is_call_field = cached(lambda key: norm(key) in _CALL_FIELDS)

#: The fields of google-genai's FunctionCall (``response.function_calls``).
FUNCTION_CALL_FIELDS = frozenset({"id", "name", "args", "partial_args", "partialArgs",
                                  "will_continue", "willContinue"})


def _bare_call(node: dict[str, Any]) -> bool:
    """A call given on its own: a name and arguments, no type or role; or a
    FunctionCall (a name, and only FunctionCall's fields)."""
    if "type" in node or "role" in node:
        return False
    name = node.get("name")
    return type(name) is str and bool(name) and (node.keys() <= FUNCTION_CALL_FIELDS or any(
        type(key) is str and norm(key) in _ARGUMENT_FIELDS for key in node))


#: An OpenAI-style call item's branches: the key of its body and of what it was given.
_ITEM_BRANCHES = (("function", "arguments"), ("custom", "input"))


def _call_item(node: dict[str, Any]) -> bool:
    """A tool-call object given on its own, as an SDK dumps
    ``message.tool_calls``' items (``{"id", "type": "function", "function":
    {"name", "arguments"}}``, Cohere's and Ollama's alike): a ``function`` (or
    ``custom``) mapping that carries a name and what the call was given, no
    role. A tool definition's ``function`` carries ``parameters`` instead."""
    if "role" in node:
        return False
    kind = node.get("type")
    for branch, given in _ITEM_BRANCHES:
        body = node.get(branch)
        if type(body) is dict and "name" in body and given in body and kind in (None, branch):
            return True
    return False


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
    if says_tools(attributes.get("gen_ai.response.finish_reasons")) or says_tools(
            attributes.get("llm.finish_reason")):
        out.promises.append(span)
    for key, value in attributes.items():
        if key in _INPUT_ATTRIBUTES or key.startswith(_INPUT_PREFIXES) or (
                key_kind(key) == CONTEXT_KEY):
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
                says_tools(value)):
            out.promises.append(span + ("attributes", key))
        elif key in JSON_ATTRIBUTES:
            _walk(decoded_attribute(value), span + ("attributes", key), out)
        elif isinstance(value, (dict, list)):
            _walk(value, span + ("attributes", key), out)


def _call_value(value: Any, path: Path, key: str, out: Scan) -> None:
    """The value of a key that names calls: each call-shaped mapping in it is a
    site; other content is walked as usual."""
    stack: list[tuple[Any, Path]] = [(value, path)]
    prefix = key + "."
    while stack:
        node, here = stack.pop()
        if type(node) is list:
            for index in range(len(node) - 1, -1, -1):
                stack.append((node[index], here + (index,)))
        elif type(node) is dict:
            out.keys.update(node)
            out.nested.update(map(prefix.__add__, node))  # a tree's keys are all strings
            if _call_shaped(node):
                out.sites.append(Site(here, _call_id(node), f"{key} item" if here[-1:] and type(
                    here[-1]) is int else f"{key} part"))
            elif not is_zero(node):
                _walk(node, here, out)
        elif type(node) is str and node.strip() and type(here[-1]) is int:
            out.sites.append(Site(here, None, f"{key} item (a call named as text)"))


def _walk(node: Any, path: Path, out: Scan) -> None:
    # Iterative; children are pushed in reverse, so nodes are visited in document order.
    # This runs on every payload read, so the common checks are inlined.
    stack: list[tuple[Any, Path]] = [(node, path)]
    keys, types, objects, roles = out.keys, out.types, out.objects, out.roles
    sites, promises = out.sites, out.promises
    kinds, type_kinds = KEY_KINDS, TYPE_KINDS
    while stack:
        node, path = stack.pop()
        if type(node) is list:
            for index in range(len(node) - 1, -1, -1):
                item = node[index]
                if type(item) is dict or type(item) is list:
                    stack.append((item, path + (index,)))
            continue
        if type(node) is not dict:
            continue
        keys.update(node)
        kind = node.get("type")
        if type(kind) is str:
            types.add(kind)
            what = type_kinds.get(kind)
            if what is None:
                what = type_kind(kind)
            if what == RESULT_KEY:
                continue  # a tool's result, not a call
            if what == CALL_KEY or ("call_id" in node and kind != "message"
                                    and _text_id(node["call_id"])):
                # A typed item with a call id is a call of some kind, even of a type no
                # reader knows yet (OpenAI's ``program``): never passed over silently.
                sites.append(Site(path, _call_id(node), f"{kind} item"))
                continue
        role = node.get("role")
        if type(role) is str:
            roles.add(role)
            if role.lower() in _RESULT_ROLES:
                continue
        if "object" in node and type(node["object"]) is str:
            objects.add(node["object"])
        if ("eventName" in node or "event_name" in node) and text(
                node.get("eventName", node.get("event_name"))) in INPUT_EVENTS:
            continue
        if len(path) <= 1 and (not path or type(path[0]) is int):
            if _bare_call(node):
                sites.append(Site(path, _call_id(node), "call"))
                if node.keys() <= FUNCTION_CALL_FIELDS:
                    out.nested.add("FunctionCall")
                continue
            if _call_item(node):
                sites.append(Site(path, _call_id(node), "tool-call object"))
                out.nested.update(f"tool_calls.{key}" for key in node)
                continue
        if "event_type" in node and type(node["event_type"]) is str:
            out.events.add(node["event_type"])
        for key, value in reversed(node.items()):
            held = type(value)
            if held is not dict and held is not list:
                if held is str:  # only a reason's text can say something here
                    what = kinds.get(key)
                    if what is None:
                        what = key_kind(key)
                    if what == REASON_KEY and says_tools(value):
                        promises.append(path + (key,))
                continue
            what = kinds.get(key)
            if what is None:
                what = key_kind(key)
            if what == PLAIN_KEY:
                if key == "attributes" and type(value) is dict:
                    _attribute_sites(value, path, out)
                else:
                    stack.append((value, path + (key,)))
            elif what == CALL_KEY:
                _call_value(value, path + (key,), key, out)
            elif what == REASON_KEY:
                if says_tools(value):
                    promises.append(path + (key,))
            # CONTEXT_KEY and RESULT_KEY: definitions, settings and results, not entered


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


CAPTURE_HINT = (" For telemetry, turn on message content capture (e.g. "
                "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true) so spans record "
                "the calls.")
